import * as vscode from 'vscode';
import type { Services } from '../services/services';
import { PagesTreeProvider } from './pagesTree';

export const pagesFeature = {
  activate(context: vscode.ExtensionContext, services: Services): void {
    const provider = new PagesTreeProvider(services);
    const view = vscode.window.createTreeView('repoWiki.pages', { treeDataProvider: provider, showCollapseAll: true });
    // A change while the view is hidden refreshes it once it is shown: a hidden view runs no git log,
    // and a tree refreshed while hidden could show its groups expanded with nothing under them.
    // (Before it is first shown there is nothing to refresh: showing it fetches everything.)
    let shown = view.visible;
    let missed = false;
    const refresh = () => {
      if (view.visible) provider.refresh();
      else missed = shown;
    };
    context.subscriptions.push(
      view,
      view.onDidChangeVisibility(({ visible }) => {
        if (!visible) return;
        if (missed) provider.refresh();
        shown = true;
        missed = false;
      }),
      services.snapshots.onDidUpdate((snapshot) => {
        services.ages.invalidate(snapshot.wiki.root);
        refresh();
      }),
      services.ages.onDidChange(refresh),
      services.proposals.onDidChange(refresh),
      vscode.workspace.onDidChangeWorkspaceFolders(refresh),
      vscode.commands.registerCommand('repoWiki.refreshPages', async () => {
        await services.snapshots.reloadAll();
        await services.wikis.refreshContext();
        provider.refresh();
      }),
    );
  },
};
