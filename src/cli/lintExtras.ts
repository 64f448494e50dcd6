import { LIBRARIAN_LINT_DEFAULTS } from '../core/defaults';
import { FileCitedCode } from '../adapters/citedCode';
import type { LocalCore } from '../adapters/localCore';
import { lintWithLibrarian, LintReplyError, type LintPassReport } from '../core/lint/librarianPass';
import { applyLintFixes, planLintFixes, type LintFixPlan } from '../core/lint/lintFix';
import { checkDrift } from './drift';
import { pageAges } from './pageAges';

/** `lint --fix`: the safe fixes, applied; returns what changed. */
export async function fixLint(core: LocalCore): Promise<LintFixPlan & { pages: string[]; indexChanged: boolean }> {
  const { wiki } = core;
  const { report } = await checkDrift(core, { stamp: false });
  const plan = await planLintFixes(wiki, await wiki.loadPages(), report);
  return { ...plan, ...(await applyLintFixes(wiki, plan, new Date().toISOString().slice(0, 10))) };
}

/** `lint --llm`: the librarian's pass through the Anthropic API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL). */
export async function librarianLint({ wiki, files, drift }: LocalCore, options: { model: string; maxPages: number; maxTokens: number; minAgeDays: number }, onProgress: (line: string) => void): Promise<LintPassReport> {
  const apiKey = process.env.ANTHROPIC_API_KEY?.trim();
  if (!apiKey) throw new Error('lint --llm needs a model: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a gateway).');
  const { AnthropicModel } = await import('../adapters/llm/anthropicModel');
  const model = new AnthropicModel({ apiKey, baseURL: process.env.ANTHROPIC_BASE_URL?.trim() || undefined });
  const code = new FileCitedCode(wiki.root, files, (relPath, text) => drift.symbolsOf(relPath, text));
  const pages = await wiki.loadPages();
  try {
    const settings = { ...options, maxOutputTokens: LIBRARIAN_LINT_DEFAULTS.maxOutputTokens, today: new Date().toISOString().slice(0, 10) };
    const report = await lintWithLibrarian(pages, { model, code, settings, ages: await pageAges(wiki, pages) }, undefined, {
      onBatch: ({ checked, total, tokens, budget }) => onProgress(`librarian lint: page ${checked + 1}/${total}, ${tokens} of ${budget} tokens`),
    });
    await wiki.appendLog({ op: 'lint', pages: report.pagesChecked, findings: report.findings.length, skipped: report.pagesSkipped.length, model: report.model, tokens: { input: report.usage.inputTokens, output: report.usage.outputTokens } });
    return report;
  } catch (error) {
    if (!(error instanceof LintReplyError)) throw error;
    onProgress(`--- raw reply ---\n${error.reply}`);
    throw new Error(`${error.message} The raw reply was printed to stderr above.`);
  }
}
