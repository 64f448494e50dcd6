import * as path from 'node:path';
import * as vscode from 'vscode';
import { LIBRARIAN_LINT_DEFAULTS, MODEL_DEFAULTS } from '../../core/defaults';
import { FileCitedCode } from '../../adapters/citedCode';
import { preparePlan } from '../../core/ingest/changes';
import { PlanRejectedError } from '../../core/ingest/ingest';
import { lintWithLibrarian, LintReplyError, type LintFinding, type LintPassReport } from '../../core/lint/librarianPass';
import { isLlmError } from '../../core/llm/languageModel';
import type { Wiki } from '../../core/wiki/wiki';
import { FolderDiagnostics } from '../common/diagnostics';
import type { LanguageModel } from '../../core/llm/languageModel';
import { reviewAndApply } from '../ingest/planReview';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';
import { registerLintFixCommand } from './lintFixCommand';
import { failedModelsField } from '../../core/llm/fallbackChain';

const REPORT_SCHEME = 'repo-wiki-report';

/** Integration tests run the pass through the command and read back what it published. */
export interface LibrarianLintHooks {
  lastReport(root: string): LintPassReport | undefined;
}

/**
 * "Lint wiki with the librarian": an LLM pass over the pages, capped by a page count and a token
 * budget. Findings become `lint:` diagnostics and a report; fixes go through the ingest review.
 */
