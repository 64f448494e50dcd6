import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

// Found by trying drift on code nobody here wrote (a `ky`-like TS client, Python's click): barrels
// and moves must mean the same in every language drift parses, and --changed-since must follow a
// barrel to the file that changed.
describe('drift across barrels, moves and renames in every language', function () {
  this.timeout(120000);

  const git = (ws: string, ...args: string[]) => execFileSync('git', args, { cwd: ws, encoding: 'utf8' });

  /** A committed git workspace with these files and one page citing `cites`, stamped and committed. */
  async function workspace(files: Record<string, string>, cites: string[]): Promise<string> {
    const ws = tempDir('repo-wiki-langs-');
    git(ws, 'init', '-q');
    git(ws, 'config', 'user.email', 'test@example.com');
    git(ws, 'config', 'user.name', 'Test');
    execFileSync(process.execPath, [CLI, 'init', '--workspace', ws]);
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
      fs.writeFileSync(path.join(ws, file), text);
    }
    const body = cites.map((citation) => `- \`${citation}\``).join('\n');
    fs.writeFileSync(path.join(ws, '.wiki/pages/code.md'), `---\ntitle: Code\ntopic: architecture\nsummary: The cited code.\nstatus: active\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\nSee [[welcome]].\n\n${body}\n`);
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'code');
    const stamped = await runCliProcess(['drift', '--workspace', ws, '--review', 'code'], {});
    assert.equal(stamped.code, 0, stamped.stdout + stamped.stderr);
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'stamp');
    return ws;
  }

  async function drift(ws: string, ...args: string[]): Promise<{ code: number | null; issues: string[]; checked: number; fixed?: string[] }> {
    const run = await runCliProcess(['drift', '--workspace', ws, '--format', 'json', ...args], {});
    const out = JSON.parse(run.stdout) as { citationsChecked: number; issues: { code: string; citation: string; message: string }[]; fixed?: string[] };
    return { code: run.code, issues: out.issues.map((issue) => `${issue.code} ${issue.citation}`).sort(), checked: out.citationsChecked, ...(out.fixed ? { fixed: out.fixed } : {}) };
  }

  const ky = {
    'source/utils/type-guards.ts': 'export function isHTTPError(error: unknown): boolean {\n  return error instanceof Error;\n}\n',
    'source/utils/index.ts': "export * from './type-guards';\n",
    'source/errors/HTTPError.ts': 'export class HTTPError extends Error {\n  status = 0;\n}\n',
    'source/index.ts': "export {isHTTPError} from './utils';\nexport {HTTPError} from './errors/HTTPError';\n",
  };

  it('--changed-since checks a barrel citation when the file behind it changed (through two barrels), and leaves its other citations alone', async () => {
    const ws = await workspace(ky, ['source/index.ts:isHTTPError', 'source/index.ts:HTTPError']);
    fs.writeFileSync(path.join(ws, 'source/utils/type-guards.ts'), ky['source/utils/type-guards.ts'].replace('error: unknown', 'error: unknown, strict = false'));
    assert.deepEqual((await drift(ws)).issues, ['signature-changed source/index.ts:isHTTPError']);
    const scoped = await drift(ws, '--changed-since', 'HEAD');
    assert.equal(scoped.code, 0);
    assert.deepEqual(scoped.issues, ['signature-changed source/index.ts:isHTTPError']);
    assert.equal(scoped.checked, 1, 'the HTTPError citation resolves through no changed file');
  });

  it('click: a name __init__.py imports from .core resolves there; its change is found, with --changed-since too', async () => {
    const core = 'class Context:\n    def __init__(self, command):\n        self.command = command\n\n    def invoke(self, callback):\n        return (callback(self))\n';
    const ws = await workspace({ 'src/click/core.py': core, 'src/click/__init__.py': 'from .core import Context as Context\nfrom . import types\n', 'src/click/types.py': 'def convert(value):\n    return value\n' },
      ['src/click/__init__.py:Context', 'src/click/__init__.py:Context.invoke', 'src/click/__init__.py:types.convert']);
    assert.deepEqual((await drift(ws)).issues, []);
    fs.writeFileSync(path.join(ws, 'src/click/core.py'), core.replace('return (callback(self))', 'return callback(self)'));
    assert.deepEqual((await drift(ws)).issues, [], 'redundant parentheses dropped: no change');
    fs.writeFileSync(path.join(ws, 'src/click/core.py'), core.replace('def invoke(self, callback)', 'def invoke(self, callback, *args)'));
    const expected = ['signature-changed src/click/__init__.py:Context', 'signature-changed src/click/__init__.py:Context.invoke'];
    assert.deepEqual((await drift(ws)).issues, expected);
    assert.deepEqual((await drift(ws, '--changed-since', 'HEAD')).issues, expected);
  });

  it('Python: a function moved to another file is moved-symbol, and --fix points the citation there', async () => {
    const ws = await workspace({ 'app/parsing.py': 'def parse(text):\n    return text.split()\n\ndef other():\n    pass\n', 'app/__init__.py': '' }, ['app/parsing.py:parse']);
    fs.writeFileSync(path.join(ws, 'app/parsing.py'), 'def other():\n    pass\n');
    fs.writeFileSync(path.join(ws, 'app/tokens.py'), 'def parse(text):\n    return text.split()\n');
    assert.deepEqual((await drift(ws)).issues, ['moved-symbol app/parsing.py:parse']);
    const fixed = await drift(ws, '--fix');
    assert.deepEqual(fixed.fixed, ['code: app/parsing.py:parse → app/tokens.py:parse']);
    assert.deepEqual(fixed.issues, []);
  });

  it('Python: a cited file renamed with git mv is moved-symbol, not missing-file, and --fix repairs the page', async () => {
    const ws = await workspace({ 'lib/old_name.py': 'class Store:\n    def get(self, key):\n        return key\n' }, ['lib/old_name.py:Store.get']);
    git(ws, 'mv', 'lib/old_name.py', 'lib/store.py');
    assert.deepEqual((await drift(ws)).issues, ['moved-symbol lib/old_name.py:Store.get']);
    assert.deepEqual((await drift(ws, '--fix')).issues, []);
    assert.match(fs.readFileSync(path.join(ws, '.wiki/pages/code.md'), 'utf8'), /`lib\/store\.py:Store\.get`/);
  });

  it('Go and Rust: a moved function is moved-symbol; a renamed file with a renamed function is renamed-symbol; --fix repairs both', async () => {
    const ws = await workspace({
      'pkg/a.go': 'package pkg\n\nfunc Parse(s string) string {\n\treturn s + "!"\n}\n',
      'src/lexer.rs': 'pub fn tokenize(input: &str) -> Vec<String> {\n    input.split(\' \').map(String::from).collect()\n}\n',
    }, ['pkg/a.go:Parse', 'src/lexer.rs:tokenize']);
    fs.rmSync(path.join(ws, 'pkg/a.go'));
    fs.writeFileSync(path.join(ws, 'pkg/b.go'), 'package pkg\n\nfunc Parse(s string) string {\n\treturn s + "!"\n}\n');
    git(ws, 'mv', 'src/lexer.rs', 'src/scan.rs');
    fs.writeFileSync(path.join(ws, 'src/scan.rs'), 'pub fn split_words(input: &str) -> Vec<String> {\n    input.split(\' \').map(String::from).collect()\n}\n');
    assert.deepEqual((await drift(ws)).issues, ['moved-symbol pkg/a.go:Parse', 'renamed-symbol src/lexer.rs:tokenize']);
    const fixed = await drift(ws, '--fix');
    assert.deepEqual(fixed.issues, []);
    assert.deepEqual(fixed.fixed?.sort(), ['code: pkg/a.go:Parse → pkg/b.go:Parse', 'code: src/lexer.rs:tokenize → src/scan.rs:split_words']);
  });

  it('MCP read_code reads a barrel citation drift accepts where it is declared, and says where', async () => {
    const ws = await workspace(ky, ['source/index.ts:HTTPError']);
    const client = new Client({ name: 'repo-wiki-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', ws], stderr: 'ignore' }));
    try {
      const result = (await client.callTool({ name: 'read_code', arguments: { citation: 'source/index.ts:HTTPError' } })) as CallToolResult;
      assert.notEqual(result.isError, true);
      const text = (result.content[0] as { text: string }).text;
      assert.match(text, /source\/index\.ts:HTTPError is re-exported from source\/errors\/HTTPError\.ts:HTTPError/);
      assert.match(text, /export class HTTPError extends Error/);
      const missing = (await client.callTool({ name: 'read_code', arguments: { citation: 'source/index.ts:Nope' } })) as CallToolResult;
      assert.equal(missing.isError, true);
    } finally {
      await client.close();
    }
  });
});
