import type * as vscode from 'vscode';
import type { SourceSymbol } from '../../core/drift/symbols';
import type { WorkspaceCores } from './workspaceCores';
import type { WorkspaceWikis } from './workspaceWikis';

/** The symbols of an open source document, parsed by its folder's drift backend (the drift worker) and cached per version. */
export class DocumentSymbols {
  private readonly cache = new Map<string, { version: number; symbols: Promise<readonly SourceSymbol[]> }>();

  constructor(private readonly services: { wikis: WorkspaceWikis; cores: WorkspaceCores }) {}

  of(document: vscode.TextDocument): Promise<readonly SourceSymbol[]> {
    const cached = this.cache.get(document.uri.toString());
    if (cached?.version === document.version) return cached.symbols;
    const wiki = this.services.wikis.forUri(document.uri);
    const symbols = wiki
      ? this.services.cores.of(wiki).drift.symbolsOf(wiki.relative(document.uri.fsPath), document.getText())
      : Promise.resolve([]);
    this.cache.set(document.uri.toString(), { version: document.version, symbols });
    return symbols;
  }

  forget(document: vscode.TextDocument): void {
    this.cache.delete(document.uri.toString());
  }
}
