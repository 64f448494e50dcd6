import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mcpLaunch } from '../../../src/vscode/agents/mcpLaunch';
import { tempDir } from '../../support/tempDirs';

// How "Add the wiki's MCP server" starts the server, from what a machine has (real files, a PATH of our own).
describe('the MCP server\'s launch, as this machine can start it', () => {
  const extension = '/opt/vscode/extensions/repo-wiki.repo-wiki-0.1.0';

  function executable(dir: string, name: string): void {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, name), '#!/bin/sh\n', { mode: 0o755 });
  }

  it('prefers the workspace\'s own repo-wiki, then one on the PATH, then the bundled CLI by node, then by VS Code\'s runtime as Node', () => {
    const workspace = tempDir('repo-wiki-launch-ws-');
    const bin = tempDir('repo-wiki-launch-bin-');
    const env = { PATH: bin };
    assert.deepEqual(mcpLaunch(workspace, extension, env), { kind: 'bundled', runtime: process.execPath, cli: path.join(extension, 'dist', 'cli.js'), runtimeIsElectron: true });
    executable(bin, 'node');
    assert.deepEqual(mcpLaunch(workspace, extension, env), { kind: 'bundled', runtime: 'node', cli: path.join(extension, 'dist', 'cli.js'), runtimeIsElectron: false });
    fs.writeFileSync(path.join(bin, 'repo-wiki'), 'not runnable', { mode: 0o644 });
    assert.equal(mcpLaunch(workspace, extension, env).kind, 'bundled', 'a file that cannot run is not an installed CLI');
    fs.chmodSync(path.join(bin, 'repo-wiki'), 0o755);
    assert.deepEqual(mcpLaunch(workspace, extension, env), { kind: 'installed', command: 'repo-wiki' });
    executable(path.join(workspace, 'node_modules', '.bin'), 'repo-wiki');
    assert.deepEqual(mcpLaunch(workspace, extension, env), { kind: 'installed', command: '${workspaceFolder}/node_modules/.bin/repo-wiki' });
  });
});
