import * as vscode from 'vscode';
import type { SelectionContext } from '../../core/chat/conversation';
import { pagesCiting } from '../drift/citedBy';
import type { CitationIndex } from '../services/citationIndex';
import type { DocumentSymbols } from '../services/documentSymbols';
import type { Services } from '../services/services';

/** Selections beyond this are cut; the chip says so. */
export const MAX_SELECTION_CHARS = 12_000;
export const DEFAULT_SELECTION_QUESTION = 'Explain this in the context of the wiki';

/** The editor's selection as chat context, with the wiki pages citing the code it overlaps. */
export async function selectionContext(services: Services, citations: CitationIndex, symbols: DocumentSymbols, editor: vscode.TextEditor) {
  const { document, selection } = editor;
  const range = selection.isEmpty ? document.lineAt(selection.active.line).range : selection;
  const text = document.getText(range);
  const truncated = text.length > MAX_SELECTION_CHARS;
  const context: SelectionContext = {
    path: vscode.workspace.asRelativePath(document.uri, false),
    startLine: range.start.line + 1,
    endLine: range.end.line + 1,
    language: document.languageId,
    text: truncated ? text.slice(0, MAX_SELECTION_CHARS) : text,
    truncated,
  };
  const pages = await pagesCiting(citations, symbols, document, range).catch((error: Error) => {
    services.output.warn(`Finding pages that cite the selection: ${error.message}`);
    return [];
  });
  return { context, pages: pages.map(({ slug, title, stale }) => ({ slug, title, stale })) };
}
