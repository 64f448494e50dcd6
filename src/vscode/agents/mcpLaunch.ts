import * as path from 'node:path';
import { findOnPath, isExecutable } from '../../adapters/files/fileKinds';
import type { McpLaunch } from '../../core/agents/mcpConfig';

/**
 * How this machine starts the wiki's MCP server for a workspace folder: the folder's own
 * `repo-wiki` (a tarball in its devDependencies), one on the PATH, else this extension's bundled
 * CLI, by `node` or, with none on the PATH, by VS Code's runtime run as Node.
 */
export function mcpLaunch(workspaceFolder: string, extensionPath: string, env: NodeJS.ProcessEnv = process.env): McpLaunch {
  const local = process.platform === 'win32' ? 'repo-wiki.cmd' : 'repo-wiki';
  if (isExecutable(path.join(workspaceFolder, 'node_modules', '.bin', local))) return { kind: 'installed', command: `\${workspaceFolder}/node_modules/.bin/${local}` };
  if (findOnPath('repo-wiki', env)) return { kind: 'installed', command: 'repo-wiki' };
  const cli = path.join(extensionPath, 'dist', 'cli.js');
  return findOnPath('node', env) ? { kind: 'bundled', runtime: 'node', cli, runtimeIsElectron: false } : { kind: 'bundled', runtime: process.execPath, cli, runtimeIsElectron: true };
}
