import * as vscode from 'vscode';
import { UPKEEP_DEFAULTS } from '../../core/defaults';
import { lastChanged } from '../../core/pages/pageAge';
import { isUpkeepInterval, upkeepDue, type UpkeepInterval } from '../../core/upkeep/schedule';
import { isEmptyPlan, runUpkeep, upkeepSummary, type UpkeepRun } from '../../core/upkeep/upkeep';
import { upkeepStatusMessage, type UpdateOffer } from '../../core/upkeep/updateOffer';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';
import { offerUpdates, setOfferAsker } from './updateOffer';

/** Integration tests wait for a scheduled run, and answer its offer to propose updates, through this. */
export interface UpkeepHooks {
  lastRun(root: string): { at: number; run: UpkeepRun } | undefined;
  /** What the last scheduled run decided about offering updates. */
  lastOffer(root: string): UpdateOffer | undefined;
  setOfferAsker: typeof setOfferAsker;
}

const CHECK_EVERY_MS = 60 * 60 * 1000;
/** After startup, so upkeep never competes with opening the window. Tests shorten it. */
const FIRST_CHECK_MS = Number(process.env.REPO_WIKI_UPKEEP_DELAY_MS) || 60_000;
const lastRunKey = (root: string) => `repoWiki.upkeep.lastRun:${root}`;

/**
 * Upkeep in the editor: "Run wiki upkeep now", and a schedule (`repoWiki.upkeep.interval`) that
 * runs it in the background, in trusted workspaces only, with a status-bar message. The last run
 * per wiki is remembered in workspace state, so a daily upkeep runs once a day however often the
 * window is reopened. After a scheduled run, pages whose cited code changed can be offered to the
 * librarian for updates (./updateOffer.ts), never applied without review.
 */
export const upkeepFeature = {
  activate(context: vscode.ExtensionContext, services: Services): { upkeep: UpkeepHooks } {
    const runs = new Map<string, { at: number; run: UpkeepRun }>();
    const offers = new Map<string, UpdateOffer>();
    const running = new Set<string>();

    const upkeep = async (wiki: Wiki, progress?: vscode.Progress<{ message?: string }>): Promise<UpkeepRun | undefined> => {
      if (running.has(wiki.root)) return undefined; // one run per wiki at a time; the write lock covers other windows
      running.add(wiki.root);
      try {
        progress?.report({ message: 'checking citations…' });
        const archiveAfterDays = vscode.workspace.getConfiguration('repoWiki.upkeep', vscode.Uri.file(wiki.root)).get<number>('archiveAfterDays') ?? UPKEEP_DEFAULTS.archiveAfterDays;
        const run = await runUpkeep(wiki, {
          check: () => services.cores.of(wiki).drift.check({ fresh: true }),
          lastChanged: async () => lastChanged(await services.ages.history(wiki)),
        }, { today: new Date().toISOString().slice(0, 10), archiveAfterDays, dryRun: false });
        const at = Date.now();
        await context.workspaceState.update(lastRunKey(wiki.root), at);
        if (run.result?.pages.length) {
          services.ages.invalidate(wiki.root);
          services.wikis.notifyChanged(wiki);
        }
        services.output.info(`Upkeep of ${wiki.root}: ${upkeepSummary(run.plan)}.`);
        runs.set(wiki.root, { at, run });
        return run;
      } finally {
        running.delete(wiki.root);
      }
    };

    const scheduled = async () => {
      const setting = vscode.workspace.getConfiguration('repoWiki.upkeep').get<string>('interval');
      const interval: UpkeepInterval = isUpkeepInterval(setting) ? setting : 'daily';
      if (!vscode.workspace.isTrusted || interval === 'off') return;
      for (const wiki of await services.wikis.existing()) {
        if (!upkeepDue(interval, context.workspaceState.get<number>(lastRunKey(wiki.root)), Date.now())) continue;
        const status = vscode.window.setStatusBarMessage('$(sync~spin) Repo Wiki: upkeep…');
        try {
          const run = await upkeep(wiki);
          if (run) {
            // At most one offer per run, and none for pages already offered.
            const offer = await offerUpdates(context, services, wiki, run.issues);
            offers.set(wiki.root, offer);
            vscode.window.setStatusBarMessage(`$(check) Repo Wiki upkeep: ${upkeepStatusMessage(run.plan, offer.pages.length)}`, 15_000);
          }
          // The librarian's check is advice, never a status change; it runs only when enabled, within its caps and minAgeDays.
          if (run && vscode.workspace.getConfiguration('repoWiki.lint.llm', vscode.Uri.file(wiki.root)).get<boolean>('enabled')) {
            await vscode.commands.executeCommand('repoWiki.lintWithLibrarian', { root: wiki.root, background: true });
          }
        } catch (error) {
          // In the background: log it and say so in the status bar, never a modal.
          services.output.error(`Scheduled upkeep of ${wiki.root}:`, error instanceof Error ? (error.stack ?? error.message) : String(error));
          vscode.window.setStatusBarMessage('$(warning) Repo Wiki upkeep failed; see the Repo Wiki output', 15_000);
        } finally {
          status.dispose();
        }
      }
    };
    const tick = () => void scheduled().catch((error: unknown) => services.output.error('Scheduled upkeep:', error));
    const firstCheck = setTimeout(tick, FIRST_CHECK_MS);
    const hourlyCheck = setInterval(tick, CHECK_EVERY_MS);
    context.subscriptions.push(
      { dispose: () => (clearTimeout(firstCheck), clearInterval(hourlyCheck)) },
      vscode.commands.registerCommand('repoWiki.upkeep', async () => {
        if (!ensureTrusted('Wiki upkeep')) return undefined;
        const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Run wiki upkeep' });
        if (!wiki) return undefined;
        try {
          const run = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Repo Wiki upkeep' }, (progress) => upkeep(wiki, progress));
          if (!run) {
            void vscode.window.showInformationMessage('Repo Wiki upkeep is already running for this wiki.');
            return undefined;
          }
          const message = isEmptyPlan(run.plan) ? `Repo Wiki upkeep: nothing to change in ${run.pagesChecked} pages.` : `Repo Wiki upkeep: ${upkeepSummary(run.plan)}. The log records which pages.`;
          void vscode.window.showInformationMessage(message);
          return run;
        } catch (error) {
          showError(services.output, 'Wiki upkeep', error);
          return undefined;
        }
      }),
    );
    return { upkeep: { lastRun: (root) => runs.get(root), lastOffer: (root) => offers.get(root), setOfferAsker } };
  },
};
