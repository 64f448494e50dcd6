import type { LogEntry } from '../model';
import type { TokenBudget } from './budget';
import type { Wiki } from '../wiki/wiki';
import { RunFailedError, type GenerateReport } from './generate';
import type { UpdateReport } from './update';

/**
 * Runs a drafting or update run and appends its one `generate` line. When something other than
 * the model fails midway, the line (with what was accepted before the failure) is still appended,
 * then the `RunFailedError` is rethrown: the log never loses pages that were written.
 */
export async function runLogged<R>(wiki: Wiki, run: () => Promise<R>, entry: (report: R) => Omit<LogEntry, 'ts'>): Promise<R> {
  let report: R;
  try {
    report = await run();
  } catch (error) {
    if (error instanceof RunFailedError) await wiki.appendLog(entry(error.report as R));
    throw error;
  }
  await wiki.appendLog(entry(report));
  return report;
}

/** The one `generate` line of a drafting run, as the CLI and the extension log it. */
export function generateLogEntry(report: GenerateReport, budget: TokenBudget): Omit<LogEntry, 'ts'> {
  return {
    op: 'generate',
    pages: report.written,
    written: report.written,
    rejected: report.rejected.map((page) => page.slug),
    ...(report.declined.length ? { declined: report.declined } : {}),
    ...stopAndSpend(report, budget),
  };
}

/** The one `generate` line of an update run (`update: true`). */
export function updateLogEntry(report: UpdateReport, budget: TokenBudget): Omit<LogEntry, 'ts'> {
  return {
    op: 'generate',
    update: true,
    pages: [...report.updated, ...report.restamped],
    updated: report.updated,
    restamped: report.restamped,
    rejected: report.rejected.map((page) => page.slug),
    ...(report.declined.length ? { declined: report.declined } : {}),
    ...stopAndSpend(report, budget),
  };
}

function stopAndSpend(report: Pick<GenerateReport, 'stopped' | 'model'>, budget: TokenBudget) {
  return {
    ...(report.stopped ? { stopped: report.stopped.reason } : {}),
    tokens: { input: budget.inputTokens, output: budget.outputTokens },
    requests: budget.requests,
    budget: budget.limit,
    model: report.model,
  };
}
