import * as vscode from 'vscode';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

/**
 * Keeps index.json/index.md current when pages change, which also repairs an index left
 * missing, unparsable or with merge conflict markers. Writes only in a trusted workspace.
 */
export const indexFeature = {
  activate(context: vscode.ExtensionContext, services: Services): void {
    const enabled = () => vscode.workspace.getConfiguration('repoWiki.index').get<boolean>('rebuildOnChange', true);
    const reported = new Set<string>();
    context.subscriptions.push(
      services.snapshots.onDidUpdate(async (snapshot) => {
        if (!snapshot.exists || !vscode.workspace.isTrusted || !enabled()) return;
        try {
          const conflicted = await snapshot.wiki.conflictedIndexFiles();
          // Rebuilt from the pages on disk under the write lock, not from this snapshot: another process may have written since.
          const { changed } = await snapshot.wiki.rebuildIndex();
          if (changed) services.output.info(`Regenerated the index of ${snapshot.wiki.root} (${snapshot.pages.length} pages).`);
          if (conflicted.length) void offerMergeDriver(conflicted);
          reported.delete(snapshot.wiki.root);
        } catch (error) {
          // Report a failing folder once, not on every change.
          if (reported.has(snapshot.wiki.root)) return;
          reported.add(snapshot.wiki.root);
          showError(services.output, 'Updating the wiki index', error);
        }
      }),
      vscode.commands.registerCommand('repoWiki.repairIndex', async () => {
        if (!ensureTrusted('Repairing the index')) return undefined;
        const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Repair wiki index after a merge' });
        if (!wiki) return undefined;
        try {
          const conflicted = await wiki.conflictedIndexFiles();
          const { index, repaired } = await wiki.loadIndex();
          const { changed } = await wiki.rebuildIndex();
          const what = conflicted.length ? `${conflicted.join(' and ')} had merge conflict markers` : repaired ? `index.json was ${repaired}` : changed ? 'the index was out of date' : 'the index was already current';
          void vscode.window.showInformationMessage(`Repo Wiki: ${what}; it now lists ${index.pages.length} pages, regenerated from .wiki/pages.`);
          return { conflicted, repaired: repaired ?? (changed ? 'outdated' : undefined), pages: index.pages.length };
        } catch (error) {
          showError(services.output, 'Repairing the index', error);
          return undefined;
        }
      }),
    );
  },
};

/** Says the index was repaired, and offers the driver that avoids such conflicts next time. */
async function offerMergeDriver(conflicted: string[]): Promise<void> {
  const install = 'Install merge driver';
  const choice = await vscode.window.showInformationMessage(
    `Repo Wiki: ${conflicted.join(' and ')} had merge conflict markers; regenerated from the pages. Commit the result with the merge. The index merge driver merges them page by page, so this conflict does not happen again.`,
    install,
  );
  if (choice === install) await vscode.commands.executeCommand('repoWiki.installMergeDriver');
}
