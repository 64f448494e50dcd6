import type { Citation, LineRange } from './citations';
import { TextLines } from './lineRanges';
import type { DriftEngine } from './driftEngine';
import { parseAnchor } from './symbols';
import { MAX_COMPARED_BYTES, tooLargeToCompare } from '../text/boundedDiff';

/**
 * A file's text at a commit, or undefined when that commit is not here or had no such file. A
 * reader that learns the size first (`git cat-file -s`) answers `{ tooLarge: bytes }` past
 * MAX_COMPARED_BYTES instead of reading it; a text past it is refused here all the same.
 */
export type FileAtCommit = (commit: string, relPath: string) => Promise<string | undefined | { tooLarge: number }>;

/** The cited code as it was when the page was verified, and as it is now. */
export type WhatChanged =
  | { commit: string; path: string; symbol?: string; before: string; after: string }
  | { unavailable: string };

/**
 * What changed in a cited symbol (or file) since the commit its anchor records: the declaration's
 * lines then and now, found by parsing each version, so an edit elsewhere in the file is left out
(a line range: its lines now, and the lines that held the recorded text then).
 */
export async function whatChanged(engine: DriftEngine, fileAt: FileAtCommit, citation: Pick<Citation, 'path' | 'symbol' | 'text' | 'lines'>, anchor: string | undefined): Promise<WhatChanged> {
  const commit = anchor && parseAnchor(anchor).at;
  if (!commit) {
    return { unavailable: `${citation.text} was stamped without a commit, so there is nothing to compare with. Mark it as reviewed in a git repository to record one.` };
  }
  const declared = citation.symbol ? await engine.locate(citation) : { path: citation.path, symbol: undefined };
  if (!declared) return { unavailable: `${citation.text} is no longer declared, so there is no current code to compare.` };
  const now = await engine.textOf(declared.path);
  const then = await fileAt(commit, declared.path);
  if (now === undefined) return { unavailable: `${declared.path} cannot be read now.` };
  if (then === undefined) return { unavailable: `Commit ${commit} is not in this clone, or had no ${declared.path}. Fetch it, or review the code and mark the citation as reviewed.` };
  if (typeof then !== 'string' || tooLargeToCompare(then)) return { unavailable: tooLarge(declared.path, commit) };
  if (tooLargeToCompare(now)) return { unavailable: `${declared.path} is larger than ${MAX_COMPARED_BYTES / 1024 / 1024} MB now, so it is not compared.` };
  // A line range compares its lines now with the lines of the recorded text then (they may have moved since); a key of a data file, the whole file.
  const range = citation.lines;
  const thenRange = range && (new TextLines(then).find(parseAnchor(anchor).body ?? '', range.end - range.start + 1, range.start) ?? range);
  const before = await engine.excerpt(declared.path, thenRange ? linesOf(then, thenRange) : then, declared.symbol);
  const after = await engine.excerpt(declared.path, range ? linesOf(now, range) : now, declared.symbol);
  if (before === undefined || after === undefined) return { unavailable: `${citation.text} was not declared at ${commit}.` };
  return { commit, path: declared.path, ...(declared.symbol ? { symbol: declared.symbol } : {}), before, after };
}

function linesOf(text: string, range: LineRange): string {
  return text.split('\n').slice(range.start - 1, range.end).join('\n');
}

function tooLarge(relPath: string, commit: string): string {
  return `The version of ${relPath} at ${commit} is larger than ${MAX_COMPARED_BYTES / 1024 / 1024} MB, so it is not compared. Review the code and mark the citation as reviewed.`;
}
