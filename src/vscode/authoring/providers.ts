import * as vscode from 'vscode';
import type { CompletionKind, HoverInfo, Location } from '../../core/authoring';
import type { OutlineSymbol } from '../../core/authoring';
import type { Wiki } from '../../core/wiki/wiki';
import { toRange, uriOf, type WikiLanguage } from './wikiLanguage';

const KINDS: Record<CompletionKind, vscode.CompletionItemKind> = {
  page: vscode.CompletionItemKind.Reference,
  heading: vscode.CompletionItemKind.Text,
  file: vscode.CompletionItemKind.File,
  symbol: vscode.CompletionItemKind.Function,
  field: vscode.CompletionItemKind.Property,
  value: vscode.CompletionItemKind.EnumMember,
};

function toLocation(wiki: Wiki, location: Location): vscode.Location {
  return new vscode.Location(uriOf(wiki, location.relPath), toRange(location.range));
}

/** `[[` pages and headings, backtick paths and `:` symbols, frontmatter keys and values. */
export class PageCompletionProvider implements vscode.CompletionItemProvider {
  static readonly triggers = ['[', '#', '`', ':', '/', ' '];

  constructor(private readonly language: WikiLanguage) {}

  async provideCompletionItems(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.CompletionList | undefined> {
    const target = this.language.forDocument(document);
    if (!target) return undefined;
    const result = await target.service.completions(target.page, position);
    const items = result.items.map((entry) => {
      const item = new vscode.CompletionItem({ label: entry.label, description: entry.detail }, KINDS[entry.kind]);
      item.insertText = entry.insertText;
      item.filterText = entry.filterText;
      item.sortText = entry.sortText;
      item.range = toRange(entry.range);
      if (entry.documentation) item.documentation = new vscode.MarkdownString().appendText(entry.documentation);
      return item;
    });
    return new vscode.CompletionList(items, result.incomplete);
  }
}

/** F12 on `[[slug]]` opens the page (at the heading); on a citation, the cited symbol. */
export class PageDefinitionProvider implements vscode.DefinitionProvider {
  constructor(private readonly language: WikiLanguage) {}

  async provideDefinition(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Location | undefined> {
    const target = this.language.forDocument(document);
    const location = target && (await target.service.definition(target.page, position));
    return location && toLocation(target.wiki, location);
  }
}

/** A link's page facts, a citation's current code and drift state; page and code text shown as text and code, never as markdown. */
export class PageHoverProvider implements vscode.HoverProvider {
  constructor(private readonly language: WikiLanguage) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const target = this.language.forDocument(document);
    const info = target && (await target.service.hover(target.page, position));
    return info && new vscode.Hover(renderHover(info), toRange(info.range));
  }
}

export function renderHover(info: HoverInfo): vscode.MarkdownString {
  // Untrusted, no HTML, no command links: pages and code come from anyone with push access.
  const markdown = new vscode.MarkdownString();
  markdown.appendMarkdown('**');
  markdown.appendText(info.title);
  markdown.appendMarkdown('**\n\n');
  for (const line of info.lines) {
    markdown.appendText(line);
    markdown.appendMarkdown('\n\n');
  }
  if (info.code) markdown.appendCodeblock(info.code.text, info.code.language);
  return markdown;
}

/** Page links and citations are clickable; a citation's line is found when the link is followed. */
export class PageDocumentLinkProvider implements vscode.DocumentLinkProvider<PageDocumentLink> {
  constructor(private readonly language: WikiLanguage) {}

  async provideDocumentLinks(document: vscode.TextDocument): Promise<PageDocumentLink[]> {
    const target = this.language.forDocument(document);
    if (!target) return [];
    return (await target.service.documentLinks(target.page)).map((info) => {
      const uri = uriOf(target.wiki, info.relPath);
      const link = new PageDocumentLink(toRange(info.range), info.kind === 'page' ? withLine(uri, info.line) : undefined);
      link.tooltip = info.tooltip;
      if (info.citation) link.resolve = async () => {
        const location = await target.service.resolveCitation(info.citation!);
        return location ? withLine(uriOf(target.wiki, location.relPath), location.range.start.line) : uri;
      };
      return link;
    });
  }

  async resolveDocumentLink(link: PageDocumentLink): Promise<PageDocumentLink> {
    if (link.resolve) link.target = await link.resolve();
    return link;
  }
}

class PageDocumentLink extends vscode.DocumentLink {
  resolve?: () => Promise<vscode.Uri>;
}

function withLine(uri: vscode.Uri, line: number | undefined): vscode.Uri {
  return line === undefined ? uri : uri.with({ fragment: `L${line + 1}` });
}

/** Shift+F12: pages linking to a page (from a link or the title line), or pages citing the same code. */
export class PageReferenceProvider implements vscode.ReferenceProvider {
  constructor(private readonly language: WikiLanguage) {}

  async provideReferences(document: vscode.TextDocument, position: vscode.Position, context: vscode.ReferenceContext): Promise<vscode.Location[]> {
    const target = this.language.forDocument(document);
    if (!target) return [];
    return (await target.service.references(target.page, position, context.includeDeclaration)).map((location) => toLocation(target.wiki, location));
  }
}

/** The outline of a page: its headings, nested. */
export class PageDocumentSymbolProvider implements vscode.DocumentSymbolProvider {
  constructor(private readonly language: WikiLanguage) {}

  provideDocumentSymbols(document: vscode.TextDocument): vscode.DocumentSymbol[] {
    const target = this.language.forDocument(document);
    return target ? target.service.documentSymbols(target.page).map(toSymbol) : [];
  }
}

function toSymbol(node: OutlineSymbol): vscode.DocumentSymbol {
  const range = toRange(node.range);
  const symbol = new vscode.DocumentSymbol(node.text, '', vscode.SymbolKind.String, range, range);
  symbol.children = node.children.map(toSymbol);
  return symbol;
}

/** Ctrl+T: pages by title, in every wiki of the window. */
export class PageWorkspaceSymbolProvider implements vscode.WorkspaceSymbolProvider {
  constructor(private readonly language: WikiLanguage, private readonly wikis: () => Promise<Wiki[]>) {}

  async provideWorkspaceSymbols(query: string): Promise<vscode.SymbolInformation[]> {
    const symbols: vscode.SymbolInformation[] = [];
    for (const wiki of await this.wikis()) {
      for (const info of await this.language.of(wiki).workspaceSymbols(query)) {
        symbols.push(new vscode.SymbolInformation(info.name, vscode.SymbolKind.File, `wiki page ${info.detail}`, toLocation(wiki, info)));
      }
    }
    return symbols;
  }
}
