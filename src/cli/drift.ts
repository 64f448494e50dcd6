import type { WorkspaceCore } from '../adapters/workspaceCore';
import type { DriftReport } from '../core/drift/driftEngine';
import { stampPage } from '../core/drift/stamp';
import { WikiError } from '../core/errors';

/**
 * One drift pass over the whole wiki. With `stamp`, citations without an anchor are stamped first;
 * `review` names pages a person has checked against the code: every citation on them that
 * resolves is stamped again, so drift they have seen stops being reported. A refused stamp (a
 * log that is a link, the wiki busy, a page that does not exist) is returned, and the check still runs.
 */
export async function checkDrift({ wiki, drift: engine }: WorkspaceCore, options: { stamp: boolean; review?: readonly string[] }): Promise<{ report: DriftReport; stamped: number; stampError?: WikiError }> {
  let pages = await wiki.loadPages();
  let stamped = 0;
  let stampError: WikiError | undefined;
  const review = options.review ?? [];
  if (options.stamp || review.length) {
    try {
      for (const slug of review) {
        const page = pages.find((p) => p.slug === slug);
        if (!page) throw new WikiError('invalid-page', `There is no page "${slug}" to review.`, 'Name a page by its slug, as in .wiki/pages/<slug>.md.');
        stamped += (await stampPage(wiki, engine, page)).stamped.length;
      }
      if (options.stamp) for (const page of pages.filter((p) => p.valid && !review.includes(p.slug))) stamped += (await stampPage(wiki, engine, page, { onlyMissing: true })).stamped.length;
      if (stamped) await wiki.rebuildIndex();
    } catch (error) {
      if (!(error instanceof WikiError)) throw error;
      stampError = error;
    }
    if (stamped) pages = await wiki.loadPages();
  }
  return { report: await engine.check(pages), stamped, ...(stampError ? { stampError } : {}) };
}
