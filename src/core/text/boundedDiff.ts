import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';

/**
 * Unified diffs with a ceiling on their cost. A line diff (Myers, as the `diff` package does it)
 * costs about (lines before + lines now) × lines changed: a 20,000-line rewrite took over a minute
 * and a 40,000-line one never finished. The diff gives up at `timeoutMs` (the package's `timeout`
 * option, checked as the edit distance grows, after which it returns undefined); past it the
 * change is told as "changed throughout" and the patch replaces every old line with every new one,
 * so the whole old text is still there for whoever needs it.
 */

/**
 * An earlier version larger than this (git can hand back anything a clone holds) is not compared:
 * the current file is capped at as much (DEFAULT_MAX_READ_BYTES of the file access), and a
 * larger text only costs memory. Measured in UTF-16 units, each at least one byte of UTF-8.
 */
export const MAX_COMPARED_BYTES = 16 * 1024 * 1024;

/** Whether `text` is past MAX_COMPARED_BYTES (without encoding it: its length is a lower bound of its size). */
export function tooLargeToCompare(text: string): boolean {
  return text.length > MAX_COMPARED_BYTES;
}

/** How long a diff may search before it gives up (one diff; a caller diffing many adds them up). */
export const DIFF_TIMEOUT_MS = 1000;

export interface BoundedDiffOptions {
  /** Unchanged lines shown around each change (default 4, as `diff` does). */
  context?: number;
  /** Give up after this many milliseconds (default DIFF_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Give up past this many inserted plus removed lines (default: no limit but the time). */
  maxEditLength?: number;
}

export interface BoundedPatch {
  /**
   * The unified diff, with `---`/`+++` headers as `createTwoFilesPatch` writes them. When the diff
   * gave up, one hunk that removes every old line and adds every new one (still a valid patch).
   */
  patch: string;
  /** Set when the diff gave up: how many lines there were before and are now. */
  throughout?: { before: number; after: number };
}

/** `changed throughout; 20000 lines before, 19950 now`: what a diff that gave up says instead. */
export function throughoutNote(before: number, after: number): string {
  return `changed throughout; ${before} ${before === 1 ? 'line' : 'lines'} before, ${after} now`;
}

/** The number of lines of `text` as a line diff counts them (a last line without its newline counts; "" has none). */
export function lineCount(text: string): number {
  if (!text) return 0;
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}

/**
 * `createTwoFilesPatch` of the `diff` package, bounded: the same arguments and the same text while
 * the diff finishes in time; past the bound, the whole-file replacement and `throughout`.
 */
export function boundedPatch(oldName: string, newName: string, before: string, after: string, oldHeader?: string, newHeader?: string, options: BoundedDiffOptions = {}): BoundedPatch {
  const found = structuredPatch(oldName, newName, before, after, oldHeader, newHeader, {
    context: options.context ?? 4,
    timeout: options.timeoutMs ?? DIFF_TIMEOUT_MS,
    ...(options.maxEditLength !== undefined ? { maxEditLength: options.maxEditLength } : {}),
  });
  if (found) return { patch: formatPatch(found) };
  const throughout = { before: lineCount(before), after: lineCount(after) };
  return { patch: formatPatch(replacement(oldName, newName, before, after, oldHeader, newHeader, throughout)), throughout };
}

/**
 * The bounded patch as text to show a person: the patch itself, preceded by the
 * "changed throughout; N lines before, M now" line when the diff gave up. A drop-in for
 * `createTwoFilesPatch(oldName, newName, before, after, oldHeader, newHeader)`; patch tools skip
 * the line before the `---` header.
 */
export function boundedPatchText(oldName: string, newName: string, before: string, after: string, oldHeader?: string, newHeader?: string, options: BoundedDiffOptions = {}): string {
  const { patch, throughout } = boundedPatch(oldName, newName, before, after, oldHeader, newHeader, options);
  return throughout ? `${throughoutNote(throughout.before, throughout.after)} (too different to diff line by line in time)\n${patch}` : patch;
}

/** One hunk that removes every line of `before` and adds every line of `after`. */
function replacement(oldFileName: string, newFileName: string, before: string, after: string, oldHeader: string | undefined, newHeader: string | undefined, counts: { before: number; after: number }): StructuredPatch {
  const lines = [...marked('-', before), ...marked('+', after)];
  return { oldFileName, newFileName, oldHeader, newHeader, hunks: [{ oldStart: 1, oldLines: counts.before, newStart: 1, newLines: counts.after, lines }] };
}

function marked(sign: '-' | '+', text: string): string[] {
  if (!text) return [];
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map((line) => sign + line);
  if (!text.endsWith('\n')) lines.push('\\ No newline at end of file');
  return lines;
}
