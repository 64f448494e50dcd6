import { BudgetExhaustedError, TokenBudget } from '../../core/generate/budget';
import { DEFAULT_GENERATE_BUDGET, GENERATE_LIMITS } from '../../core/generate/defaults';
import type { GenerateReport, GenerateSettings } from '../../core/generate/generate';
import type { OutlinePage } from '../../core/generate/outline';
import { pagesToWrite } from '../../core/generate/resume';
import { generateLogEntry, runLogged } from '../../core/generate/log';
import { outlineInput, readSteering } from '../../core/generate/outlineInput';
import { NO_STEERING } from '../../core/generate/steering';
import { isLlmError } from '../../core/llm/languageModel';
import type { LocalCore } from '../../adapters/localCore';
import type { CliCommand } from '../command';
import { confirm } from '../confirm';
import type { Io } from '../io';
import { missingModels, MODEL_ENVIRONMENT, modelFromEnv } from '../model';
import { printFailed, printRejected, printStop, progressOn, spent, type GenerateCliOptions } from '../generateReport';
import { MODEL_OPTIONS } from '../options';


/** `repo-wiki generate`: the librarian drafts the wiki from the code; see `generateCommand`. */
export const generate: CliCommand = {
  name: 'generate',
  summary: 'the librarian drafts the wiki from the code',
  description:
    'From the repository map, the manifests, the README and docs/ the librarian proposes an outline of 8 to 30 pages (.wiki/generate.json can add notes and required pages), then writes each page reading the code with its tools; ' +
    'a page whose citations do not resolve goes back once, then is rejected. Pages already generated are skipped, so a run stopped by the budget or Ctrl+C resumes. ' +
    '--update sends only the pages with drift (changed, moved, renamed or missing code), each with the diff of its changed citations, for the smallest edit or a re-stamp. ' +
    `It writes after a yes on a terminal, or with --yes. It needs ${MODEL_ENVIRONMENT}.`,
  usage: '',
  workspace: 'wiki',
  options: [
    { name: 'yes', description: 'write the pages without asking' },
    { name: 'dry-run', description: 'print the outline and the pages to write; write nothing' },
    { name: 'update', description: 'revisit only the pages whose cited code drifted, with its diff' },
    { name: 'budget', value: 'N', default: String(DEFAULT_GENERATE_BUDGET), description: 'the most input and output tokens the run may spend' },
    ...MODEL_OPTIONS,
  ],
  async run({ flag, value, values, core }, io) {
    const given = value('budget') ?? String(DEFAULT_GENERATE_BUDGET);
    const budget = Number(given);
    if (!/^\d+$/.test(given) || !Number.isSafeInteger(budget) || budget < 1) {
      io.err(`repo-wiki generate: --budget must be a positive whole number of tokens, not "${given.slice(0, 40)}".`);
      return 2;
    }
    return generateCommand(await core(), { models: { model: value('model'), fallbacks: values('fallback') }, yes: flag('yes'), dryRun: flag('dry-run'), update: flag('update'), budget }, io);
  },
};


/**
 * Drafts the outline, prints it, and writes its pages only with --yes or after a yes on a terminal;
 * one `generate` line is logged for a run that wrote, also when a write fails midway. Exit 0 when
 * the run ends (the budget spent included: it is reported), 1 when a page was rejected, 2 when it
 * cannot start or something fails (the model, a write), 130 on Ctrl+C.
 */
export async function generateCommand(core: LocalCore, options: GenerateCliOptions, io: Io): Promise<number> {
  const { wiki } = core;
  const offer = await modelFromEnv(options.models);
  if ('missing' in offer) {
    io.err(`repo-wiki generate: the librarian needs a model (${missingModels(offer)}). Set ${MODEL_ENVIRONMENT}, then run it again. Nothing was written.`);
    return 2;
  }
  // The steering file shapes an outline; --update drafts none.
  const steering = options.update ? NO_STEERING : await readSteering(wiki, core.files);
  const { draftOutline, writePages, OutlineRejectedError, RunFailedError } = await import('../../core/generate/generate');
  const { headCommit } = await import('../../adapters/git/gitChanges');
  const budget = new TokenBudget(options.budget);
  const settings: GenerateSettings = { model: offer.name, ...GENERATE_LIMITS };
  const deps = { wiki, model: offer.model, budget, resolver: core.drift, tools: core.tools(), settings, today: new Date().toISOString().slice(0, 10), commit: await headCommit(wiki.root) };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    if (options.update) {
      const restamp = async (slug: string, citations: readonly string[]) => void (await core.drift.stamp(slug, { citations: [...citations] }));
      return await (await import('../generateUpdate')).updateCommand(core, { ...deps, restamp }, options, io, controller.signal);
    }
    io.err('generate: drafting the outline');
    let outline: OutlinePage[];
    try {
      const input = await outlineInput(wiki, core.files, core.map, steering);
      outline = (await draftOutline(deps, input, controller.signal)).outline;
    } catch (error) {
      if (error instanceof BudgetExhaustedError) {
        io.err(`repo-wiki generate: the outline request could take ${error.needed} tokens, more than the budget of ${options.budget}. Raise --budget, then run it again. Nothing was written.`);
        return 2;
      }
      if (error instanceof OutlineRejectedError) for (const problem of error.problems) io.err(`  ${problem.path}: ${problem.message}`);
      if (isLlmError(error) && error.kind === 'cancelled') {
        io.err('repo-wiki generate: cancelled; nothing was written.');
        return 130;
      }
      throw error;
    }
    const { write, done } = pagesToWrite(outline, await wiki.loadPages());
    printOutline(outline, new Set(done.map((page) => page.slug)), io);
    if (options.dryRun) {
      io.out(`Would write ${write.length} page(s): ${write.map((page) => page.slug).join(', ') || 'none'}. Nothing was written (--dry-run).`);
      return 0;
    }
    if (!write.length) {
      io.out('Every page of the outline was written by an earlier run; nothing to write.');
      return 0;
    }
    if (!options.yes && !(await confirm(`Write ${write.length} page(s) to ${wiki.dir}? [y/N] `))) {
      io.err(process.stdin.isTTY ? 'Not written.' : 'Not written: pass --yes to write these pages without a terminal.');
      return 0;
    }
    try {
      const report = await runLogged(wiki, () => writePages(deps, outline, write, steering.notes, controller.signal, progressOn(io, 'writing')), (done) => generateLogEntry(done, budget));
      return printReport(report, budget, io);
    } catch (error) {
      if (error instanceof RunFailedError) return printFailed(error, (error.report as GenerateReport).written.length, io);
      throw error;
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

function printOutline(outline: readonly OutlinePage[], done: ReadonlySet<string>, io: Io): void {
  io.out(`Outline (${outline.length} pages):`);
  for (const page of outline) io.out(`${done.has(page.slug) ? 'written' : 'to write'}  ${page.slug}  ${page.title}: ${page.purpose}`);
}

function printReport(report: GenerateReport, budget: TokenBudget, io: Io): number {
  const rejected = printRejected(report.rejected, io);
  io.out(`Written: ${report.written.length} page(s)${rejected}. ${spent(budget, report.model)}`);
  return printStop(report, report.written.length, io);
}
