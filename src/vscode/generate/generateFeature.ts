import * as vscode from 'vscode';
import { BudgetExhaustedError, TokenBudget } from '../../core/generate/budget';
import { DEFAULT_GENERATE_BUDGET, GENERATE_LIMITS } from '../../core/generate/defaults';
import { draftOutline, OutlineRejectedError, RunFailedError, writePages, type GenerateDeps, type GenerateProgress, type GenerateReport } from '../../core/generate/generate';
import { generateLogEntry, runLogged, updateLogEntry } from '../../core/generate/log';
import { outlineInput, readSteering } from '../../core/generate/outlineInput';
import type { OutlinePage } from '../../core/generate/outline';
import { pagesToWrite } from '../../core/generate/resume';
import { driftedPages, updatePages, type UpdateReport } from '../../core/generate/update';
import { citationDiffsOf } from '../../core/drift/citationDiffs';
import { keepChanges, type PageChange } from '../../core/ingest/changes';
import { isLlmError } from '../../core/llm/languageModel';
import type { Wiki } from '../../core/wiki/wiki';
import { loadGitModule } from '../common/heavyModules';
import { ensureTrusted, showError } from '../common/userErrors';
import { chooseChanges } from '../ingest/planReview';
import type { Services } from '../services/services';
import { chooseOutlinePages, setOutlineChooser } from './outlineReview';

/** What integration tests reach through the extension's API (the page review is ingest's `setChangeChooser`). */
export interface GenerateHooks {
  setOutlineChooser: typeof setOutlineChooser;
  /** What the notification's Cancel button does, for every running draft. */
  cancelAll(): void;
}

const ACTION = 'Draft the wiki';
const running = new Set<AbortController>();

/** "Draft the wiki for this repository…": the CLI's `repo-wiki generate`, each page reviewed before it is written. */
export const generateFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { generate: GenerateHooks } {
    context.subscriptions.push(
      vscode.commands.registerCommand('repoWiki.draftWiki', () => draftWiki(services)),
      vscode.commands.registerCommand('repoWiki.updateDriftedPages', (root?: string) => updateDriftedPages(services, root)),
    );
    return { generate: { setOutlineChooser, cancelAll: () => running.forEach((controller) => controller.abort()) } };
  },
};

/** The model, the budget and the core a run needs; undefined (after telling the user why) when it cannot start. */
export async function generateDeps(services: Services, wiki: Wiki, purpose: string): Promise<GenerateDeps | undefined> {
  const offer = await services.models.choose();
  if ('missing' in offer) {
    await services.models.explainMissing(offer.missing, purpose);
    return undefined;
  }
  const core = services.cores.of(wiki);
  const limit = vscode.workspace.getConfiguration('repoWiki.generate', vscode.Uri.file(wiki.root)).get<number>('budget') ?? DEFAULT_GENERATE_BUDGET;
  return {
    wiki,
    model: offer.model,
    budget: new TokenBudget(limit),
    resolver: core.drift,
    tools: core.tools(),
    settings: { model: offer.name, ...GENERATE_LIMITS },
    today: new Date().toISOString().slice(0, 10),
    commit: await new (loadGitModule().SimpleGitWiki)(wiki.root).headCommit(),
  };
}

/** Each proposed page in the diff editor with ingest's review list; only what the user keeps is written. */
export function reviewEachPage(wiki: Wiki, title: string): (slug: string, changes: readonly PageChange[]) => Promise<readonly PageChange[]> {
  return async (slug, changes) => {
    const kept = await chooseChanges(wiki, changes, `${title}: ${slug}`);
    return kept ? keepChanges(changes, new Set(kept)) : [];
  };
}

