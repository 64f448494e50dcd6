import * as path from 'node:path';
import * as vscode from 'vscode';
import { addMcpServer, MCP_SERVER_ENTRY, MCP_SERVER_NAME } from '../../core/agents/mcpConfig';
import { isNotAFile } from '../../core/errors';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

export type McpServerOutcome = 'added' | 'present' | 'replaced' | 'kept';

/**
 * "Add the wiki's MCP server to this workspace": merges the server into .vscode/mcp.json, never
 * clobbering it. An entry of the same name that runs something else came with the repository (or
 * from a person): it is shown, and replaced only when the person says so.
 */
export async function addMcpServerToWorkspace(services: Services): Promise<{ file: string; outcome: McpServerOutcome } | undefined> {
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
    const plan = addMcpServer(existing);
    let outcome: McpServerOutcome = plan.outcome === 'different' ? 'kept' : plan.outcome;
    if (plan.outcome === 'different') {
      const ours = [MCP_SERVER_ENTRY.command, ...MCP_SERVER_ENTRY.args].join(' ');
      const choice = await vscode.window.showWarningMessage(
        `.vscode/mcp.json already has a "${MCP_SERVER_NAME}" server, and it is not Repo Wiki's. Replace it?`,
        {
          modal: true,
          detail: `It runs:\n${plan.existing}\n\nRepo Wiki's runs:\n${ours}\n\nAn entry in a repository's .vscode/mcp.json can run any command on this machine, and it came with the repository or from someone's edit. Keep it only if you know what it is.`,
        },
        'Replace',
        'Keep',
      );
      if (choice === 'Replace') {
        await files.writeFileAtomic(file, plan.replaced);
        outcome = 'replaced';
      } else {
        services.output.info(`Kept the "${MCP_SERVER_NAME}" entry of ${file}, which runs: ${plan.existing}`);
      }
    } else if (plan.outcome === 'added') {
      await files.mkdir(path.dirname(file));
      await files.writeFileAtomic(file, plan.text);
    }
    if (outcome === 'kept') {
      void vscode.window.showWarningMessage(`Repo Wiki: the "${MCP_SERVER_NAME}" entry of .vscode/mcp.json was kept as it is, so agents in VS Code reach whatever it runs, not Repo Wiki's server.`, 'Open mcp.json')
        .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(file)));
      return { file, outcome };
    }
    const what = outcome === 'added' ? `Added the "${MCP_SERVER_NAME}" MCP server to .vscode/mcp.json`
      : outcome === 'replaced' ? `Replaced the "${MCP_SERVER_NAME}" entry of .vscode/mcp.json with Repo Wiki's server`
        : `.vscode/mcp.json already has Repo Wiki's "${MCP_SERVER_NAME}" server`;
    void vscode.window.showInformationMessage(`Repo Wiki: ${what}. Agents in VS Code can now search and read the wiki.`, 'Open mcp.json')
      .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(file)));
    return { file, outcome };
  } catch (error) {
    showError(services.output, 'Adding the MCP server', error);
    return undefined;
  }
}
