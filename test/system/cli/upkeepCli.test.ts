import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI } from '../../support/cliProcess';
import { pageText } from '../../support/fakes';
import { tempDir } from '../../support/tempDirs';

describe('repo-wiki upkeep (a real git repository)', function () {
  this.timeout(60000);
  const git = (cwd: string, args: string[], env: Record<string, string> = {}) => {
    const result = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
    assert.equal(result.status, 0, result.stderr);
  };
  const upkeep = (ws: string, ...args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, 'upkeep', '--workspace', ws, ...args], { encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const fields = (ws: string, slug: string) => fs.readFileSync(path.join(ws, '.wiki/pages', `${slug}.md`), 'utf8').split('---')[1];
  const logLines = (ws: string) => fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));

  function workspace(): string {
    const ws = tempDir('repo-wiki-upkeep-');
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function foo() {\n  return 1;\n}\nexport function bar() {\n  return 2;\n}\n');
    git(ws, ['init', '-q']);
    spawnSync(process.execPath, [CLI, 'init', '--workspace', ws]);
    const write = (slug: string, body: string, extra: Record<string, string> = {}) => fs.writeFileSync(path.join(ws, '.wiki/pages', `${slug}.md`), pageText(slug, body, { updated: '2026-01-05', ...extra }));
    write('uses-foo', 'Foo is `src/a.ts:foo` and bar is `src/a.ts:bar`. See [[old-notes]].');
    write('old-notes', 'Old notes. See [[uses-foo]].', { status: 'superseded', superseded_by: 'uses-foo' });
    // Committed long ago, so git agrees the superseded page is untouched.
    const old = { GIT_AUTHOR_DATE: '2026-01-05T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-05T00:00:00Z', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
    git(ws, ['add', '-A'], old);
    git(ws, ['commit', '-qm', 'wiki'], old);
    return ws;
  }

  it('--dry-run prints what would change and writes nothing', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function bar() {\n  return 2;\n}\n');
    const before = fs.readdirSync(path.join(ws, '.wiki/pages')).map((name) => fs.readFileSync(path.join(ws, '.wiki/pages', name), 'utf8'));
    const log = fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8');
    const result = upkeep(ws, '--dry-run');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^stale {8}\.wiki\/pages\/uses-foo\.md {2}cited code no longer exists: src\/a\.ts:foo$/m);
    assert.match(result.stdout, /^archived {5}\.wiki\/pages\/old-notes\.md {2}superseded, untouched for \d+ days$/m);
    assert.match(result.stdout, /Upkeep \(dry run, nothing written\): 1 marked stale, 0 active again, 1 archived\./);
    assert.deepEqual(fs.readdirSync(path.join(ws, '.wiki/pages')).map((name) => fs.readFileSync(path.join(ws, '.wiki/pages', name), 'utf8')), before);
    assert.equal(fs.readFileSync(path.join(ws, '.wiki/log.jsonl'), 'utf8'), log);
  });

  it('marks a page stale when its code goes, archives the idle superseded page, logs one line, and brings the page back with its code', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function bar() {\n  return 2;\n}\n');
    const first = upkeep(ws, '--format', 'json');
    assert.equal(first.code, 0, first.stderr);
    const plan = JSON.parse(first.stdout);
    assert.deepEqual([plan.stale, plan.archived.map((a: { slug: string }) => a.slug), plan.written], [[{ slug: 'uses-foo', citations: ['src/a.ts:foo'] }], ['old-notes'], ['old-notes', 'uses-foo']]);
    assert.match(fields(ws, 'uses-foo'), /status: stale\n/);
    assert.match(fields(ws, 'uses-foo'), /stale_reason: "?upkeep: cited code no longer exists: src\/a\.ts:foo/);
    assert.match(fields(ws, 'old-notes'), /status: archived\n/);
    const index = JSON.parse(fs.readFileSync(path.join(ws, '.wiki/index.json'), 'utf8'));
    assert.equal(index.pages.find((entry: { slug: string }) => entry.slug === 'old-notes').status, 'archived');
    const line = logLines(ws).at(-1);
    assert.deepEqual({ op: line.op, stale: line.stale, archived: line.archived, reactivated: line.reactivated }, { op: 'upkeep', stale: ['uses-foo'], archived: ['old-notes'], reactivated: [] });

    const again = upkeep(ws);
    assert.match(again.stdout, /Upkeep: nothing to change in \d+ pages\./);
    assert.equal(logLines(ws).at(-1).ts, line.ts, 'a run that changes nothing logs nothing');

    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function foo() {\n  return 1;\n}\nexport function bar() {\n  return 2;\n}\n');
    const back = upkeep(ws);
    assert.match(back.stdout, /^active again \.wiki\/pages\/uses-foo\.md/m);
    assert.match(fields(ws, 'uses-foo'), /status: active\n/);
    assert.doesNotMatch(fields(ws, 'uses-foo'), /stale_reason/);
    assert.deepEqual(logLines(ws).at(-1).reactivated, ['uses-foo']);
    assert.match(fields(ws, 'old-notes'), /status: archived\n/, 'nothing brings an archived page back but a person');
  });

  it('leaves a page a person marked stale as it is, and refuses a bad --archive-after-days', () => {
    const ws = workspace();
    const file = path.join(ws, '.wiki/pages/uses-foo.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('status: active', 'status: stale\nstale_reason: "rewritten next sprint"').replace('updated: 2026-01-05', `updated: ${new Date().toISOString().slice(0, 10)}`));
    const result = upkeep(ws, '--archive-after-days', '100000');
    assert.match(result.stdout, /nothing to change/);
    assert.match(fields(ws, 'uses-foo'), /stale_reason: "rewritten next sprint"/);
    const bad = upkeep(ws, '--archive-after-days', 'soon');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--archive-after-days must be a whole number of days/);
  });
});
