import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

// A cited file nested deeper than a parser's stack (a red-team pass: the whole run stopped with
// "Maximum call stack size exceeded", naming no file) is that file's issue, and the rest is checked.
describe('drift over a file nested too deeply to parse', function () {
  this.timeout(60000);

  it('reports unreadable-file on the deep files (TypeScript, C), checks every other citation, and exits 1, not 2', async () => {
    const ws = tempDir('repo-wiki-deep-');
    fs.mkdirSync(path.join(ws, 'src'));
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync(process.execPath, [CLI, 'init', '--workspace', ws]);
    fs.writeFileSync(path.join(ws, 'src/deep.ts'), `export function f() { return ${'('.repeat(1000)}1${')'.repeat(1000)}; }\n`);
    fs.writeFileSync(path.join(ws, 'src/deep.c'), `${'#if A\n'.repeat(5000)}int g(void) { return 1; }\n${'#endif\n'.repeat(5000)}`);
    fs.writeFileSync(path.join(ws, 'src/ok.ts'), 'export function h() { return 2; }\n');
    fs.writeFileSync(path.join(ws, '.wiki/pages/deep.md'), '---\ntitle: Deep\ntopic: other\nsummary: Deep files.\n---\n# Deep\n\n`src/deep.ts:f`, `src/deep.c:g`, `src/ok.ts:h` and `src/ok.ts:gone`.\n');
    const started = Date.now();
    const run = await runCliProcess(['drift', '--workspace', ws, '--format', 'json'], {});
    assert.ok(Date.now() - started < 30000, 'answered within the ceiling');
    assert.equal(run.code, 1, run.stderr);
    const issues = (JSON.parse(run.stdout) as { issues: { code: string; citation: string; message: string }[] }).issues;
    assert.deepEqual(issues.map((issue) => `${issue.code} ${issue.citation}`).sort(), [
      'missing-symbol src/ok.ts:gone',
      'unreadable-file src/deep.c:g',
      'unreadable-file src/deep.ts:f',
      'unverified src/ok.ts:h',
    ]);
    assert.match(issues.find((issue) => issue.citation === 'src/deep.ts:f')!.message, /src\/deep\.ts is nested too deeply to parse/);
  });
});
