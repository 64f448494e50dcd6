import type { TokenBudget } from '../core/generate/budget';
import { WikiError } from '../core/errors';
import type { GenerateProgress, GenerateReport, RunFailedError } from '../core/generate/generate';
import type { Io } from './io';
import type { ModelFlags } from './model';

/** What `repo-wiki generate` and its --update print and take, shared by both. */

export interface GenerateCliOptions {
  models: ModelFlags;
  yes: boolean;
  dryRun: boolean;
  /** Revisit the pages with drift instead of drafting an outline. */
  update: boolean;
  budget: number;
}

/** Per-page progress on stderr. */
export function progressOn(io: Io, verb: string): GenerateProgress {
  return {
    onPage: ({ index, total, slug }) => io.err(`${verb} ${index + 1}/${total}: ${slug}`),
    onRepair: ({ problems }) => io.err(`  sent back for repair: ${problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ')}`),
    onToolStep: ({ label, step }) => step && io.err(`  ${label}`),
    onRetry: ({ delayMs, status }) => io.err(`the API is busy (${status || 'no connection'}); retrying in ${Math.ceil(delayMs / 1000)} s`),
  };
}

/** Each rejected page and its problems on stderr; the summary's clause about them. */
export function printRejected(rejected: GenerateReport['rejected'], io: Io): string {
  for (const { slug, problems } of rejected) {
    io.err(`rejected ${slug}:`);
    for (const problem of problems) io.err(`  ${problem.path}: ${problem.message}`);
  }
  return rejected.length ? `; rejected ${rejected.length} (${rejected.map((page) => page.slug).join(', ')}): run again to retry them` : '';
}

export function spent(budget: TokenBudget, model: string): string {
  return `${budget.requests} request(s), ${budget.inputTokens} input and ${budget.outputTokens} output tokens of a budget of ${budget.limit} (${model}).`;
}

/**
 * Why the run stopped early, if it did, on stderr; the exit code: 130 cancelled, 2 the model
 * failed, 1 a page was rejected (the run went on, but not every page made it), else 0. A budget
 * stop alone is 0: it is the limit asked for, and running again resumes.
 */
export function printStop(report: Pick<GenerateReport, 'stopped' | 'notAttempted' | 'rejected'>, written: number, io: Io): number {
  if (report.stopped?.reason === 'budget') {
    io.err(`Stopped before the budget ran out: the next request could take ${report.stopped.needed} tokens and ${report.stopped.left} are left. ${report.notAttempted.length} page(s) not written; run again (with a larger --budget) to resume.`);
  } else if (report.stopped?.reason === 'cancelled') {
    io.err(`Cancelled; the ${written} page(s) written stay. Run again to resume.`);
    return 130;
  } else if (report.stopped?.reason === 'failed') {
    io.err(`repo-wiki generate: stopped, the model failed: ${report.stopped.message} The ${written} page(s) written stay; run again to resume.`);
    return 2;
  }
  if (report.rejected.length) {
    io.err(`repo-wiki generate: exit code 1, ${report.rejected.length} page(s) rejected.`);
    return 1;
  }
  return 0;
}

/** A run that something other than the model stopped midway (a write, the disk): what failed, and that what it wrote before stays, logged. Exit 2. */
export function printFailed(error: RunFailedError<unknown>, written: number, io: Io): number {
  const what = error.failure instanceof WikiError ? error.failure.userMessage : error.message;
  io.err(`repo-wiki generate: stopped, ${what}`);
  io.err(`The ${written} page(s) written before it stay, and the run is logged; run again to resume.`);
  return 2;
}
