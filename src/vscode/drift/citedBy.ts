import * as path from 'node:path';
import * as vscode from 'vscode';
import { findCitations, SYMBOL_FILE } from '../../core/drift/citations';
import type { SourceSymbol } from '../../core/drift/symbols';
import type { Services } from '../services/services';

export interface CitingPage {
  slug: string;
  title: string;
  stale: boolean;
  uri: vscode.Uri;
}

/** Reverse citations: which wiki pages cite each symbol of a source file (hover and CodeLens). */
export class CitationIndex {
  private cache?: Promise<Map<string, Map<string, CitingPage[]>>>;

  constructor(private readonly services: Pick<Services, 'wikis' | 'snapshots'>) {
    services.snapshots.onDidUpdate(() => (this.cache = undefined));
  }

  /** symbol (or '' for the whole file) -> pages, for one source file. */
  async forFile(uri: vscode.Uri): Promise<Map<string, CitingPage[]> | undefined> {
    const wiki = this.services.wikis.forUri(uri);
    if (!wiki) return undefined;
    return (await (this.cache ??= this.build())).get(path.join(wiki.root, wiki.relative(uri.fsPath)));
  }

  private async build(): Promise<Map<string, Map<string, CitingPage[]>>> {
    const index = new Map<string, Map<string, CitingPage[]>>();
    for (const wiki of await this.services.wikis.existing()) {
      const snapshot = await this.services.snapshots.get(wiki);
      for (const page of snapshot.pages) {
        const citing = { slug: page.slug, title: page.frontmatter.title ?? page.slug, stale: (page.frontmatter.status ?? 'active') !== 'active', uri: vscode.Uri.file(path.join(wiki.root, page.relPath)) };
        for (const citation of findCitations(page)) {
          if (citation.outside) continue;
          const file = path.join(wiki.root, citation.path);
          const bySymbol = index.get(file) ?? new Map<string, CitingPage[]>();
          const list = bySymbol.get(citation.symbol ?? '') ?? [];
          if (!list.some((p) => p.uri.fsPath === citing.uri.fsPath)) list.push(citing);
          bySymbol.set(citation.symbol ?? '', list);
          index.set(file, bySymbol);
        }
      }
    }
    return index;
  }
}

/** The symbols of an open TS/JS document, parsed by the drift worker and cached per version. */
export class DocumentSymbols {
  private readonly cache = new Map<string, { version: number; symbols: Promise<SourceSymbol[]> }>();

  constructor(private readonly services: Pick<Services, 'wikis' | 'driftWorker'>) {}

  of(document: vscode.TextDocument): Promise<SourceSymbol[]> {
    const cached = this.cache.get(document.uri.toString());
    if (cached?.version === document.version) return cached.symbols;
    const wiki = this.services.wikis.forUri(document.uri);
    const symbols = wiki
      ? this.services.driftWorker().then((client) => client.request({ kind: 'symbols', root: wiki.root, path: wiki.relative(document.uri.fsPath), text: document.getText() }))
      : Promise.resolve([]);
    this.cache.set(document.uri.toString(), { version: document.version, symbols });
    return symbols;
  }

  forget(document: vscode.TextDocument): void {
    this.cache.delete(document.uri.toString());
  }
}

/** Pages citing the file, or a symbol of it that overlaps `range` (for "Ask about selection"). */
export async function pagesCiting(citations: CitationIndex, symbols: DocumentSymbols, document: vscode.TextDocument, range: vscode.Range): Promise<CitingPage[]> {
  const cited = await citations.forFile(document.uri);
  if (!cited) return [];
  const names = new Set(['']);
  if (SYMBOL_FILE.test(document.uri.fsPath)) {
    for (const symbol of await symbols.of(document)) {
      if (symbol.startLine <= range.end.line && range.start.line <= symbol.endLine) names.add(symbol.name);
    }
  }
  const pages = new Map<string, CitingPage>();
  for (const name of names) for (const page of cited.get(name) ?? []) pages.set(page.uri.fsPath, page);
  return [...pages.values()];
}

export function registerCitedBy(services: Services): vscode.Disposable {
  const { citations, documentSymbols } = services;
  const symbolsOf = (document: vscode.TextDocument) => documentSymbols.of(document);
  // Every file of a language drift parses, whatever language id an installed extension gives it.
  const selector: vscode.DocumentSelector = { scheme: 'file', pattern: '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,py,go,rs,java,cs,rb,php,c,h,cc,cpp,cxx,hh,hpp,hxx}' };
  const lensesChanged = new vscode.EventEmitter<void>();
  const lensesEnabled = () => vscode.workspace.getConfiguration('repoWiki.drift').get<boolean>('codeLens', true);

  return vscode.Disposable.from(
    lensesChanged,
    services.snapshots.onDidUpdate(() => lensesChanged.fire()),
    vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration('repoWiki.drift.codeLens') && lensesChanged.fire()),
    vscode.commands.registerCommand('repoWiki.showCitingPages', async (pages: CitingPage[]) => {
      const picked = pages.length === 1 ? pages[0] : (await vscode.window.showQuickPick(pages.map((page) => ({ label: page.title, description: vscode.workspace.asRelativePath(page.uri), page })), { title: 'Wiki pages that cite this' }))?.page;
      if (picked) await vscode.window.showTextDocument(picked.uri);
    }),
    vscode.languages.registerCodeLensProvider(selector, {
      onDidChangeCodeLenses: lensesChanged.event,
      async provideCodeLenses(document) {
        if (!lensesEnabled() || !SYMBOL_FILE.test(document.uri.fsPath)) return [];
        const cited = await citations.forFile(document.uri);
        if (!cited) return [];
        const symbols = await symbolsOf(document);
        return symbols.filter((symbol) => cited.has(symbol.name)).map((symbol) => {
          const pages = cited.get(symbol.name)!;
          const range = new vscode.Range(symbol.startLine, 0, symbol.startLine, 0);
          return new vscode.CodeLens(range, { title: `Cited by ${pages.length} wiki page${pages.length === 1 ? '' : 's'}`, command: 'repoWiki.showCitingPages', arguments: [pages] });
        });
      },
    }),
    vscode.languages.registerHoverProvider(selector, {
      async provideHover(document, position) {
        const cited = await citations.forFile(document.uri);
        if (!cited) return undefined;
        const symbols = await symbolsOf(document);
        // The innermost cited symbol around the cursor.
        const symbol = symbols
          .filter((s) => cited.has(s.name) && s.startLine <= position.line && position.line <= s.endLine)
          .sort((a, b) => (a.endLine - a.startLine) - (b.endLine - b.startLine))[0];
        if (!symbol) return undefined;
        const markdown = new vscode.MarkdownString(`**Repo Wiki** — \`${symbol.name}\` is cited by:\n\n`);
        for (const page of cited.get(symbol.name)!) {
          markdown.appendMarkdown('- [');
          markdown.appendText(page.title);
          markdown.appendMarkdown(`](${page.uri.toString()})\n`);
        }
        return new vscode.Hover(markdown);
      },
    }),
  );
}
