import * as path from 'node:path';
import * as vscode from 'vscode';
import { addMcpServer, MCP_SERVER_NAME } from '../../core/agents/mcpConfig';
import { isNotAFile } from '../../core/errors';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

/** "Add the wiki's MCP server to this workspace": merges the server into .vscode/mcp.json, never clobbering it. */
export async function addMcpServerToWorkspace(services: Services): Promise<{ file: string; outcome: 'added' | 'present' } | undefined> {
  if (!ensureTrusted('Adding the MCP server')) return undefined;
  const wiki = await services.wikis.pick({ mustExist: true, purpose: 'Add the wiki\'s MCP server' });
  if (!wiki) return undefined;
  const files = services.wikis.filesOf(wiki);
  const file = path.join(wiki.root, '.vscode', 'mcp.json');
  try {
    let existing: string | undefined;
    try {
      existing = new TextDecoder().decode(await files.readFile(file, { maxBytes: 1024 * 1024 }));
    } catch (error) {
      if (!isNotAFile(error)) throw error;
    }
    const { text, outcome } = addMcpServer(existing);
    if (outcome === 'added') {
      await files.mkdir(path.dirname(file));
      await files.writeFileAtomic(file, text);
    }
    const what = outcome === 'added' ? `Added the "${MCP_SERVER_NAME}" MCP server to .vscode/mcp.json` : `.vscode/mcp.json already has a "${MCP_SERVER_NAME}" server; it was left as it is`;
    void vscode.window.showInformationMessage(`Repo Wiki: ${what}. Agents in VS Code can now search and read the wiki.`, 'Open mcp.json')
      .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(file)));
    return { file, outcome };
  } catch (error) {
    showError(services.output, 'Adding the MCP server', error);
    return undefined;
  }
}
