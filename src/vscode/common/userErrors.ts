import * as vscode from 'vscode';
import { WikiError } from '../../core/errors';

/** Shows an error so the user knows what happened and what to do; logs the detail. */
export function showError(output: vscode.LogOutputChannel, action: string, error: unknown): void {
  if (error instanceof WikiError) {
    output.warn(`${action}: ${error.message}`);
    void vscode.window.showErrorMessage(`${action} failed: ${error.userMessage}`);
    return;
  }
  output.error(`${action}:`, error instanceof Error ? (error.stack ?? error.message) : String(error));
  void vscode.window.showErrorMessage(`${action} failed: ${error instanceof Error ? error.message : String(error)}`, 'Show Log')
    .then((choice) => choice && output.show());
}

/** In Restricted Mode nothing writes: say so and return false. */
export function ensureTrusted(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(
    `${action} is not available in Restricted Mode: Repo Wiki writes nothing until you trust this workspace.`,
    'Manage Workspace Trust',
  ).then((choice) => choice && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}
