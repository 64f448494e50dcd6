import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LintIssue, Severity } from '../../core/model';
import type { Services } from '../services';
import type { WikiSnapshot } from '../wikiSnapshots';

export const DIAGNOSTIC_SOURCE = 'repo-wiki';

type SeveritySetting = 'error' | 'warning' | 'information' | 'hint' | 'off';

const SEVERITIES: Record<Exclude<SeveritySetting, 'off'> | Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  info: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** The one mapping from core lint issues to VS Code diagnostics; undefined when the user turned the code off. */
export function toDiagnostic(issue: LintIssue, overrides: Record<string, SeveritySetting>): vscode.Diagnostic | undefined {
  const override = overrides[issue.code];
  if (override === 'off') return undefined;
  const range = new vscode.Range(issue.range.start.line, issue.range.start.character, issue.range.end.line, issue.range.end.character);
  const diagnostic = new vscode.Diagnostic(range, issue.message, SEVERITIES[override ?? issue.severity] ?? SEVERITIES[issue.severity]);
  diagnostic.source = DIAGNOSTIC_SOURCE;
  diagnostic.code = issue.code;
  return diagnostic;
}

/** Publishes each wiki's lint issues on its pages in the Problems panel. */
export class LintDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('repo-wiki-lint');
  private readonly published = new Map<string, vscode.Uri[]>();

  publish(snapshot: WikiSnapshot): void {
    const overrides = vscode.workspace.getConfiguration('repoWiki.lint').get<Record<string, SeveritySetting>>('severities') ?? {};
    for (const uri of this.published.get(snapshot.wiki.root) ?? []) this.collection.delete(uri);
    const byPage = new Map<string, vscode.Diagnostic[]>();
    for (const issue of snapshot.issues) {
      const diagnostic = toDiagnostic(issue, overrides);
      if (!diagnostic) continue;
      byPage.set(issue.page, [...(byPage.get(issue.page) ?? []), diagnostic]);
    }
    const uris: vscode.Uri[] = [];
    for (const [page, diagnostics] of byPage) {
      const uri = vscode.Uri.file(path.join(snapshot.wiki.root, page));
      this.collection.set(uri, diagnostics);
      uris.push(uri);
    }
    this.published.set(snapshot.wiki.root, uris);
  }

  dispose(): void {
    this.collection.dispose();
  }
}

export const lintFeature = {
  activate(context: vscode.ExtensionContext, services: Services): void {
    const diagnostics = new LintDiagnostics();
    const runOnChange = () => vscode.workspace.getConfiguration('repoWiki.lint').get<boolean>('runOnChange', true);
    context.subscriptions.push(
      diagnostics,
      services.snapshots.onDidUpdate((snapshot) => {
        if (runOnChange()) diagnostics.publish(snapshot);
      }),
      vscode.workspace.onDidChangeConfiguration(async (event) => {
        if (!event.affectsConfiguration('repoWiki.lint')) return;
        for (const wiki of services.wikis.all()) diagnostics.publish(await services.snapshots.get(wiki));
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
          return;
        }
        for (const snapshot of present) diagnostics.publish(snapshot);
        const count = present.reduce((sum, snapshot) => sum + snapshot.issues.length, 0);
        const pages = present.reduce((sum, snapshot) => sum + snapshot.pages.length, 0);
        const message = count ? `Repo Wiki: ${count} lint issue${count === 1 ? '' : 's'} in ${pages} pages.` : `Repo Wiki: ${pages} pages, no lint issues.`;
        void vscode.window.showInformationMessage(message, ...(count ? ['Show Problems'] : []))
          .then((choice) => choice && vscode.commands.executeCommand('workbench.actions.view.problems'));
        return { issues: count, pages };
      }),
    );
    // First publication at activation; later ones follow changes.
    void Promise.all(services.wikis.all().map((wiki) => services.snapshots.get(wiki))).then((snapshots) => {
      for (const snapshot of snapshots) diagnostics.publish(snapshot);
    });
  },
};
