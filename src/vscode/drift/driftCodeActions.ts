import * as vscode from 'vscode';
import { DRIFT_CODES, DriftCode } from '../../core/drift/driftCodes';
import type { DriftIssue } from '../../core/drift/driftEngine';
import { relocatedCitation } from '../../core/drift/relocation';
import { DIAGNOSTIC_SOURCE } from '../common/diagnostics';
import type { DriftService } from './driftService';

/** Quick fixes for drift diagnostics, keyed on the diagnostic code. */
export class DriftCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly drift: DriftService) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      const code = String(diagnostic.code);
      if (diagnostic.source !== DIAGNOSTIC_SOURCE || !DRIFT_CODES.includes(code as DriftCode)) continue;
      const issue = this.drift.issueAt(document.uri, diagnostic.range, code);
      if (!issue) continue;
      const citation = issue.data.citation;
      const action = (title: string, command: string, args: unknown[], preferred = false) => {
        const fix = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        fix.diagnostics = [diagnostic];
        fix.isPreferred = preferred;
        fix.command = { title, command, arguments: args };
        actions.push(fix);
      };
      const movedTo = code === DriftCode.MovedSymbol ? relocatedCitation(issue) : undefined;
      if (movedTo) action(`Update citation to ${movedTo}`, 'repoWiki.relocateCitation', [document.uri, citation, movedTo], true);
      if (code === DriftCode.RenamedSymbol && issue.data.renamedTo) {
        action(`Update citation to ${issue.data.movedTo ? currentCitation(issue) : issue.data.renamedTo}`, 'repoWiki.relocateCitation', [document.uri, citation, currentCitation(issue), issue.data.anchor], true);
      }
      if (code === DriftCode.SignatureChanged || code === DriftCode.BodyChanged) {
        action('Show what changed', 'repoWiki.showWhatChanged', [document.uri, citation]);
      }
      if (code === DriftCode.SignatureChanged || code === DriftCode.BodyChanged || code === DriftCode.Unverified) {
        action('Mark as reviewed (record the current fingerprint)', 'repoWiki.stampCitation', [document.uri, citation], code === DriftCode.Unverified);
      }
      if (code !== DriftCode.MissingFile && code !== DriftCode.OutsideWorkspace && code !== DriftCode.MissingSymbol && code !== DriftCode.UnreadableFile) {
        action(`Open ${issue.data.renamedTo ?? issue.data.symbol ?? issue.data.path}`, 'repoWiki.openCitation', [document.uri, currentCitation(issue)]);
      }
      if (code !== DriftCode.Unverified) {
        action('Mark page as stale…', 'repoWiki.markStale', [document.uri, `${citation}: ${diagnostic.message}`]);
      }
    }
    return actions;
  }
}

/** Where the cited code is now: after a move or a rename, the new place. */
function currentCitation(issue: DriftIssue): string {
  return relocatedCitation(issue) ?? issue.data.citation;
}
