import { createHash } from 'node:crypto';
import type { LogEntry } from '../model';
import { boundedPatch, MAX_COMPARED_BYTES, throughoutNote, tooLargeToCompare } from '../text/boundedDiff';

/**
 * What the wiki remembers of past ingests. A source's content is identified by git's blob id of
 * its text, so when an earlier version was committed, git can give it back for a diff.
 * Pages record it in `sources` as `file:docs/a.md @<blob id>`; log lines in `hashes`.
 */

/** git's blob id (`git hash-object`) of the text as UTF-8. */
export function contentHash(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

const HASH_SUFFIX = / @([0-9a-f]{40})$/;

/** A page's `sources` entry for a source at a version. */
export function sourceEntry(ref: string, hash: string): string {
  return `${ref} @${hash}`;
}

/** The source a `sources` entry names, without its version. */
export function sourceRef(entry: string): string {
  return entry.replace(HASH_SUFFIX, '');
}

/** The last successful ingest of a source: when, and the version of its content. */
export interface PastIngest {
  ts: string;
  hash: string;
}

/**
 * The last successful ingest of each source, from the log. Only applied ingests are logged, so a
 * failed, rejected or cancelled one never stops a retry.
 */
export function pastIngests(entries: readonly LogEntry[]): Map<string, PastIngest> {
  const past = new Map<string, PastIngest>();
  for (const entry of entries) {
    if (entry.op !== 'ingest' || !isHashMap(entry.hashes)) continue;
    for (const [ref, hash] of Object.entries(entry.hashes)) {
      const known = past.get(ref);
      if (!known || known.ts <= entry.ts) past.set(ref, { ts: entry.ts, hash });
    }
  }
  return past;
}

function isHashMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((hash) => typeof hash === 'string' && /^[0-9a-f]{40}$/.test(hash));
}

const MAX_DIFF_CHARS = 16_000;

/**
 * What changed in a source since the version last ingested, for the librarian (capped): a unified
 * diff; or, when the two versions are too different to diff in time (a rewrite), the whole version
 * last ingested, said to be so. The source as it is now is in the prompt already.
 */
export function sourceDiff(path: string, before: string, after: string): string {
  if (tooLargeToCompare(before)) return notCompared();
  const diff = boundedPatch(`a/${path}`, `b/${path}`, before, after, 'last ingested', 'now', { context: 2 });
  const body = diff.throughout
    ? `(The source ${throughoutNote(diff.throughout.before, diff.throughout.after)}: too different for a line-by-line diff. The whole version last ingested follows; the source as it is now is below.)\n${before}`
    : diff.patch.split('\n').slice(2).join('\n'); // the ==== and file header lines say nothing here
  return body.length > MAX_DIFF_CHARS ? `${body.slice(0, MAX_DIFF_CHARS)}\n… (${diff.throughout ? 'earlier version' : 'diff'} cut at ${MAX_DIFF_CHARS / 1000}k characters)` : body;
}

/** What the librarian is told when the version last ingested is too large to compare. */
export function notCompared(): string {
  return `(The version last ingested is larger than ${MAX_COMPARED_BYTES / 1024 / 1024} MB, so it is not compared.)`;
}
