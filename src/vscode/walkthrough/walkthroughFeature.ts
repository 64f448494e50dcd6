import * as vscode from 'vscode';
import { DRIFT_CODES } from '../../core/drift/driftCodes';
import { DIAGNOSTIC_SOURCE } from '../common/diagnostics';
import type { Services } from '../services/services';
import type { WikiSnapshot } from '../services/wikiSnapshots';

/** The walkthrough's id as VS Code names it: publisher.name#id. */
export const WALKTHROUGH_ID = 'repo-wiki.repo-wiki#getStarted';
const DRIFT = new Set<string>(DRIFT_CODES);

/**
 * "Get started with Repo Wiki": the steps complete on context keys that say the user really did
 * each thing (a wiki with pages, a page filed from a conversation, drift in the Problems panel);
 * `repoWiki.hasWiki` comes from WorkspaceWikis and `repoWiki.askedQuestion` from the chat.
 */
export const walkthroughFeature = {
  activate(context: vscode.ExtensionContext, services: Services) {
    const withPages = new Set<string>();
    const withFiledConversation = new Set<string>();
    const driftUris = new Set<string>();
    const setContext = (key: string, value: boolean) => vscode.commands.executeCommand('setContext', key, value);
    const follow = (snapshot: WikiSnapshot) => {
      const root = snapshot.wiki.root;
      toggle(withPages, root, snapshot.pages.length > 0);
      toggle(withFiledConversation, root, snapshot.pages.some((page) => page.frontmatter.sources?.some((source) => source.startsWith('conversation:'))));
      void setContext('repoWiki.hasPages', withPages.size > 0);
      void setContext('repoWiki.hasFiledConversation', withFiledConversation.size > 0);
    };
    const followDiagnostics = (uris: readonly vscode.Uri[]) => {
      for (const uri of uris) {
        toggle(driftUris, uri.toString(), vscode.languages.getDiagnostics(uri).some((d) => d.source === DIAGNOSTIC_SOURCE && DRIFT.has(String(d.code))));
      }
      void setContext('repoWiki.hasDriftIssues', driftUris.size > 0);
    };
    context.subscriptions.push(
      services.snapshots.onDidUpdate(follow),
      vscode.languages.onDidChangeDiagnostics((event) => followDiagnostics(event.uris)),
      vscode.commands.registerCommand('repoWiki.getStarted', () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)),
    );
    void services.wikis.existing().then(
      (wikis) => Promise.all(wikis.map(async (wiki) => follow(await services.snapshots.get(wiki)))),
      (error: unknown) => services.output.warn(`Walkthrough: could not read the wikis: ${error instanceof Error ? error.message : String(error)}`),
    );
  },
};

function toggle(set: Set<string>, key: string, present: boolean): void {
  if (present) set.add(key);
  else set.delete(key);
}
