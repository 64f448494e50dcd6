import * as vscode from 'vscode';
import { LinkIndex, type LinkReference } from '../../core/authoring';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';
import { pageIn, toRange, uriOf } from './wikiLanguage';

type Node = { kind: 'page'; wiki: Wiki; slug: string; title: string; links: LinkReference[] } | { kind: 'link'; wiki: Wiki; link: LinkReference };

/** The pages linking to the active page, each with the lines of its links. */
export class BacklinksProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The page shown: the active editor's, kept while a non-page editor is focused. */
  private current?: { wiki: Wiki; slug: string };

  /** The view this provider fills, for its message and description. */
  view?: vscode.TreeView<unknown>;

  constructor(private readonly services: Services) {}

  follow(uri: vscode.Uri | undefined): void {
    const page = uri && pageIn(this.services, uri);
    if (page) this.current = page;
    this.changed.fire();
  }

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node?.kind === 'page') return node.links.map((link) => ({ kind: 'link', wiki: node.wiki, link }));
    if (node) return [];
    const { view } = this;
    if (!this.current) {
      if (view) view.message = 'Open a wiki page to see the pages that link to it.';
      return [];
    }
    const { wiki, slug } = this.current;
    const index = LinkIndex.of((await this.services.snapshots.get(wiki)).pages);
    const byPage = new Map<string, LinkReference[]>();
    for (const link of index.backlinks(slug)) byPage.set(link.from, [...(byPage.get(link.from) ?? []), link]);
    const title = index.page(slug)?.frontmatter.title ?? slug;
    if (view) {
      view.message = byPage.size ? undefined : `No page links to "${title}" yet.`;
      view.description = title;
    }
    return [...byPage].map(([from, links]) => ({ kind: 'page' as const, wiki, slug: from, title: index.page(from)?.frontmatter.title ?? from, links }))
      .sort((a, b) => a.title.localeCompare(b.title));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'page') {
      const item = new vscode.TreeItem(node.title, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `${node.wiki.root}#backlink#${node.slug}`;
      item.description = node.slug;
      item.iconPath = new vscode.ThemeIcon('book');
      item.resourceUri = uriOf(node.wiki, node.links[0].relPath);
      item.command = { command: 'vscode.open', title: 'Open page', arguments: [item.resourceUri] };
      return item;
    }
    const { link } = node;
    const item = new vscode.TreeItem(excerpt(link), vscode.TreeItemCollapsibleState.None);
    item.id = `${node.wiki.root}#backlink#${link.from}#${link.range.start.line}:${link.range.start.character}`;
    item.description = `line ${link.range.start.line + 1}`;
    item.tooltip = `${link.relPath}:${link.range.start.line + 1}`;
    item.iconPath = new vscode.ThemeIcon('link');
    item.command = { command: 'vscode.open', title: 'Open link', arguments: [uriOf(node.wiki, link.relPath), { selection: toRange(link.range) }] };
    return item;
  }
}

/** The link's line around the link, so a link at the end of a long line is still in view. */
function excerpt(link: LinkReference): string {
  const at = link.lineText.indexOf(`[[${link.target}`);
  if (at <= 30) return link.lineText || `[[${link.target}]]`;
  return `…${link.lineText.slice(at - 20)}`;
}
