import { WorkerFileSystem } from '../adapters/drift/workerFileSystem';
import { CachingSymbolParser, TsSymbolParser } from '../adapters/typescript/tsSymbolParser';
import { WorkspaceSearch } from '../adapters/workspaceSearch';
import { DriftEngine, type DriftReport } from '../core/drift/driftEngine';
import { stampPage } from '../core/drift/stamp';
import type { Wiki } from '../core/wiki';

/** The drift engine for a wiki's workspace folder, reading files synchronously as the worker does. */
export function driftEngineFor(wiki: Wiki): DriftEngine {
  return new DriftEngine(wiki.root, new WorkerFileSystem(), new CachingSymbolParser(new TsSymbolParser()), new WorkspaceSearch(wiki.root));
}

/** One drift pass over the whole wiki; with `stamp`, citations without an anchor are stamped first. */
export async function checkDrift(wiki: Wiki, options: { stamp: boolean }): Promise<{ report: DriftReport; stamped: number }> {
  const engine = driftEngineFor(wiki);
  let pages = await wiki.loadPages();
  let stamped = 0;
  if (options.stamp) {
    for (const page of pages.filter((p) => p.valid)) stamped += (await stampPage(wiki, engine, page, { onlyMissing: true })).stamped.length;
    if (stamped) {
      pages = await wiki.loadPages();
      await wiki.rebuildIndex(pages);
    }
  }
  return { report: await engine.check(pages), stamped };
}
