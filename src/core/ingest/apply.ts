import { WikiError } from '../errors';
import type { LogEntry } from '../model';
import type { Wiki, WikiWrites } from '../wiki/wiki';
import type { PageChange } from './changes';

export interface AppliedChanges {
  created: string[];
  updated: string[];
  corroborated: string[];
  linked: string[];
}

/**
 * Writes the accepted changes (each page atomically), regenerates the index from the pages on disk
 * and appends one log entry, all under the wiki's write lock. Inside the lock the plan is checked
 * again: a page created, edited or deleted since the preview (by another window, a terminal, a
 * teammate's pull) makes it refuse before writing anything.
 */
export function applyChanges(wiki: Wiki, changes: readonly PageChange[], log: Omit<LogEntry, 'ts' | 'pages'>): Promise<AppliedChanges> {
  return wiki.exclusive((writes) => applyChangesLocked(wiki, writes, changes, log));
}

/** applyChanges for work that already holds the wiki's write lock (inside Wiki.exclusive): the same checks and writes. */
export async function applyChangesLocked(wiki: Wiki, writes: WikiWrites, changes: readonly PageChange[], log: Omit<LogEntry, 'ts' | 'pages'>): Promise<AppliedChanges> {
  const applied = await writeChangesLocked(wiki, writes, changes);
  await wiki.appendLog({ ...log, pages: changes.map((change) => change.slug), ...applied });
  return applied;
}

/**
 * The checks and writes of applyChangesLocked without its log entry, for work that logs once for
 * many of them (a generate run writes page after page, and logs one line at the end).
 */
export async function writeChangesLocked(wiki: Wiki, writes: WikiWrites, changes: readonly PageChange[]): Promise<AppliedChanges> {
  for (const change of changes) {
    const now = await wiki.readPageText(change.slug);
    if (now !== change.before) {
      const what = change.before === undefined ? 'was created' : now === undefined ? 'was deleted' : 'was edited';
      throw new WikiError('page-changed', `${wiki.relative(wiki.pagePath(change.slug))} ${what} after the preview was made, so nothing was written.`, 'Run the ingest again to plan against the current pages.');
    }
  }
  const applied: AppliedChanges = { created: [], updated: [], corroborated: [], linked: [] };
  await Promise.all(changes.map((change) => writes.writePage(change.slug, change.frontmatter, change.body, change.extraFields)));
  for (const change of changes) {
    const bucket = change.kind === 'create' ? applied.created : change.kind === 'update' ? applied.updated : change.kind === 'corroborate' ? applied.corroborated : applied.linked;
    bucket.push(change.slug);
  }
  if (changes.length) await writes.rebuildIndex();
  return applied;
}
