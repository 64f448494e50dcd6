import * as vscode from 'vscode';
import { SYMBOL_FILE } from '../../core/drift/citations';
import type { CitationIndex, CitingPage } from '../services/citationIndex';
import type { DocumentSymbols } from '../services/documentSymbols';
import type { Services } from '../services/services';

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
