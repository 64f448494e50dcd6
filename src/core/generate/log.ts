import type { LogEntry } from '../model';
import type { TokenBudget } from './budget';
import type { GenerateReport } from './generate';
import type { UpdateReport } from './update';

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
