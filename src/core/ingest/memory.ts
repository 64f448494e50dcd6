import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import type { LogEntry } from '../model';

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

/** What changed in a source since the version last ingested, as a unified diff (capped), for the librarian. */
export function sourceDiff(path: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, 'last ingested', 'now', { context: 2 });
  const body = patch.split('\n').slice(2).join('\n'); // the ==== and file header lines say nothing here
  return body.length > MAX_DIFF_CHARS ? `${body.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS / 1000}k characters)` : body;
}
