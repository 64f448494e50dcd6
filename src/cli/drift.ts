import type { WorkspaceCore } from '../adapters/workspaceCore';
import type { DriftReport } from '../core/drift/driftEngine';
import { stampPage } from '../core/drift/stamp';
import { WikiError } from '../core/errors';

/**
 * One drift pass over the whole wiki; with `stamp`, citations without an anchor are stamped first.
 * A refused stamp (a log that is a link, the wiki busy) is returned, and the check still runs.
 */
export async function checkDrift({ wiki, drift: engine }: WorkspaceCore, options: { stamp: boolean }): Promise<{ report: DriftReport; stamped: number; stampError?: WikiError }> {
  let pages = await wiki.loadPages();
  let stamped = 0;
  let stampError: WikiError | undefined;
  if (options.stamp) {
    try {
      for (const page of pages.filter((p) => p.valid)) stamped += (await stampPage(wiki, engine, page, { onlyMissing: true })).stamped.length;
      if (stamped) await wiki.rebuildIndex();
    } catch (error) {
      if (!(error instanceof WikiError)) throw error;
      stampError = error;
    }
    if (stamped) pages = await wiki.loadPages();
  }
  return { report: await engine.check(pages), stamped, ...(stampError ? { stampError } : {}) };
}
