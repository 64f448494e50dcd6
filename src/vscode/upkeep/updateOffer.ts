import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DriftIssue } from '../../core/drift/driftEngine';
import { decideUpdateOffer, pagesToUpdate, updateOfferMessage, type UpdateOffer } from '../../core/upkeep/updateOffer';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';

export const PROPOSE_UPDATES = 'Propose updates';
export const NOT_NOW = 'Not now';

/** Asks whether to propose updates: the button chosen, or undefined when dismissed. Tests replace the notification. */
export type OfferAsker = (message: string, pages: readonly string[]) => Thenable<string | undefined>;

const notification: OfferAsker = (message) => vscode.window.showInformationMessage(message, PROPOSE_UPDATES, NOT_NOW);
let ask: OfferAsker = notification;

/** For integration tests: answer the offer without the notification. */
export function setOfferAsker(next: OfferAsker | undefined): void {
  ask = next ?? notification;
}

/** The pages last offered per wiki, so a dismissed offer is not repeated for the same pages. */
const offeredKey = (root: string) => `repoWiki.upkeep.updatesOffered:${root}`;

/**
 * After a scheduled upkeep: when pages drifted in ways an update can fix, and a model is set up,
 * a non-modal "N pages drifted: propose updates?". "Propose updates" runs the reviewed update
 * command; nothing is applied from here. The notification is not awaited: the schedule goes on.
 */
export async function offerUpdates(context: vscode.ExtensionContext, services: Services, wiki: Wiki, issues: readonly DriftIssue[]): Promise<UpdateOffer> {
  const drifted = pagesToUpdate(issues);
  // Only asked when something drifted: a VS Code model is looked up, not only a key.
  const modelAvailable = drifted.length > 0 && (await services.models.available());
  const decision = decideUpdateOffer(drifted, context.workspaceState.get<string[]>(offeredKey(wiki.root)) ?? [], modelAvailable);
  await context.workspaceState.update(offeredKey(wiki.root), decision.remember);
  if (!decision.offer) {
    // In the background a missing model is no reason for a notification; the output says what to set up.
    if (decision.why === 'no-model') services.output.info(`Upkeep: ${decision.pages.length} page(s) drifted in ways the librarian could update; set up a model ("Repo Wiki: Set up a model…", setting repoWiki.llm.model) to have it propose the updates.`);
    return decision;
  }
  const folder = (await services.wikis.existing()).length > 1 ? path.basename(wiki.root) : undefined;
  void Promise.resolve(ask(updateOfferMessage(decision.pages.length, folder), decision.pages)).then(
    (choice) => choice === PROPOSE_UPDATES && vscode.commands.executeCommand('repoWiki.updateDriftedPages', wiki.root),
  ).then(undefined, (error: unknown) => services.output.error('Proposing updates after upkeep:', error));
  return decision;
}
