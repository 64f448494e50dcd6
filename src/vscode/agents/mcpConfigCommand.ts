import * as path from 'node:path';
import * as vscode from 'vscode';
import { addMcpServer, describeServer, MCP_SERVER_NAME, mcpServerEntry } from '../../core/agents/mcpConfig';
import { mcpLaunch } from './mcpLaunch';
import { isNotAFile } from '../../core/errors';
import type { Services } from '../services/services';
import { ensureTrusted, showError } from '../common/userErrors';

export type McpServerOutcome = 'added' | 'present' | 'updated' | 'replaced' | 'kept';

/**
 * "Add the wiki's MCP server to this workspace": merges the server into .vscode/mcp.json, never
 * clobbering it. The entry starts the server as this machine can (see mcpLaunch). An entry of the
 * same name that runs something else came with the repository (or from a person): it is shown,
 * and replaced only when the person says so; one this command wrote before is brought up to date.
 */
export async function addMcpServerToWorkspace(services: Services, extensionPath: string): Promise<{ file: string; outcome: McpServerOutcome } | undefined> {
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
    const entry = mcpServerEntry(mcpLaunch(wiki.root, extensionPath));
    const plan = addMcpServer(existing, entry);
    let outcome: McpServerOutcome = plan.outcome === 'different' ? 'kept' : plan.outcome;
    if (plan.outcome === 'different') {
      const ours = describeServer(entry);
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
    } else if (plan.outcome === 'added' || plan.outcome === 'updated') {
      await files.mkdir(path.dirname(file));
      await files.writeFileAtomic(file, plan.text);
    }
    if (outcome === 'kept') {
      void vscode.window.showWarningMessage(`Repo Wiki: the "${MCP_SERVER_NAME}" entry of .vscode/mcp.json was kept as it is, so agents in VS Code reach whatever it runs, not Repo Wiki's server.`, 'Open mcp.json')
        .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(file)));
      return { file, outcome };
    }
    const what = outcome === 'added' ? `Added the "${MCP_SERVER_NAME}" MCP server to .vscode/mcp.json`
      : outcome === 'updated' ? `Updated the "${MCP_SERVER_NAME}" entry of .vscode/mcp.json to how this machine starts the server`
      : outcome === 'replaced' ? `Replaced the "${MCP_SERVER_NAME}" entry of .vscode/mcp.json with Repo Wiki's server`
        : `.vscode/mcp.json already has Repo Wiki's "${MCP_SERVER_NAME}" server`;
    // The bundled CLI's path names this machine and this version of the extension: say so, as the file is often committed.
    const bundled = entry.args[0] !== 'mcp' ? ` It runs the CLI bundled with this extension (${entry.args[0]}), a path on this machine: run this command again after the extension updates, or install the CLI (see the README) for an entry the team can share.` : '';
    void vscode.window.showInformationMessage(`Repo Wiki: ${what}. Agents in VS Code can now search and read the wiki.${bundled}`, 'Open mcp.json')
      .then((choice) => choice && vscode.window.showTextDocument(vscode.Uri.file(file)));
    return { file, outcome };
  } catch (error) {
    showError(services.output, 'Adding the MCP server', error);
    return undefined;
  }
}
