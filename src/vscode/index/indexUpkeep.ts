import * as vscode from 'vscode';
import type { Services } from '../services';
import { showError } from '../userErrors';

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
          const { changed } = await snapshot.wiki.rebuildIndex(snapshot.pages);
          if (changed) services.output.info(`Regenerated the index of ${snapshot.wiki.root} (${snapshot.pages.length} pages).`);
          reported.delete(snapshot.wiki.root);
        } catch (error) {
          // Report a failing folder once, not on every change.
          if (reported.has(snapshot.wiki.root)) return;
          reported.add(snapshot.wiki.root);
          showError(services.output, 'Updating the wiki index', error);
        }
      }),
    );
  },
};
