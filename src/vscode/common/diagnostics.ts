import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LintIssue, Severity } from '../../core/model';

export const DIAGNOSTIC_SOURCE = 'repo-wiki';

export type SeveritySetting = 'error' | 'warning' | 'information' | 'hint' | 'off';

const SEVERITIES: Record<Exclude<SeveritySetting, 'off'> | Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  info: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** The one mapping from core issues to VS Code diagnostics; undefined when the user turned the code off. */
export function toDiagnostic(issue: LintIssue, overrides: Record<string, SeveritySetting>): vscode.Diagnostic | undefined {
  const override = overrides[issue.code];
  if (override === 'off') return undefined;
  const range = new vscode.Range(issue.range.start.line, issue.range.start.character, issue.range.end.line, issue.range.end.character);
  const diagnostic = new vscode.Diagnostic(range, issue.message, SEVERITIES[override ?? issue.severity] ?? SEVERITIES[issue.severity]);
  diagnostic.source = DIAGNOSTIC_SOURCE;
  diagnostic.code = issue.code;
  return diagnostic;
}

/** A diagnostic collection whose entries are replaced per workspace folder. */
export class FolderDiagnostics implements vscode.Disposable {
  private readonly collection: vscode.DiagnosticCollection;
  private readonly published = new Map<string, Set<string>>();

  constructor(name: string, private readonly severitySetting: string) {
    this.collection = vscode.languages.createDiagnosticCollection(name);
  }

  /** Replaces the folder's diagnostics with these. */
  publish(root: string, issues: readonly LintIssue[]): void {
    const [section, key] = splitSetting(this.severitySetting);
    const overrides = vscode.workspace.getConfiguration(section).get<Record<string, SeveritySetting>>(key) ?? {};
    for (const page of this.published.get(root) ?? []) this.collection.delete(vscode.Uri.file(path.join(root, page)));
    const byPage = new Map<string, vscode.Diagnostic[]>();
    for (const issue of issues) {
      const diagnostic = toDiagnostic(issue, overrides);
      if (diagnostic) byPage.set(issue.page, [...(byPage.get(issue.page) ?? []), diagnostic]);
    }
    for (const [page, diagnostics] of byPage) this.collection.set(vscode.Uri.file(path.join(root, page)), diagnostics);
    this.published.set(root, new Set(byPage.keys()));
  }

  dispose(): void {
    this.collection.dispose();
  }
}

function splitSetting(setting: string): [string, string] {
  const dot = setting.lastIndexOf('.');
  return [setting.slice(0, dot), setting.slice(dot + 1)];
}
