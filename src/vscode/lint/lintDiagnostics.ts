import * as vscode from 'vscode';
import { FolderDiagnostics } from '../common/diagnostics';
import type { Services } from '../services/services';

/** Lint issues of every page as diagnostics, republished when a wiki changes; the "Lint wiki" command. */
export function activateLintDiagnostics(context: vscode.ExtensionContext, services: Services): void {
  const diagnostics = new FolderDiagnostics('repo-wiki-lint', 'repoWiki.lint.severities');
  const runOnChange = () => vscode.workspace.getConfiguration('repoWiki.lint').get<boolean>('runOnChange', true);
  context.subscriptions.push(
    diagnostics,
    services.snapshots.onDidUpdate((snapshot) => {
      if (runOnChange()) diagnostics.publish(snapshot.wiki.root, snapshot.issues);
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('repoWiki.lint')) return;
      for (const wiki of services.wikis.all()) diagnostics.publish(wiki.root, (await services.snapshots.get(wiki)).issues);
    }),
    vscode.commands.registerCommand('repoWiki.lint', async () => {
      const snapshots = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Repo Wiki: linting' },
        () => services.snapshots.reloadAll(),
      );
      const present = snapshots.filter((snapshot) => snapshot.exists);
      if (!present.length) {
        void vscode.window.showWarningMessage('This workspace has no wiki to lint.', 'Initialise wiki')
          .then((choice) => choice && vscode.commands.executeCommand('repoWiki.init'));
        return undefined;
      }
      for (const snapshot of present) diagnostics.publish(snapshot.wiki.root, snapshot.issues);
      const count = present.reduce((sum, snapshot) => sum + snapshot.issues.length, 0);
      const pages = present.reduce((sum, snapshot) => sum + snapshot.pages.length, 0);
      const message = count ? `Repo Wiki: ${count} lint issue${count === 1 ? '' : 's'} in ${pages} pages.` : `Repo Wiki: ${pages} pages, no lint issues.`;
      void vscode.window.showInformationMessage(message, ...(count ? ['Show Problems'] : []))
        .then((choice) => choice && vscode.commands.executeCommand('workbench.panel.markers.view.focus'));
      if (vscode.workspace.getConfiguration('repoWiki.lint.llm').get<boolean>('enabled', false)) {
        void vscode.commands.executeCommand('repoWiki.lintWithLibrarian');
      }
      return { issues: count, pages };
    }),
  );
  // First publication at activation; later ones follow changes.
  void Promise.all(services.wikis.all().map((wiki) => services.snapshots.get(wiki))).then((snapshots) => {
    for (const snapshot of snapshots) diagnostics.publish(snapshot.wiki.root, snapshot.issues);
  });
}