async function draftWiki(services: Services): Promise<GenerateReport | undefined> {
  if (!ensureTrusted(ACTION)) return undefined;
  const wiki = await services.wikis.pick({ mustExist: true, purpose: 'draft the wiki' });
  if (!wiki) return undefined;
  const controller = new AbortController();
  running.add(controller);
  try {
    const deps = await generateDeps(services, wiki, 'Drafting the wiki (the librarian writes the pages)');
    if (!deps) return undefined;
    const steering = await readSteering(wiki, services.cores.of(wiki).files);
    const outline = await draftOutlineWithProgress(services, deps, steering, controller);
    if (!outline) return undefined;
    const { write, done } = pagesToWrite(outline, await wiki.loadPages());
    if (!write.length) {
      void vscode.window.showInformationMessage(`${ACTION}: every page of the outline was written by an earlier run; nothing to write.`);
      return undefined;
    }
    const chosen = await chooseOutlinePages(write, `Repo Wiki: the outline has ${outline.length} pages${done.length ? ` (${done.length} written by an earlier run)` : ''}; write which?`);
    if (!chosen?.length) {
      void vscode.window.showInformationMessage(`${ACTION}: no page chosen; nothing was written.`);
      return undefined;
    }
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Repo Wiki: drafting the wiki', cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        const write = () => writePages({ ...deps, review: reviewEachPage(wiki, 'Draft') }, outline, chosen, steering.notes, controller.signal, pageProgress(progress, deps.budget, chosen));
        return runLogged(wiki, write, (done) => generateLogEntry(done, deps.budget));
      },
    );
    if (report.written.length) services.wikis.notifyChanged(wiki);
    reportRun(services, wiki, report, deps.budget);
    return report;
  } catch (error) {
    reportFailure(services, error);
    return undefined;
  } finally {
    running.delete(controller);
  }
}

/** `generate --update` in the editor: only the pages with drift, each with the diff of its changed citations, each edit reviewed. */
async function updateDriftedPages(services: Services, root: string | undefined): Promise<UpdateReport | undefined> {
  const action = 'Propose updates for drifted pages';
  if (!ensureTrusted(action)) return undefined;
  const wiki = root ? (await services.wikis.existing()).find((candidate) => candidate.root === root) : await services.wikis.pick({ mustExist: true, purpose: 'propose updates for drifted pages' });
  if (!wiki) return undefined;
  const controller = new AbortController();
  running.add(controller);
  try {
    const deps = await generateDeps(services, wiki, 'Proposing updates (the librarian edits the pages)');
    if (!deps) return undefined;
    const { drift } = services.cores.of(wiki);
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Repo Wiki: proposing updates for drifted pages', cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        progress.report({ message: 'checking citations…' });
        // Fresh, as upkeep's check: tokens are about to be spent on what it finds, so no watcher's lag may hide a change.
        const { issues } = await drift.check({ fresh: true }, controller.signal);
        const pages = await wiki.loadPages();
        const diffs = await citationDiffsOf(pages, issues, (citation, anchor) => drift.whatChanged(citation, anchor));
        const drifted = driftedPages(pages, issues, (issue) => diffs.get(issue));
        if (!drifted.length) return undefined;
        const restamp = async (slug: string, citations: readonly string[]) => void (await drift.stamp(slug, { citations: [...citations] }));
        const update = () => updatePages({ ...deps, restamp, review: reviewEachPage(wiki, 'Update') }, drifted, controller.signal, pageProgress(progress, deps.budget, []));
        return runLogged(wiki, update, (done) => updateLogEntry(done, deps.budget));
      },
    );
    if (!report) {
      void vscode.window.showInformationMessage(`${action}: no page has drift to revisit (changed, moved, renamed or missing code); nothing was sent.`);
      return undefined;
    }
    services.wikis.notifyChanged(wiki);
    for (const { slug, problems } of report.rejected) services.output.warn(`${action}: rejected ${slug}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
    const parts = [`${report.updated.length} updated`, `${report.restamped.length} re-stamped`, report.declined.length && `${report.declined.length} declined in review`, report.rejected.length && `${report.rejected.length} rejected (see the output)`].filter(Boolean).join(', ');
    const message = `${action}: ${parts}.${stopText(report, 'run it again')}`;
    services.output.info(`${message} ${spentText(deps.budget, report.model)}`);
    void vscode.window.showInformationMessage(message);
    return report;
  } catch (error) {
    reportFailure(services, error, action);
    return undefined;
  } finally {
    running.delete(controller);
  }
}

async function draftOutlineWithProgress(services: Services, deps: GenerateDeps, steering: Awaited<ReturnType<typeof readSteering>>, controller: AbortController): Promise<OutlinePage[] | undefined> {
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Repo Wiki: drafting the outline', cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => controller.abort());
        progress.report({ message: 'reading the repository map, manifests and docs/…' });
        const input = await outlineInput(deps.wiki, services.cores.of(deps.wiki).files, services.cores.of(deps.wiki).map, steering);
        progress.report({ message: `asking ${deps.settings.model} for the outline…` });
        return (await draftOutline(deps, input, controller.signal)).outline;
      },
    );
  } catch (error) {
    if (error instanceof BudgetExhaustedError) {
      void vscode.window.showErrorMessage(`${ACTION}: the outline request could take ${error.needed} tokens, more than the budget of ${deps.budget.limit}. Raise repoWiki.generate.budget, then run it again. Nothing was written.`, 'Open Settings')
        .then((choice) => choice && vscode.commands.executeCommand('workbench.action.openSettings', 'repoWiki.generate.budget'));
      return undefined;
    }
    if (error instanceof OutlineRejectedError) {
      for (const [i, reply] of error.replies.entries()) services.output.warn(`${ACTION}: outline reply ${i + 1} of ${error.replies.length}:\n${reply}`);
      for (const problem of error.problems) services.output.warn(`${ACTION}: ${problem.path}: ${problem.message}`);
    }
    throw error;
  }
}

/** "page k of N: Title", with the tokens spent so far. */
function pageProgress(progress: vscode.Progress<{ message?: string; increment?: number }>, budget: TokenBudget, pages: readonly OutlinePage[]): GenerateProgress {
  const spent = () => `${budget.used} of ${budget.limit} tokens`;
  return {
    onPage: ({ index, total, slug }) => progress.report({
      message: `page ${index + 1} of ${total}: ${pages.find((page) => page.slug === slug)?.title ?? slug} (${spent()})`,
      increment: index ? 100 / total : 0,
    }),
    onRepair: ({ slug }) => progress.report({ message: `${slug}: sent back once for repair (${spent()})` }),
    onRetry: ({ delayMs, status }) => progress.report({ message: `the API is busy (${status || 'no connection'}); retrying in ${Math.ceil(delayMs / 1000)} s` }),
  };
}

/** The run's outcome in the output channel and one notification that says what to do next. */
function reportRun(services: Services, wiki: Wiki, report: GenerateReport, budget: TokenBudget): void {
  for (const { slug, problems } of report.rejected) services.output.warn(`${ACTION}: rejected ${slug}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
  const parts = [
    `${report.written.length} page(s) written`,
    report.declined.length && `${report.declined.length} declined in review`,
    report.rejected.length && `${report.rejected.length} rejected (citations that do not resolve; see the output)`,
  ].filter(Boolean).join(', ');
  const stop = stopText(report, 'run it again to resume');
  services.output.info(`${ACTION}: ${parts}.${stop} ${spentText(budget, report.model)}`);
  const first = report.written[0];
  const message = `${ACTION}: ${parts}.${stop}`;
  const buttons = first ? ['Open Page'] : [];
  void (report.stopped?.reason === 'failed' ? vscode.window.showWarningMessage(message, ...buttons) : vscode.window.showInformationMessage(message, ...buttons))
    .then((choice) => {
      if (choice && first) void vscode.window.showTextDocument(vscode.Uri.file(wiki.pagePath(first)));
    });
}

