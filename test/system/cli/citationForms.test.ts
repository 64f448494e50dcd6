import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCliProcess } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

const PAGE = '.wiki/pages/layout.md';

/** A git repository with a wiki page citing a line range, a folder and a key of package.json. */
async function workspace(): Promise<string> {
  const ws = tempDir('repo-wiki-citations-');
  assert.equal((await runCliProcess(['init', '--workspace', ws], {})).code, 0);
  fs.mkdirSync(path.join(ws, 'src/adapters'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'src/adapters/store.ts'), 'export const store = 1;\n');
  fs.writeFileSync(path.join(ws, 'src/retry.ts'), ['export function retry(times: number) {', '  for (let i = 0; i < times; i++) {', '    attempt(i);', '  }', '}', ''].join('\n'));
  fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'app', scripts: { test: 'mocha', build: 'tsc' } }, null, 2));
  fs.writeFileSync(path.join(ws, PAGE), [
    '---', 'title: Layout', 'topic: architecture', 'summary: Where things are.', 'status: active', 'tags: []', 'created: 2026-11-01', 'updated: 2026-11-01', '---',
    'The loop `src/retry.ts#L2-L4` retries. Adapters live in `src/adapters/`. Tests run with `package.json:scripts.test`. See [[welcome]].', '',
  ].join('\n'));
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: ws, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'base');
  return ws;
}

async function drift(ws: string, ...args: string[]): Promise<{ code: number | null; issues: Array<{ code: string; citation: string; message: string }> }> {
  const run = await runCliProcess(['drift', '--workspace', ws, '--format', 'json', ...args], {});
  assert.ok(run.stdout, run.stderr);
  return { code: run.code, issues: JSON.parse(run.stdout).issues };
}

describe('repo-wiki drift: line ranges, folders and keys of JSON files', function () {
  this.timeout(60000);

  it('stamps all three; a range moved by code above is fixed by --fix to its new lines', async () => {
    const ws = await workspace();
    assert.equal((await runCliProcess(['drift', '--workspace', ws, '--stamp'], {})).code, 0);
    const stamped = fs.readFileSync(path.join(ws, PAGE), 'utf8');
    assert.match(stamped, /"src\/retry\.ts#L2-L4": "body:[0-9a-f]{8} at:[0-9a-f]{12}"/);
    assert.match(stamped, /"package\.json:scripts\.test": "body:[0-9a-f]{8} at:[0-9a-f]{12}"/);
    assert.ok(!stamped.includes('"src/adapters/"'), 'a folder has no fingerprint to record');
    assert.deepEqual((await drift(ws)).issues, []);

    const retry = path.join(ws, 'src/retry.ts');
    fs.writeFileSync(retry, `// Retries with no backoff.\n// See the page on layout.\n${fs.readFileSync(retry, 'utf8')}`);
    const moved = await drift(ws);
    assert.deepEqual(moved.issues.map((i) => `${i.code} ${i.citation}`), ['moved-symbol src/retry.ts#L2-L4']);
    assert.match(moved.issues[0].message, /the same text is now at src\/retry\.ts#L4-L6/);

    const fixed = await runCliProcess(['drift', '--workspace', ws, '--fix'], {});
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.match(fixed.stdout, /layout: src\/retry\.ts#L2-L4 → src\/retry\.ts#L4-L6/);
    const page = fs.readFileSync(path.join(ws, PAGE), 'utf8');
    assert.ok(page.includes('`src/retry.ts#L4-L6`') && !page.includes('src/retry.ts#L2-L4'));
    assert.match(page, /"src\/retry\.ts#L4-L6": "body:[0-9a-f]{8} at:/, 'the anchor follows the citation');
    assert.deepEqual((await drift(ws)).issues, []);

    fs.writeFileSync(retry, fs.readFileSync(retry, 'utf8').replace('attempt(i);', 'attempt(i, times);'));
    assert.deepEqual((await drift(ws)).issues.map((i) => `${i.code} ${i.citation}`), ['body-changed src/retry.ts#L4-L6']);
    const diff = await runCliProcess(['drift', '--workspace', ws, '--diff'], {});
    assert.match(diff.stdout, /^\s+-\s+attempt\(i\);$/m, 'then: the lines that held the stamped text, before they moved');
    assert.match(diff.stdout, /^\s+\+\s+attempt\(i, times\);$/m);
    assert.ok(!diff.stdout.includes('Retries with no backoff'), 'only the cited lines, not the rest of the file');
  });

  it('a folder citation holds while the folder exists and is an error once it is gone', async () => {
    const ws = await workspace();
    await runCliProcess(['drift', '--workspace', ws, '--stamp'], {});
    assert.deepEqual((await drift(ws)).issues, []);
    fs.rmSync(path.join(ws, 'src/adapters'), { recursive: true });
    const gone = await drift(ws);
    assert.equal(gone.code, 1);
    assert.deepEqual(gone.issues.map((i) => `${i.code} ${i.citation} ${i.message}`), ['missing-file src/adapters/ The folder src/adapters/ does not exist.']);
  });

  it('a key of package.json: a changed value is body-changed, a removed key missing-symbol', async () => {
    const ws = await workspace();
    await runCliProcess(['drift', '--workspace', ws, '--stamp'], {});
    const manifest = path.join(ws, 'package.json');
    fs.writeFileSync(manifest, JSON.stringify({ name: 'app', scripts: { test: 'mocha --parallel', build: 'tsc' } }, null, 2));
    const changed = await drift(ws);
    assert.deepEqual(changed.issues.map((i) => `${i.code} ${i.message}`), ['body-changed The value of scripts.test in package.json changed since this page was verified.']);
    fs.writeFileSync(manifest, JSON.stringify({ name: 'app', scripts: { build: 'tsc' } }, null, 2));
    const removed = await drift(ws);
    assert.equal(removed.code, 1);
    assert.deepEqual(removed.issues.map((i) => `${i.code} ${i.message}`), ['missing-symbol scripts.test is not a key of package.json: scripts has no key test.']);
  });
});
