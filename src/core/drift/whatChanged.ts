import type { Citation } from './citations';
import type { DriftEngine } from './driftEngine';
import { parseAnchor } from './symbols';

/** A file's text at a commit, or undefined when that commit is not here or had no such file. */
export type FileAtCommit = (commit: string, relPath: string) => Promise<string | undefined>;

/** The cited code as it was when the page was verified, and as it is now. */
export type WhatChanged =
  | { commit: string; path: string; symbol?: string; before: string; after: string }
  | { unavailable: string };

/**
 * What changed in a cited symbol (or file) since the commit its anchor records: the declaration's
 * lines then and now, found by parsing each version, so an edit elsewhere in the file is left out.
 */
export async function whatChanged(engine: DriftEngine, fileAt: FileAtCommit, citation: Pick<Citation, 'path' | 'symbol' | 'text'>, anchor: string | undefined): Promise<WhatChanged> {
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
  const before = await engine.excerpt(declared.path, then, declared.symbol);
  const after = await engine.excerpt(declared.path, now, declared.symbol);
  if (before === undefined || after === undefined) return { unavailable: `${citation.text} was not declared at ${commit}.` };
  return { commit, path: declared.path, ...(declared.symbol ? { symbol: declared.symbol } : {}), before, after };
}
