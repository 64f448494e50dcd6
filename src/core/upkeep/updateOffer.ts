import type { DriftIssue } from '../drift/driftEngine';
import { REVISITED } from '../generate/update';
import { isEmptyPlan, upkeepSummary, type UpkeepPlan } from './upkeep';

/** The pages (paths relative to the workspace) with drift `generate --update` revisits, sorted. */
export function pagesToUpdate(issues: readonly DriftIssue[]): string[] {
  return [...new Set(issues.filter((issue) => REVISITED.includes(issue.code)).map((issue) => issue.page))].sort();
}

export type UpdateOffer =
  /** Ask: these pages drifted, some since the last offer. */
  | { offer: true; pages: string[]; remember: string[] }
  /** Do not ask: nothing drifted, every drifted page was offered before, or no model is set up. */
  | { offer: false; why: 'nothing-drifted' | 'offered-before' | 'no-model'; pages: string[]; remember: string[] };

/**
 * Whether upkeep's background run offers to propose updates, and which pages to remember as
 * offered. It asks only when a page drifted that was not in the last offer, so "Not now" is not
 * asked again for the same pages, nor for fewer. A page that stops drifting is forgotten: when it
 * drifts again, that is news. Without a model nothing is offered, and nothing is remembered, so
 * the offer comes once one is set up.
 */
export function decideUpdateOffer(drifted: readonly string[], offeredBefore: readonly string[], modelAvailable: boolean): UpdateOffer {
  const pages = [...new Set(drifted)].sort();
  const stillDrifted = offeredBefore.filter((page) => pages.includes(page));
  if (!pages.length) return { offer: false, why: 'nothing-drifted', pages, remember: [] };
  if (pages.every((page) => stillDrifted.includes(page))) return { offer: false, why: 'offered-before', pages, remember: stillDrifted };
  if (!modelAvailable) return { offer: false, why: 'no-model', pages, remember: stillDrifted };
  return { offer: true, pages, remember: pages };
}

/** "3 pages drifted: propose updates?" */
export function updateOfferMessage(pages: number, folder?: string): string {
  return `${pages} wiki page${pages === 1 ? '' : 's'} drifted${folder ? ` in ${folder}` : ''}: propose updates?`;
}

/** The status bar after a scheduled run: what upkeep changed, and the drifted pages only an update can fix. */
export function upkeepStatusMessage(plan: UpkeepPlan, driftedPages: number): string {
  const drifted = driftedPages ? `${driftedPages} page${driftedPages === 1 ? '' : 's'} drifted` : '';
  if (isEmptyPlan(plan)) return drifted ? `${drifted}, nothing else to change` : 'nothing to change';
  return drifted ? `${upkeepSummary(plan)}; ${drifted}` : upkeepSummary(plan);
}
