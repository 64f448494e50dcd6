import type { TokenBudget } from '../core/generate/budget';
import type { GenerateProgress, GenerateReport } from '../core/generate/generate';
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

/** Why the run stopped early, if it did, on stderr; the exit code. */
export function printStop(report: Pick<GenerateReport, 'stopped' | 'notAttempted'>, written: number, io: Io): number {
  if (report.stopped?.reason === 'budget') {
    io.err(`Stopped before the budget ran out: the next request could take ${report.stopped.needed} tokens and ${report.stopped.left} are left. ${report.notAttempted.length} page(s) not written; run again (with a larger --budget) to resume.`);
  } else if (report.stopped?.reason === 'cancelled') {
    io.err(`Cancelled; the ${written} page(s) written stay. Run again to resume.`);
    return 130;
  } else if (report.stopped?.reason === 'failed') {
    io.err(`repo-wiki generate: stopped, the model failed: ${report.stopped.message} The ${written} page(s) written stay; run again to resume.`);
    return 2;
  }
  return 0;
}
