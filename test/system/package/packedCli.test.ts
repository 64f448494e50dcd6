import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../../support/tempDirs';

const ROOT = path.resolve(__dirname, '../../../..');

// The CLI as a newcomer installs it before it is published: `npm pack` in a clone, then a global
// install of the tarball into a prefix of its own, run in an empty folder with nothing else.
describe('the packed CLI, installed from its tarball', function () {
  this.timeout(180000);
  let bin: string;
  let empty: string;
  // The installed binary first on the PATH, as a global install puts it.
  const env = (): Record<string, string> => Object.fromEntries(Object.entries({ ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ''}` }).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const run = (args: string[]) => spawnSync(bin, args, { cwd: empty, encoding: 'utf8', env: env() });

  before(() => {
    const out = tempDir('repo-wiki-pack-');
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
    const prefix = path.join(out, 'prefix');
    // The tarball has no dependencies to fetch: everything is bundled into dist/.
    execFileSync('npm', ['install', '--global', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, path.join(out, tarball)], { cwd: out, stdio: 'pipe' });
    bin = path.join(prefix, 'bin', 'repo-wiki');
    empty = tempDir('repo-wiki-pack-empty-');
  });

  it('holds only what the CLI needs, and no dependency to install', () => {
    const installed = path.join(path.dirname(path.dirname(bin)), 'lib', 'node_modules', 'repo-wiki');
    assert.ok(!fs.existsSync(path.join(installed, 'node_modules')), 'installed nothing beside it');
    for (const needed of ['dist/cli.js', 'dist/mcp.js', 'dist/sql-wasm.wasm', 'dist/grammars/tree-sitter.wasm', 'dist/grammars/tree-sitter-python.wasm', 'wiki-template/SCHEMA.md']) {
      assert.ok(fs.existsSync(path.join(installed, needed)), needed);
    }
    for (const left of ['src', 'test', 'node_modules', 'demo']) assert.ok(!fs.existsSync(path.join(installed, left)), `${left} is not shipped`);
  });

  it('runs in an empty folder: --version, init, drift over TypeScript, Python and YAML keys, and the MCP server', async () => {
    const version = run(['--version']);
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    execFileSync('git', ['init', '-q'], { cwd: empty });
    assert.equal(run(['init']).status, 0);
    fs.mkdirSync(path.join(empty, 'src'));
    fs.writeFileSync(path.join(empty, 'src/a.ts'), 'export function a() {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(empty, 'src/b.py'), 'def b():\n    return 2\n');
    fs.writeFileSync(path.join(empty, 'config.yml'), 'server:\n  port: 8080\n');
    fs.writeFileSync(path.join(empty, '.wiki/pages/code.md'), '---\ntitle: Code\ntopic: other\nsummary: The code.\n---\n# Code\n\n`src/a.ts:a`, `src/b.py:b`, `config.yml:server.port`, `config.yml:server.host` and `src/b.py:gone`.\n');
    const drift = run(['drift', '--format', 'json']);
    assert.equal(drift.status, 1, drift.stderr);
    const issues = (JSON.parse(drift.stdout) as { issues: { code: string; citation: string }[] }).issues.map((issue) => `${issue.code} ${issue.citation}`).sort();
    assert.deepEqual(issues, ['missing-symbol config.yml:server.host', 'missing-symbol src/b.py:gone', 'unverified config.yml:server.port', 'unverified src/a.ts:a', 'unverified src/b.py:b']);

    const client = new Client({ name: 'repo-wiki-pack-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: bin, args: ['mcp'], cwd: empty, env: env(), stderr: 'ignore' }));
    try {
      const result = (await client.callTool({ name: 'read_code', arguments: { citation: 'src/b.py:b' } })) as CallToolResult;
      assert.equal(result.isError, false);
      assert.match((result.content[0] as { text: string }).text, /return 2/);
    } finally {
      await client.close();
    }
  });

  it('keeps a conversation with the store and SQLite it ships (store.js, sql-wasm.wasm beside cli.js)', () => {
    const data = tempDir('repo-wiki-pack-data-');
    const ask = (args: string[]) => spawnSync(bin, args, { cwd: empty, encoding: 'utf8', env: { ...env(), REPO_WIKI_DATA_DIR: data }, stdio: ['ignore', 'pipe', 'pipe'] });
    const first = ask(['query', 'What is the code?', '--conversation', 'packed-1', '--offline']);
    assert.equal(first.status, 0, first.stderr);
    const second = ask(['query', 'And then?', '--conversation', 'packed-1', '--offline', '--format', 'json']);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(JSON.parse(second.stdout).turn, 2);
    const list = ask(['conversations', 'list', '--format', 'json']);
    assert.deepEqual(JSON.parse(list.stdout).map((c: { id: string; turns: number }) => [c.id, c.turns]), [['packed-1', 2]]);
  });
});
