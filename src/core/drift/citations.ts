import { maskCode } from '../markdown';
import type { Range, WikiPage } from '../model';
import { LineMap } from '../text';
import { parseCitationText, type CitationSyntax } from '../../shared/citationSyntax';

/** A code citation found in a page body: `path`, `path:Symbol` or `path:Outer.inner`. */
export interface Citation extends CitationSyntax {
  /** Range of the citation text (inside the backticks) in the page file. */
  range: Range;
}

export { parseCitationText, SYMBOL_FILE, TS_LIKE } from '../../shared/citationSyntax';

const INLINE_CODE = /(`+)([^`\n]+?)\1(?!`)/g;

/** Citations in a page body, outside fenced code blocks, with ranges in file coordinates. */
export function findCitations(page: Pick<WikiPage, 'body' | 'bodyStartLine'>): Citation[] {
  const masked = maskCode(page.body, { inlineCode: false });
  const lines = new LineMap(page.body, page.bodyStartLine);
  const citations: Citation[] = [];
  for (const match of masked.matchAll(INLINE_CODE)) {
    const parsed = parseCitationText(match[2]);
    if (!parsed) continue;
    const start = (match.index ?? 0) + match[1].length + (match[2].length - match[2].trimStart().length);
    citations.push({ ...parsed, range: lines.range(start, start + match[2].trim().length) });
  }
  return citations;
}
