import { maskCode } from '../pages/markdown';
import type { Range, WikiPage } from '../model';
import { LineMap } from '../text/text';
import { parseCitationText, type CitationSyntax } from '../../shared/citationSyntax';

/** A code citation found in a page body: `path`, `path:Symbol`, `path:Outer.inner`, `path#L10-L20`, `folder/` or `data.json:key.path`. */
export interface Citation extends CitationSyntax {
  /** Range of the citation text (inside the backticks) in the page file. */
  range: Range;
}

export { KEYED_FILE, lineRangeProblem, lineRangeText, parseCitationText, splitLineRange, SYMBOL_FILE, TS_LIKE, type LineRange } from '../../shared/citationSyntax';

const INLINE_CODE = /(`+)([^`\n]+?)\1(?!`)/g;

/** Citations in a page body, outside fenced code blocks, with ranges in file coordinates. */
export function findCitations(page: Pick<WikiPage, 'body' | 'bodyStartLine'>): Citation[] {
  const masked = maskCode(page.body, { inlineCode: false });
  const lineMap = new LineMap(page.body, page.bodyStartLine);
  const citations: Citation[] = [];
  for (const match of masked.matchAll(INLINE_CODE)) {
    const parsed = parseCitationText(match[2]);
    if (!parsed) continue;
    const start = (match.index ?? 0) + match[1].length + (match[2].length - match[2].trimStart().length);
    const range = lineMap.range(start, start + match[2].trim().length);
    // Literals, not a spread: V8 gives each spread copy a hidden class of its own, and a wiki has tens of thousands of citations.
    const { text, path, symbol, outside, lines, folder } = parsed;
    if (symbol) citations.push({ text, path, symbol, outside, range });
    else if (lines) citations.push({ text, path, outside, lines, range });
    else if (folder) citations.push({ text, path, outside, folder, range });
    else citations.push({ text, path, outside, range });
  }
  return citations;
}

// Pages are immutable values (`Wiki.loadPages` reuses an unchanged page's object): their citations are parsed once.
const citationCache = new WeakMap<WikiPage, { citations: Citation[]; paths: ReadonlySet<string> }>();

function cached(page: WikiPage) {
  let entry = citationCache.get(page);
  if (!entry) {
    const citations = findCitations(page);
    entry = { citations, paths: new Set(citations.map((citation) => citation.path)) };
    citationCache.set(page, entry);
  }
  return entry;
}

/** A page's citations, parsed once per version of the page. */
export function citationsOf(page: WikiPage): Citation[] {
  return cached(page).citations;
}

/** The readable pages with a citation into one of `paths`, in the order given. A list is indexed when first seen: a changed wiki is a new list. */
export function pagesCiting(pages: readonly WikiPage[], paths: ReadonlySet<string>): WikiPage[] {
  const index = citingIndex(pages);
  if (paths.size === 1) return [...(index.get(paths.values().next().value!) ?? [])];
  const hits = new Set<WikiPage>();
  for (const file of paths) for (const page of index.get(file) ?? []) hits.add(page);
  return pages.filter((page) => hits.has(page));
}

// A wiki snapshot's page list answers every save until the wiki changes: file -> citing pages, built once per list.
const citingIndexes = new WeakMap<readonly WikiPage[], Map<string, WikiPage[]>>();

function citingIndex(pages: readonly WikiPage[]): Map<string, WikiPage[]> {
  let index = citingIndexes.get(pages);
  if (!index) {
    index = new Map();
    for (const page of pages) {
      if (!page.readable) continue;
      for (const file of cached(page).paths) {
        const citing = index.get(file);
        if (citing) citing.push(page);
        else index.set(file, [page]);
      }
    }
    citingIndexes.set(pages, index);
  }
  return index;
}
