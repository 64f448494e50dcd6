import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openLocalCore } from '../../../src/adapters/localCore';
import { CLI, runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

// A cited file nested deeper than a parser's stack (a red-team pass: the whole run stopped with
// "Maximum call stack size exceeded", naming no file) is that file's issue, and the rest is checked.
// The tree-sitter walk keeps its own stack, so deep C is parsed; TypeScript's parser still recurses.
describe('drift over a file nested too deeply to parse', function () {
  this.timeout(60000);

  /** A workspace whose page cites a TS file of 10,000 nested parentheses (1,000 overflow or not, depending on the stack already in use), a C file of 5,000 nested #if, and an ordinary file. */
  function deepWorkspace(): string {
    const ws = tempDir('repo-wiki-deep-');
    fs.mkdirSync(path.join(ws, 'src'));
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync(process.execPath, [CLI, 'init', '--workspace', ws]);
    fs.writeFileSync(path.join(ws, 'src/deep.ts'), `export function f() { return ${'('.repeat(10000)}1${')'.repeat(10000)}; }\n`);
    fs.writeFileSync(path.join(ws, 'src/deep.c'), `${'#if A\n'.repeat(5000)}int g(void) { return 1; }\n${'#endif\n'.repeat(5000)}`);
    fs.writeFileSync(path.join(ws, 'src/ok.ts'), 'export function h() { return 2; }\n');
    fs.writeFileSync(path.join(ws, '.wiki/pages/deep.md'), '---\ntitle: Deep\ntopic: other\nsummary: Deep files.\n---\n# Deep\n\n`src/deep.ts:f`, `src/deep.c:g`, `src/ok.ts:h` and `src/ok.ts:gone`.\n');
    return ws;
  }

  it('reports unreadable-file on the deep TypeScript file, parses the deep C file, checks every other citation, and exits 1, not 2', async () => {
    const ws = deepWorkspace();
    const started = Date.now();
    const run = await runCliProcess(['drift', '--workspace', ws, '--format', 'json'], {});
    assert.ok(Date.now() - started < 30000, 'answered within the ceiling');
    assert.equal(run.code, 1, run.stderr);
    const issues = (JSON.parse(run.stdout) as { issues: { code: string; citation: string; message: string }[] }).issues;
    assert.deepEqual(issues.map((issue) => `${issue.code} ${issue.citation}`).sort(), [
      'missing-symbol src/ok.ts:gone',
      'unreadable-file src/deep.ts:f',
      'unverified src/deep.c:g',
      'unverified src/ok.ts:h',
    ]);
    assert.match(issues.find((issue) => issue.citation === 'src/deep.ts:f')!.message, /src\/deep\.ts is nested too deeply to parse/);
  });

  it('the tools go on too: find_symbol names the file it skipped, read_code says why and what to read instead, check_drift reports the rest', async () => {
    const tools = Object.fromEntries(openLocalCore(deepWorkspace()).tools().map((tool) => [tool.name, tool]));
    const found = await tools.find_symbol.run({ name: 'h' });
    assert.equal(found.ok, true, found.text);
    const deep = await tools.find_symbol.run({ name: 'f' });
    assert.equal(deep.ok, true, deep.text);
    assert.match(deep.text, /skipped, nested too deeply to parse: src\/deep\.ts/);
    const deepRead = await tools.read_code.run({ citation: 'src/deep.ts:f' });
    assert.equal(deepRead.ok, false);
    assert.match(deepRead.text, /src\/deep\.ts is nested too deeply to parse.*read a line range instead, e\.g\. src\/deep\.ts#L1-L200/);
    const lines = await tools.read_code.run({ citation: 'src/deep.ts#L1-L1' });
    assert.equal(lines.ok, true, lines.text);
    const c = await tools.read_code.run({ citation: 'src/deep.c:g' });
    assert.equal(c.ok, true, c.text);
    assert.match(c.text, /int g\(void\) \{ return 1; \}/);
    const drift = await tools.check_drift.run({});
    assert.equal(drift.ok, true, drift.text);
    assert.match(drift.text, /src\/deep\.ts is nested too deeply to parse/);
    assert.match(drift.text, /src\/ok\.ts:gone/);
  });
});
