import type { LocalCore } from '../../adapters/localCore';
import { LIBRARIAN_LINT_DEFAULTS } from '../../core/defaults';
import { WikiError } from '../../core/errors';
import type { LintPassReport } from '../../core/lint/librarianPass';
import type { LintFixPlan } from '../../core/lint/lintFix';
import type { CliCommand } from '../command';
import { issueJson, issueLine } from '../issues';
import { missingModels, MODEL_ENVIRONMENT, modelFromEnv, type ModelFlags } from '../model';
import { MODEL_OPTIONS } from '../options';
import { pageAges } from '../pageAges';
import { failedModelsField } from '../../core/llm/fallbackChain';

interface LibrarianOptions {
  models: ModelFlags;
  maxPages: number;
  maxTokens: number;
  minAgeDays: number;
}

/** `repo-wiki lint`: the deterministic checks, optionally the safe fixes first and the librarian's pass. Exit 1 on an error-level issue. */
export const lint: CliCommand = {
  name: 'lint',
  summary: 'check pages; exits 1 when any error is found',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [
    { name: 'fix', description: 'first rebuild the index, unlink deleted pages, and mark pages whose citations are all missing as stale' },
    { name: 'llm', description: `also run the librarian's pass, with the model set by ${MODEL_ENVIRONMENT}` },
    ...MODEL_OPTIONS.map((option) => ({ ...option, description: `with --llm: ${option.description}` })),
    { name: 'max-pages', value: 'N', default: String(LIBRARIAN_LINT_DEFAULTS.maxPages), description: 'with --llm: the most pages to check' },
    { name: 'max-tokens', value: 'N', default: String(LIBRARIAN_LINT_DEFAULTS.maxTokens), description: 'with --llm: the most input tokens to spend' },
    { name: 'min-age-days', value: 'N', default: String(LIBRARIAN_LINT_DEFAULTS.minAgeDays), description: 'with --llm: check only pages not updated for N days' },
  ],
  async run({ wiki, format, flag, value, values, core }, io) {
    const llm = flag('llm') ? { models: { model: value('model'), fallbacks: values('fallback') }, maxPages: Number(value('max-pages')), maxTokens: Number(value('max-tokens')), minAgeDays: Number(value('min-age-days')) } : undefined;
    if (llm && !(llm.maxPages > 0 && llm.maxTokens > 0 && llm.minAgeDays >= 0)) {
      io.err('--max-pages and --max-tokens must be positive numbers, and --min-age-days 0 or more.');
      return 2;
    }
    let fixed: Awaited<ReturnType<typeof fixLint>> | undefined;
    let fixFailed = false;
    try {
      fixed = flag('fix') ? await fixLint(await core()) : undefined;
    } catch (error) {
      // The fixes were refused (a log that is a link, the wiki busy): the lint results are still worth showing.
      io.err(`repo-wiki: lint --fix: ${error instanceof WikiError ? error.userMessage : (error as Error).message}`);
      fixFailed = true;
    }
    const { pages, issues: deterministic } = await wiki.lint();
    const librarian = llm ? await librarianLint(await core(), llm, (line) => io.err(line)) : undefined;
    const issues = [...deterministic, ...(librarian?.findings ?? [])];
    const errors = issues.filter((issue) => issue.severity === 'error').length;
    if (format === 'json') {
      const pass = librarian && { pagesChecked: librarian.pagesChecked, pagesSkipped: librarian.pagesSkipped, pagesTooNew: librarian.pagesTooNew, usage: librarian.usage, budget: librarian.budget, dropped: librarian.dropped };
      io.out(JSON.stringify({ pagesChecked: pages.length, issues: issues.map(issueJson), ...(fixed ? { fixed } : {}), ...(pass ? { librarian: pass } : {}) }, null, 2));
    } else {
      if (fixed) {
        for (const { slug, targets } of fixed.unlinked) io.out(`fixed  .wiki/pages/${slug}.md  unlinked deleted page${targets.length === 1 ? '' : 's'} ${targets.map((t) => `[[${t}]]`).join(', ')}`);
        for (const { slug, citations } of fixed.stale) io.out(`fixed  .wiki/pages/${slug}.md  marked stale: all ${citations} code citations are missing`);
        if (fixed.indexChanged) io.out('fixed  .wiki/index.json  rebuilt');
      }
      for (const issue of issues) io.out(issueLine(issue));
      io.out(`${pages.length} pages checked: ${errors} error${errors === 1 ? '' : 's'}, ${issues.length - errors} other issue${issues.length - errors === 1 ? '' : 's'}.`);
      if (librarian) {
        io.out(`Librarian: ${librarian.findings.length} findings in ${librarian.pagesChecked.length} pages, ${librarian.usage.inputTokens} of ${librarian.budget.maxTokens} input tokens${librarian.pagesSkipped.length ? `; ${librarian.pagesSkipped.length} pages left for the next run` : ''}${librarian.pagesTooNew.length ? `; ${librarian.pagesTooNew.length} pages updated in the last --min-age-days not checked` : ''}.`);
      }
    }
    return fixFailed ? 2 : errors ? 1 : 0;
  },
};

