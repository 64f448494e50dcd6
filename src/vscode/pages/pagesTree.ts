import * as path from 'node:path';
import * as vscode from 'vscode';
import { TOPICS, type IndexEntry, type Topic } from '../../core/model';
import type { Proposal } from '../../core/proposals';
import type { Wiki } from '../../core/wiki/wiki';
import { topicLabel } from '../../core/index/wikiIndex';
import type { Services } from '../services/services';

type Node =
  | { kind: 'folder'; wiki: Wiki }
  | { kind: 'proposals'; wiki: Wiki; proposals: Proposal[] }
  | { kind: 'proposal'; wiki: Wiki; proposal: Proposal }
  | { kind: 'topic'; wiki: Wiki; topic: Topic; count: number }
  | { kind: 'page'; wiki: Wiki; entry: IndexEntry; age?: string };

/** Pages grouped by topic (and by folder in a multi-root workspace), with stale and superseded marked. */
export class PagesTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly services: Services) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      const wikis = await this.services.wikis.existing();
      if (wikis.length === 1) return this.topics(wikis[0]);
      return wikis.map((wiki) => ({ kind: 'folder', wiki }));
    }
    if (node.kind === 'folder') return this.topics(node.wiki);
    if (node.kind === 'proposals') return node.proposals.map((proposal) => ({ kind: 'proposal', wiki: node.wiki, proposal }));
    if (node.kind === 'topic') {
      const { index, pages } = await this.services.snapshots.get(node.wiki);
      const ages = await this.services.ages.tags(node.wiki, pages);
      return index.pages
        .filter((entry) => entry.topic === node.topic)
        .sort((a, b) => a.title.localeCompare(b.title))
        .map((entry) => ({ kind: 'page', wiki: node.wiki, entry, age: ages.get(entry.slug) }));
    }
    return [];
  }

  /** The topics of a wiki, after "N proposals to review" when agents proposed changes. */
  private async topics(wiki: Wiki): Promise<Node[]> {
    const [{ index }, { proposals }] = await Promise.all([this.services.snapshots.get(wiki), this.services.proposals.list(wiki)]);
    const topics: Node[] = TOPICS.map((topic) => ({ kind: 'topic' as const, wiki, topic, count: index.pages.filter((p) => p.topic === topic).length }))
      .filter((node) => node.count > 0);
    return proposals.length ? [{ kind: 'proposals', wiki, proposals }, ...topics] : topics;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'folder') {
      const item = new vscode.TreeItem(path.basename(node.wiki.root), vscode.TreeItemCollapsibleState.Expanded);
      item.iconPath = new vscode.ThemeIcon('root-folder');
      item.tooltip = node.wiki.root;
      item.contextValue = 'repoWiki.folder';
      return item;
    }
    if (node.kind === 'proposals') {
      const count = node.proposals.length;
      const item = new vscode.TreeItem(`${count} proposal${count === 1 ? '' : 's'} to review`, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `${node.wiki.root}#proposals`;
      item.iconPath = new vscode.ThemeIcon('git-pull-request', new vscode.ThemeColor('notificationsInfoIcon.foreground'));
      item.tooltip = 'Page changes agents proposed. Nothing is in the wiki until you accept a proposal.';
      item.contextValue = 'repoWiki.proposals';
      return item;
    }
    if (node.kind === 'proposal') {
      const { proposal } = node;
      const item = new vscode.TreeItem(proposal.page.title, vscode.TreeItemCollapsibleState.None);
      item.id = `${node.wiki.root}#proposal#${proposal.id}`;
      item.description = `${proposal.page.slug} · ${proposal.agent}`;
      item.iconPath = new vscode.ThemeIcon('git-pull-request-draft');
      // Proposal text comes from an agent: plain text only.
      const tooltip = new vscode.MarkdownString();
      tooltip.appendText(`${proposal.agent} proposes [[${proposal.page.slug}]] (${proposal.created.slice(0, 16).replace('T', ' ')})\n\n${proposal.reason}`);
      item.tooltip = tooltip;
      item.contextValue = 'repoWiki.proposal';
      item.command = { command: 'repoWiki.reviewProposal', title: 'Review proposal', arguments: [{ wiki: node.wiki, proposal }] };
      return item;
    }
    if (node.kind === 'topic') {
      const item = new vscode.TreeItem(topicLabel(node.topic), vscode.TreeItemCollapsibleState.Expanded);
      item.id = `${node.wiki.root}#${node.topic}`;
      item.description = String(node.count);
      item.iconPath = new vscode.ThemeIcon('folder-library');
      item.contextValue = 'repoWiki.topic';
      return item;
    }
    const { entry, wiki } = node;
    const uri = vscode.Uri.file(path.join(wiki.root, entry.path));
    const item = new vscode.TreeItem(entry.title, vscode.TreeItemCollapsibleState.None);
    item.id = `${wiki.root}#page#${entry.slug}`;
    item.resourceUri = uri;
    const status = entry.status === 'active' ? '' : `${entry.status} · `;
    item.description = `${status}${node.age ? `${node.age} · ` : ''}${entry.summary}`;
    item.iconPath = statusIcon(entry.status);
    item.tooltip = pageTooltip(entry, node.age);
    item.contextValue = `repoWiki.page.${entry.status}`;
    item.command = { command: 'vscode.open', title: 'Open page', arguments: [uri] };
    item.accessibilityInformation = { label: `${entry.title}, ${entry.status} page: ${entry.summary}` };
    return item;
  }
}

function statusIcon(status: IndexEntry['status']): vscode.ThemeIcon {
  if (status === 'stale') return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  if (status === 'superseded') return new vscode.ThemeIcon('archive', new vscode.ThemeColor('disabledForeground'));
  return new vscode.ThemeIcon('book');
}

function pageTooltip(entry: IndexEntry, age: string | undefined): vscode.MarkdownString {
  // Page text is untrusted (a teammate or a pulled branch wrote it): plain text only.
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(entry.title);
  tooltip.appendMarkdown('\n\n');
  tooltip.appendText(entry.summary);
  tooltip.appendMarkdown('\n\n');
  const facts = [`status: ${entry.status}`, `topic: ${entry.topic}`, age && `age: ${age}`, entry.updated && `updated: ${entry.updated}`,
    entry.tags.length ? `tags: ${entry.tags.join(', ')}` : '', entry.superseded_by ? `superseded by: ${entry.superseded_by}` : '']
    .filter(Boolean);
  tooltip.appendText(facts.join(' · '));
  return tooltip;
}
