import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CitedCode } from '../../core/drift/driftBackend';
import type { CodeLocation } from '../../core/drift/driftEngine';
import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';

/**
 * Where a citation's code is now, through the folder's drift backend (the drift worker); undefined when it does not resolve.
 * A refused file (a link out, a FIFO) does not resolve either: the refusal goes to the log.
 */
export async function locateCitation(services: Pick<Services, 'cores' | 'output'>, wiki: Wiki, citation: CitedCode): Promise<CodeLocation | undefined> {
  try {
    return await services.cores.of(wiki).drift.locate(citation);
  } catch (error) {
    services.output.debug(`${citation.path}${citation.symbol ? `:${citation.symbol}` : ''} does not resolve: ${(error as Error).message}`);
    return undefined;
  }
}

/** Opens cited code where it is: a declaration at its first line, a line range or a key selected, a folder revealed in the Explorer. */
export async function showCodeLocation(root: string, found: CodeLocation, options: { preview?: boolean } = {}): Promise<void> {
  const uri = vscode.Uri.file(path.join(root, found.path));
  if (found.folder) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
    return;
  }
  const end = found.endLine === undefined ? new vscode.Position(found.line, 0) : new vscode.Position(found.endLine, Number.MAX_SAFE_INTEGER);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(new vscode.Position(found.line, 0), end), ...options });
}
