/** Query handling shared by the full-text (FTS4) and the LIKE search: terms, relevance, snippets. */

const MAX_TERMS = 16;
export const SNIPPET_CHARS = 120;
/** A hit in the question says more about the turn than one in the answer. */
export const QUESTION_WEIGHT = 2;

/** The user's words, lowercase, without quotes or stars; words with no letter or digit would match nothing and are dropped. */
export function searchTerms(query: string): string[] {
  const words = query.replace(/["*]/g, ' ').split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
  return [...new Set(words.map((word) => word.toLowerCase()))].slice(0, MAX_TERMS);
}

/**
 * An FTS4 MATCH expression that can't be read as query syntax: each term is a quoted phrase (so
 * AND, OR, NOT, NEAR, "-" and parentheses are plain words), as a prefix ("auth" finds "authentication").
 */
export const ftsMatch = (terms: readonly string[]): string => terms.map((term) => `"${term}*"`).join(' ');

/** A LIKE pattern matching `term` anywhere, with LIKE's wildcards escaped (use ESCAPE '\'). */
export const likePattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Relevance from FTS4 matchinfo(..., 'x') over the columns (question, answer): three 32-bit counts
 * (native order: little-endian in WebAssembly) per phrase and column, the first being this row's hits.
 */
export function ftsScore(matchinfo: Uint8Array): number {
  const view = new DataView(matchinfo.buffer, matchinfo.byteOffset, matchinfo.byteLength);
  let score = 0;
  for (let at = 0; at + 24 <= view.byteLength; at += 24) score += QUESTION_WEIGHT * view.getUint32(at, true) + view.getUint32(at + 12, true);
  return score;
}

/** About SNIPPET_CHARS of plain text around the first match, from the question if it matches, else the answer. */
export function snippet(question: string, answer: string, terms: readonly string[]): string {
  for (const text of [question, answer]) {
    const flat = text.replace(/\s+/g, ' ').trim();
    const lower = flat.toLowerCase();
    const at = Math.min(...terms.map((term) => lower.indexOf(term)).filter((index) => index >= 0));
    if (Number.isFinite(at)) return excerpt(flat, at);
  }
  // FTS also matches across accents, which indexOf can't find: show the question's start.
  return excerpt(question.replace(/\s+/g, ' ').trim(), 0);
}

function excerpt(text: string, at: number): string {
  if (text.length <= SNIPPET_CHARS) return text;
  let start = Math.max(0, Math.min(at - Math.floor(SNIPPET_CHARS / 3), text.length - SNIPPET_CHARS));
  let end = start + SNIPPET_CHARS;
  // Whole words at both ends, when a space is near.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space < at) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + SNIPPET_CHARS / 2) end = space;
  }
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
