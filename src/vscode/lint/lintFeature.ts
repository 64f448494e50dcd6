import type * as vscode from 'vscode';
import type { Feature, Services } from '../services/services';
import { activateLibrarianLint } from './librarianLint';
import { activateLintDiagnostics } from './lintDiagnostics';

/** Lint: the rules' issues as diagnostics ("Lint wiki"), and the librarian's LLM pass with its fixes. */
export const lintFeature = {
  activate(context: vscode.ExtensionContext, services: Services) {
    activateLintDiagnostics(context, services);
    return activateLibrarianLint(context, services);
  },
} satisfies Feature;
