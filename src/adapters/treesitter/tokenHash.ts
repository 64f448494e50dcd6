// A declaration's fingerprint is FNV-1a over its text as tokens: comments, whitespace, a comma
// before a closing bracket, a backslash ending a line and redundant parentheses left out (see TokenText).
import type { Node, QueryCapture } from '@vscode/tree-sitter-wasm';
import type { LanguageRules } from './languages';

export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const EQUALS = 61;
const COMMA = 44;
const BACKSLASH = 92;
const SINGLE_QUOTE = 39;
const DOUBLE_QUOTE = 34;
/** `)`, `]` and `}`: a comma before one of them is a formatter's. */
const CLOSERS: ReadonlySet<number> = new Set([41, 93, 125]);
const NEWLINE = 10;
const OPEN_PAREN = 40;
const CLOSE_PAREN = 41;

/** What hashing a language's text needs to know: the characters a comment can start with (a range without them has no comment), and whether its quotes are alike. */
interface TokenSyntax {
  commentStarts: readonly number[];
  sameQuotes: boolean;
  parens?: LanguageRules['redundantParens'];
}

export function tokenSyntax(rules: LanguageRules): TokenSyntax {
  return { commentStarts: [...(rules.commentStarts ?? '/')].map((char) => char.charCodeAt(0)), sameQuotes: rules.sameQuotes === true, parens: rules.redundantParens };
}

/** The redundant parentheses among parenthesized nodes, as [start, end) pairs of one character each, skipped like comments. */
export function redundantParenPairs(captures: readonly QueryCapture[], parens: NonNullable<LanguageRules['redundantParens']>): number[] {
  const pairs: number[] = [];
  for (const { node } of captures) if (parens.redundant(node)) pairs.push(node.startIndex, node.startIndex + 1, node.endIndex - 1, node.endIndex);
  return pairs;
}

/**
 * A file's text, hashed as tokens: comments, whitespace, a comma before a closing bracket, a
 * backslash ending a line and redundant parentheses (Python's `return (x)`) skipped (in Python,
 * `'` hashed as `"`). Comments and redundant parentheses ("skips") are known only in the ranges
 * `cover` looked into while the tree was alive; a hash elsewhere that may hold one (its first
 * character is in it) gets every skip of the file, from a second parse.
 */
export class TokenText {
  /** The comments and redundant parentheses known, as [start, end) pairs in one flat list; sorted when `sorted`. */
  private comments: number[] = [];
  private sorted = true;
  /** Where comments were looked for, as [start, end) pairs. */
  private readonly covered: number[] = [];
  private all = false;
  private readonly first: number;
  private readonly second: number;
  private readonly sameQuotes: boolean;
  private readonly parens: TokenSyntax['parens'];

  constructor(
    private readonly text: string,
    syntax: TokenSyntax,
    private readonly commentTypes: ReadonlySet<string>,
    private readonly loadAll: () => number[],
  ) {
    this.first = syntax.commentStarts[0];
    this.second = syntax.commentStarts[1] ?? syntax.commentStarts[0];
    this.sameQuotes = syntax.sameQuotes;
    this.parens = syntax.parens;
  }

  /** How many lines end in [start, end). */
  newlines(start: number, end: number): number {
    let count = 0;
    for (let at = this.text.indexOf('\n', start); at >= 0 && at < end; at = this.text.indexOf('\n', at + 1)) count++;
    return count;
  }

  /** Whether a comment may start at `i`: a character comments start with (Ruby's `=begin` only at the start of a line). */
  private mayStartComment(i: number): boolean {
    const code = this.text.charCodeAt(i);
    if (code !== this.first && code !== this.second) return false;
    return code !== EQUALS || i === 0 || this.text.charCodeAt(i - 1) === NEWLINE;
  }

  /** Whether [start, end) may hold a comment: a comment may start in it. */
  private mayHaveComment(start: number, end: number): boolean {
    const stop = Math.min(end, this.text.length);
    for (let i = start; i < stop; i++) if (this.mayStartComment(i) || (this.parens && this.text.charCodeAt(i) === OPEN_PAREN)) return true;
    return false;
  }

  /**
   * Finds the comments in [start, end) under `root`: where a comment may start, the syntax node
   * there says whether one does (far fewer calls than a query over every node of a body).
   */
  cover(start: number, end: number, root: Node): void {
    if (start >= end || this.all || this.isCovered(start, end)) return;
    const comments = this.comments;
    const stop = Math.min(end, this.text.length);
    for (let i = start; i < stop; i++) {
      if (this.parens && this.text.charCodeAt(i) === OPEN_PAREN) {
        this.coverParen(i, root);
        continue;
      }
      if (!this.mayStartComment(i)) continue;
      for (let node: Node | null = root.descendantForIndex(i); node && node.startIndex === i; node = node.parent) {
        if (this.commentTypes.has(node.type)) {
          const commentEnd = node.endIndex;
          comments.push(i, commentEnd);
          this.sorted = false;
          i = commentEnd - 1;
          break;
        }
        if (node.id === root.id) break;
      }
    }
    this.covered.push(start, end);
  }