/** `lint --fix`: the safe fixes, applied; returns what changed. */
export async function fixLint(core: LocalCore): Promise<LintFixPlan & { pages: string[]; indexChanged: boolean }> {
  // The drift pass and the fixes load only for --fix, the librarian only for --llm.
  const [{ checkDrift }, { applyLintFixes, planLintFixes }] = await Promise.all([import('../driftCheck'), import('../../core/lint/lintFix')]);
  const { wiki } = core;
  const { report } = await checkDrift(core, { stamp: false });
  const plan = await planLintFixes(wiki, await wiki.loadPages(), report);
  return { ...plan, ...(await applyLintFixes(wiki, plan, new Date().toISOString().slice(0, 10))) };
}

/** `lint --llm`: the librarian's pass, with the model (and fallbacks) the flags and the environment name. */
export async function librarianLint({ wiki, files, drift }: LocalCore, options: LibrarianOptions, onProgress: (line: string) => void): Promise<LintPassReport> {
  const offer = await modelFromEnv(options.models);
  if ('missing' in offer) throw new Error(`lint --llm needs a model (${missingModels(offer)}): set ${MODEL_ENVIRONMENT}.`);
  const model = offer.model;
  const [{ lintWithLibrarian, LintReplyError }, { FileCitedCode }] = await Promise.all([import('../../core/lint/librarianPass'), import('../../adapters/citedCode')]);
  const code = new FileCitedCode(wiki.root, files, (relPath, text) => drift.symbolsOf(relPath, text));
  const pages = await wiki.loadPages();
  try {
    const settings = { maxPages: options.maxPages, maxTokens: options.maxTokens, minAgeDays: options.minAgeDays, model: offer.name, maxOutputTokens: LIBRARIAN_LINT_DEFAULTS.maxOutputTokens, today: new Date().toISOString().slice(0, 10) };
    const report = await lintWithLibrarian(pages, { model, code, settings, ages: await pageAges(wiki, pages) }, undefined, {
      onBatch: ({ checked, total, tokens, budget }) => onProgress(`librarian lint: page ${checked + 1}/${total}, ${tokens} of ${budget} tokens`),
    });
    await wiki.appendLog({ op: 'lint', pages: report.pagesChecked, findings: report.findings.length, skipped: report.pagesSkipped.length, model: report.model, ...failedModelsField(report.attempts), tokens: { input: report.usage.inputTokens, output: report.usage.outputTokens } });
    return report;
  } catch (error) {
    if (!(error instanceof LintReplyError)) throw error;
    onProgress(`--- raw reply ---\n${error.reply}`);
    throw new Error(`${error.message} The raw reply was printed to stderr above.`);
  }
}