/** Why a run stopped early, if it did, and what to do next. */
function stopText(report: Pick<GenerateReport, 'stopped' | 'notAttempted'>, next: string): string {
  switch (report.stopped?.reason) {
    case 'budget': return ` Stopped before the budget ran out: ${report.notAttempted.length} page(s) not attempted; raise repoWiki.generate.budget and ${next}.`;
    case 'cancelled': return ` Cancelled: the pages accepted stay; ${next}.`;
    case 'failed': return ` Stopped, the model failed: ${report.stopped.message} The pages accepted stay; ${next}.`;
    default: return '';
  }
}

function spentText(budget: TokenBudget, model: string): string {
  return `${budget.requests} request(s), ${budget.inputTokens} input and ${budget.outputTokens} output tokens of ${budget.limit} (${model}).`;
}

function reportFailure(services: Services, error: unknown, action = ACTION): void {
  if (error instanceof RunFailedError) {
    // The pages accepted before the failure were written and the run logged.
    services.output.warn(`${action}: stopped midway; the pages accepted before it stay, and the run is logged.`);
    showError(services.output, action, error.failure);
    return;
  }
  if (isLlmError(error)) {
    if (error.kind === 'cancelled') {
      void vscode.window.showInformationMessage(`${action}: cancelled; the pages accepted stay.`);
      return;
    }
    services.output.warn(`${action}: ${error.message}`);
    const fix = error.kind === 'auth' ? 'Set up a model' : undefined;
    void vscode.window.showErrorMessage(`${action} failed: ${error.message}`, ...(fix ? [fix] : []))
      .then((choice) => choice && vscode.commands.executeCommand('repoWiki.setUpModel'));
    return;
  }
  showError(services.output, action, error);
}