  /** Redundant parentheses opened at `at` (the node there, or one that starts there too): both skipped. */
  private coverParen(at: number, root: Node): void {
    for (let node: Node | null = root.descendantForIndex(at); node && node.startIndex === at; node = node.parent) {
      if (node.type === this.parens!.type) {
        if (this.parens!.redundant(node) && this.text.charCodeAt(node.endIndex - 1) === CLOSE_PAREN) {
          this.comments.push(at, at + 1, node.endIndex - 1, node.endIndex);
          this.sorted = false;
        }
        return;
      }
      if (node.id === root.id) return;
    }
  }

  /** Skips ([start, end) pairs) found by queries over [start, end). */
  addSkips(pairs: readonly number[], start: number, end: number): void {
    const comments = this.comments;
    for (const at of pairs) comments.push(at);
    this.sorted = false;
    if (start === 0 && end >= this.text.length) this.all = true;
    else this.covered.push(start, end);
  }

  private isCovered(start: number, end: number): boolean {
    const covered = this.covered;
    for (let i = 0; i < covered.length; i += 2) if (covered[i] <= start && end <= covered[i + 1]) return true;
    return false;
  }

  private sort(): void {
    if (this.sorted) return;
    const flat = this.comments;
    const order = Array.from({ length: flat.length / 2 }, (_, pair) => 2 * pair).sort((a, b) => flat[a] - flat[b] || flat[a + 1] - flat[b + 1]);
    this.comments = order.flatMap((at) => [flat[at], flat[at + 1]]);
    this.sorted = true;
  }

  /** FNV-1a over [start, end), comments and whitespace skipped; also how many characters were hashed. */
  hash(start: number, end: number, seed = FNV_OFFSET): { hash: number; chars: number } {
    const text = this.text;
    const stop = Math.min(end, text.length);
    if (!this.all && start < stop && !this.isCovered(start, stop) && this.mayHaveComment(start, stop)) {
      this.comments = this.loadAll();
      this.sorted = false;
      this.all = true;
    }
    this.sort();
    const comments = this.comments;
    let hash = seed;
    let chars = 0;
    // `comment`: the flat index of the first comment that may cover or follow i.
    let comment = firstEndingAfter(comments, start);
    for (let i = start; i < stop; i++) {
      while (comment < comments.length && comments[comment + 1] <= i) comment += 2;
      if (comment < comments.length && comments[comment] <= i) {
        i = comments[comment + 1] - 1;
        continue;
      }
      let code = text.charCodeAt(i);
      if (isSpace(code)) continue;
      if (code === COMMA && this.closerFollows(i + 1, stop, comment)) continue;
      if (code === BACKSLASH && (text.charCodeAt(i + 1) === NEWLINE || (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === NEWLINE))) continue;
      if (code === SINGLE_QUOTE && this.sameQuotes) code = DOUBLE_QUOTE;
      hash = Math.imul(hash ^ code, FNV_PRIME);
      chars++;
    }
    return { hash: hash >>> 0, chars };
  }

  /** Whether the next token after `from` (before `stop`, past whitespace and comments) closes a bracket. */
  private closerFollows(from: number, stop: number, comment: number): boolean {
    const comments = this.comments;
    for (let i = from; i < stop; i++) {
      while (comment < comments.length && comments[comment + 1] <= i) comment += 2;
      if (comment < comments.length && comments[comment] <= i) {
        i = comments[comment + 1] - 1;
        continue;
      }
      const code = this.text.charCodeAt(i);
      if (!isSpace(code)) return CLOSERS.has(code);
    }
    return false;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

/** The flat index of the first [start, end) pair that may cover `index` or come after it (pairs sorted by start). */
function firstEndingAfter(pairs: ArrayLike<number>, index: number): number {
  let low = 0;
  let high = pairs.length / 2;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (pairs[2 * mid] < index) low = mid + 1;
    else high = mid;
  }
  // A pair starting before `index` may still cover it.
  while (low > 0 && pairs[2 * low - 1] > index) low--;
  return 2 * low;
}

/** FNV-1a over a list of 32-bit hashes, a byte at a time. */
export function combined(hashes: readonly number[]): number {
  let hash = FNV_OFFSET;
  for (const value of hashes) for (let shift = 0; shift < 32; shift += 8) hash = Math.imul(hash ^ ((value >>> shift) & 0xff), FNV_PRIME);
  return hash >>> 0;
}
