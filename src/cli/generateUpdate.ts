import { RunFailedError } from '../core/generate/generate';
import { runLogged, updateLogEntry } from '../core/generate/log';
import { updatePages, driftedPages, type UpdateDeps, type UpdateReport } from '../core/generate/update';
import type { LocalCore } from '../adapters/localCore';
import { confirm } from './confirm';
import type { Io } from './io';
import { citationDiffs } from './commands/drift';
import { printFailed, printRejected, printStop, progressOn, spent, type GenerateCliOptions } from './generateReport';

/**
 * `repo-wiki generate --update`: only the pages with drift go to the model, each with the diff of
 * its changed citations; it answers with the smallest edit or a re-stamp. One `generate` line is
 * logged for a run that wrote, also when a write fails midway; exit codes as `generate`'s.
 */
export async function updateCommand(core: LocalCore, deps: UpdateDeps, options: GenerateCliOptions, io: Io, signal: AbortSignal): Promise<number> {
  const { wiki } = core;
  const report = await core.drift.check({}, signal);
  const diffs = await citationDiffs(core, report.issues);
  const drifted = driftedPages(await wiki.loadPages(), report.issues, (issue) => diffs.get(issue));
  if (!drifted.length) {
    io.out('No page has drift to revisit (changed, moved, renamed or missing code); nothing was sent.');
    return 0;
  }
  io.out(`Pages with drift (${drifted.length}):`);
  for (const { page, changes } of drifted) io.out(`  ${page.slug}  ${changes.map((change) => `${change.code} ${change.citation}`).join(', ')}`);
  if (options.dryRun) {
    io.out(`Would revisit ${drifted.length} page(s). Nothing was sent or written (--dry-run).`);
    return 0;
  }
  if (!options.yes && !(await confirm(`Revisit ${drifted.length} page(s) with the model? [y/N] `))) {
    io.err(process.stdin.isTTY ? 'Not revisited.' : 'Not revisited: pass --yes to revisit these pages without a terminal.');
    return 0;
  }
  const { budget } = deps;
  let result: UpdateReport;
  try {
    result = await runLogged(wiki, () => updatePages(deps, drifted, signal, progressOn(io, 'revisiting')), (done) => updateLogEntry(done, budget));
  } catch (error) {
    if (!(error instanceof RunFailedError)) throw error;
    const partial = error.report as UpdateReport;
    return printFailed(error, partial.updated.length + partial.restamped.length, io);
  }
  const rejected = printRejected(result.rejected, io);
  io.out(`Updated: ${result.updated.length} page(s); re-stamped: ${result.restamped.length}${rejected}. ${spent(budget, result.model)}`);
  return printStop(result, result.updated.length + result.restamped.length, io);
}
