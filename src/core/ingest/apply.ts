import { WikiError } from '../errors';
import type { LogEntry, WikiPage } from '../model';
import { parsePage } from '../page';
import type { Wiki } from '../wiki';
import type { PageChange } from './changes';

export interface AppliedChanges {
  created: string[];
  updated: string[];
  corroborated: string[];
  linked: string[];
}

/**
 * Writes the accepted changes (each page atomically), regenerates the index and appends one log
 * entry. Refuses before writing anything when a page changed on disk since the preview. With
 * `base`, the pages the plan was prepared against, the index is rebuilt without re-reading them.
 */
export async function applyChanges(
  wiki: Wiki,
  changes: readonly PageChange[],
  log: Omit<LogEntry, 'ts' | 'pages'>,
  base?: readonly WikiPage[],
): Promise<AppliedChanges> {
  for (const change of changes) {
    const now = await wiki.readPageText(change.slug);
    if (now !== change.before) {
      const what = change.before === undefined ? 'was created' : now === undefined ? 'was deleted' : 'was edited';
      throw new WikiError('page-changed', `${wiki.relative(wiki.pagePath(change.slug))} ${what} after the preview was made, so nothing was written.`, 'Run the ingest again to plan against the current pages.');
    }
  }
  const applied: AppliedChanges = { created: [], updated: [], corroborated: [], linked: [] };
  await Promise.all(changes.map((change) => wiki.writePage(change.slug, change.frontmatter, change.body, change.extraFields)));
  for (const change of changes) {
    const bucket = change.kind === 'create' ? applied.created : change.kind === 'update' ? applied.updated : change.kind === 'corroborate' ? applied.corroborated : applied.linked;
    bucket.push(change.slug);
  }
  if (changes.length) await wiki.rebuildIndex(base && withChanges(wiki, base, changes));
  await wiki.appendLog({ ...log, pages: changes.map((change) => change.slug), ...applied });
  return applied;
}

/** `base` with each changed page replaced by (or added as) its new text. */
function withChanges(wiki: Wiki, base: readonly WikiPage[], changes: readonly PageChange[]): WikiPage[] {
  const pages = new Map(base.map((page) => [page.slug, page]));
  for (const change of changes) {
    pages.set(change.slug, parsePage(wiki.relative(wiki.pagePath(change.slug)), change.slug, new TextEncoder().encode(change.after)));
  }
  return [...pages.values()];
}