export function activateLibrarianLint(context: vscode.ExtensionContext, services: Services): { librarianLint: LibrarianLintHooks } {
  const diagnostics = new FolderDiagnostics('repo-wiki-librarian', 'repoWiki.lint.severities');
  const reports = new Map<string, LintPassReport>();
  const reportTexts = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const reportUri = (wiki: Wiki) => vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${path.basename(wiki.root)}/librarian-lint.md`, query: wiki.root });
  context.subscriptions.push(
    registerLintFixCommand(services),
    diagnostics,
    changed,
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => reportTexts.get(uri.query) ?? 'No librarian lint has run in this window yet.',
    }),
    // `background`: scheduled upkeep runs the pass for one wiki, with no prompts and progress in the status bar.
    vscode.commands.registerCommand('repoWiki.lintWithLibrarian', async (options?: { root?: string; background?: boolean }) => {
      const background = options?.background === true;
      if (background ? !vscode.workspace.isTrusted : !ensureTrusted('Linting with the librarian')) return undefined;
      const wiki = typeof options?.root === 'string' ? services.wikis.all().find((w) => w.root === options.root) : await services.wikis.pick({ mustExist: true, purpose: 'Lint wiki with the librarian' });
      if (!wiki) return undefined;
      const offer = await services.models.choose();
      if ('missing' in offer) {
        if (background) services.output.info('Upkeep: the librarian lint is on, but no model is set up; it did not run.');
        else await services.models.explainMissing(offer.missing, 'The librarian lint');
        return undefined;
      }
      try {
        const report = await run(services, wiki, offer.model, background);
        if (!report) return undefined;
        reports.set(wiki.root, report);
        diagnostics.publish(wiki.root, report.findings);
        reportTexts.set(wiki.root, renderReport(wiki, report));
        changed.fire(reportUri(wiki));
        await wiki.appendLog({ op: 'lint', pages: report.pagesChecked, findings: report.findings.length, skipped: report.pagesSkipped.length, model: report.model, ...failedModelsField(report.attempts), tokens: { input: report.usage.inputTokens, output: report.usage.outputTokens } });
        const summary = `Librarian lint: ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} in ${report.pagesChecked.length} pages (${report.usage.inputTokens.toLocaleString()} of ${report.budget.maxTokens.toLocaleString()} tokens${report.pagesSkipped.length ? `; ${report.pagesSkipped.length} pages left for the next run` : ''}${report.pagesTooNew.length ? `; ${report.pagesTooNew.length} pages newer than repoWiki.lint.llm.minAgeDays not checked` : ''}).`;
        if (background) {
          services.output.info(summary);
          vscode.window.setStatusBarMessage(`$(book) ${summary}`, 15_000);
          return { findings: report.findings.length, pages: report.pagesChecked.length };
        }
        void vscode.window.showInformationMessage(summary, 'Show Problems', 'Open Report').then((choice) => {
          if (choice === 'Show Problems') void vscode.commands.executeCommand('workbench.panel.markers.view.focus');
          if (choice === 'Open Report') void vscode.window.showTextDocument(reportUri(wiki), { preview: true });
        });
        return { findings: report.findings.length, pages: report.pagesChecked.length };
      } catch (error) {
        reportFailure(services, error);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('repoWiki.openLintReport', async () => {
      const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Open the librarian lint report' });
      if (wiki) await vscode.window.showTextDocument(reportUri(wiki), { preview: true });
    }),
    vscode.commands.registerCommand('repoWiki.reviewLintFix', (root: unknown, page: unknown, index: unknown) => reviewFix(services, reports, String(root), String(page), Number(index))),
    vscode.languages.registerCodeActionsProvider({ scheme: 'file', language: 'markdown', pattern: '**/.wiki/pages/*.md' }, {
      provideCodeActions: (document, _range, context) => {
        const wiki = services.wikis.forUri(document.uri);
        const report = wiki && reports.get(wiki.root);
        if (!wiki || !report) return [];
        const relPath = wiki.relative(document.uri.fsPath);
        return context.diagnostics.flatMap((diagnostic) => {
          if (typeof diagnostic.code !== 'string' || !diagnostic.code.startsWith('lint:')) return [];
          const index = report.findings.findIndex((f) => f.page === relPath && f.code === diagnostic.code && f.range.start.line === diagnostic.range.start.line && f.message === diagnostic.message);
          if (index < 0 || !report.findings[index].fix) return [];
          const action = new vscode.CodeAction('Review the librarian\'s fix…', vscode.CodeActionKind.QuickFix);
          action.diagnostics = [diagnostic];
          action.command = { command: 'repoWiki.reviewLintFix', title: 'Review the librarian\'s fix', arguments: [wiki.root, relPath, index] };
          return [action];
        });
      },
    }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
  );
  return { librarianLint: { lastReport: (root) => reports.get(root) } };
}

async function run(services: Services, wiki: Wiki, model: LanguageModel, background: boolean): Promise<LintPassReport | undefined> {
  const llm = vscode.workspace.getConfiguration('repoWiki.llm');
  const config = vscode.workspace.getConfiguration('repoWiki.lint.llm');
  const settings = {
    model: services.models.names()[0],
    maxPages: config.get<number>('maxPages') ?? LIBRARIAN_LINT_DEFAULTS.maxPages,
    maxTokens: config.get<number>('maxTokens') ?? LIBRARIAN_LINT_DEFAULTS.maxTokens,
    maxOutputTokens: llm.get<number>('maxTokens') ?? MODEL_DEFAULTS.maxTokens,
    minAgeDays: config.get<number>('minAgeDays') ?? LIBRARIAN_LINT_DEFAULTS.minAgeDays,
    today: new Date().toISOString().slice(0, 10),
  };
  const code = new FileCitedCode(wiki.root, services.wikis.filesOf(wiki), (relPath, text) => services.cores.of(wiki).drift.symbolsOf(relPath, text));
  const { pages } = await services.snapshots.get(wiki);
  return vscode.window.withProgress(
    { location: background ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification, title: 'Librarian lint', cancellable: !background },
    async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      progress.report({ message: `up to ${settings.maxPages} pages, ${settings.maxTokens.toLocaleString()} tokens` });
      // Without git history the pass still runs, without page ages.
      const ages = await services.ages.tags(wiki, pages).catch((error: Error) => void services.output.info(`Page ages unknown: ${error.message}`));
      return lintWithLibrarian(pages, { model, code, settings, ages }, controller.signal, {
        onBatch: ({ checked, total, tokens, budget }) => progress.report({ message: `page ${checked + 1}/${total} · ${tokens.toLocaleString()} / ${budget.toLocaleString()} tokens` }),
      });
    },
  );
}

async function reviewFix(services: Services, reports: ReadonlyMap<string, LintPassReport>, root: string, page: string, index: number): Promise<void> {
  if (!ensureTrusted('Applying a fix')) return;
  const wiki = services.wikis.all().find((w) => w.root === root);
  const finding: LintFinding | undefined = reports.get(root)?.findings[index];
  if (!wiki || !finding?.fix || finding.page !== page) return;
  try {
    const pages = await wiki.loadPages();
    const prepared = await preparePlan(finding.fix, wiki, pages, services.cores.of(wiki).drift, { sources: [`lint:${finding.data.kind}`], today: new Date().toISOString().slice(0, 10) });
    if (prepared.problems.length) throw new PlanRejectedError(prepared.problems, [JSON.stringify(finding.fix, null, 2)]);
    await reviewAndApply(services, wiki, prepared, { title: 'Librarian fix', log: { op: 'lint-fix', finding: finding.code, page: finding.data.slug } });
  } catch (error) {
    reportFailure(services, error);
  }
}

function reportFailure(services: Services, error: unknown): void {
  if (error instanceof LintReplyError || error instanceof PlanRejectedError) {
    const replies = error instanceof LintReplyError ? [error.reply] : error.replies;
    for (const reply of replies) services.output.warn(`Librarian lint: raw reply:\n${reply}`);
    const hint = error instanceof PlanRejectedError ? ` ${error.hint}` : '';
    void vscode.window.showErrorMessage(`${error.message} The raw reply is in the Repo Wiki output channel.${hint}`, 'Show Raw Reply').then((choice) => choice && services.output.show());
    return;
  }
  if (isLlmError(error)) {
    if (error.kind === 'cancelled') {
      void vscode.window.showInformationMessage('Librarian lint cancelled.');
      return;
    }
    void vscode.window.showErrorMessage(`Librarian lint failed: ${error.message}`, ...(error.kind === 'auth' ? ['Set up a model'] : []))
      .then((choice) => choice && vscode.commands.executeCommand('repoWiki.setUpModel'));
    return;
  }
  showError(services.output, 'Librarian lint', error);
}

/** The report as markdown: the budget, what was checked and skipped, and each finding. */
function renderReport(wiki: Wiki, report: LintPassReport): string {
  const lines = [
    `# Librarian lint of ${path.basename(wiki.root)}`,
    '',
    `- Model: ${report.model}; ${report.usage.requests} request(s)`,
    `- Tokens: ${report.usage.inputTokens.toLocaleString()} input of a ${report.budget.maxTokens.toLocaleString()} budget (repoWiki.lint.llm.maxTokens), ${report.usage.outputTokens.toLocaleString()} output`,
    `- Pages checked: ${report.pagesChecked.length} (cap ${report.budget.maxPages}, repoWiki.lint.llm.maxPages)${report.pagesSkipped.length ? `; not checked this run: ${report.pagesSkipped.map((s) => `\`${s}\``).join(', ')}` : ''}`,
    ...(report.pagesTooNew.length ? [`- Updated too recently to check (repoWiki.lint.llm.minAgeDays): ${report.pagesTooNew.map((s) => `\`${s}\``).join(', ')}`] : []),
    '',
    `## Findings (${report.findings.length})`,
    '',
  ];
  for (const finding of report.findings) {
    lines.push(`- **${finding.data.kind}** in \`${finding.page}\` line ${finding.range.start.line + 1}: ${finding.message.replace(/[<>]/g, '')}${finding.fix ? ' _(a fix is proposed: use the quick fix on the diagnostic)_' : ''}`);
  }
  if (!report.findings.length) lines.push('No problems found.');
  if (report.dropped.length) lines.push('', `## Set aside (${report.dropped.length})`, '', ...report.dropped.map((d) => `- ${d}`));
  return `${lines.join('\n')}\n`;
}
