import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { catalog } from '../../src/core/chat/prompt';
import { WikiRetriever } from '../../src/core/chat/retrieval';
import type { DriftIssue, DriftReport } from '../../src/core/drift/driftEngine';
import { mergeIndexFile } from '../../src/core/indexMerge';
import { lintPages } from '../../src/core/lint';
import { parsePage } from '../../src/core/page';
import { upkeepDue } from '../../src/core/upkeep/schedule';
import { planUpkeep, staleReason } from '../../src/core/upkeep/upkeep';
import { buildIndex, renderIndexJson, renderIndexMarkdown } from '../../src/core/wikiIndex';
import { CLI } from './cliProcess';
import { pageText } from './fakes';
import { tempDir } from './tempDirs';

const page = (slug: string, body = '', fields: Record<string, string> = {}) =>
  parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(slug, body, fields)));

function missing(slug: string, citation: string, code: 'missing-file' | 'missing-symbol' | 'body-changed' = 'missing-symbol'): DriftIssue {
  const [file, symbol] = citation.split(':');
  return {
    code, severity: 'error', message: '', page: `.wiki/pages/${slug}.md`, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    data: { citation, path: file, ...(symbol ? { symbol } : {}) },
  } as DriftIssue;
}
const report = (...issues: DriftIssue[]): DriftReport => ({ pagesChecked: 0, citationsChecked: 0, issues });
const settings = { today: '2026-11-24', archiveAfterDays: 90 };

describe('upkeep plan', () => {
  it('marks an active page citing missing code stale, naming the citations; other drift changes no status', () => {
    const pages = [page('a', '`src/a.ts:Foo` `src/b.ts`'), page('b', '`src/c.ts:Bar`')];
    const plan = planUpkeep(pages, report(missing('a', 'src/a.ts:Foo'), missing('a', 'src/b.ts', 'missing-file'), missing('b', 'src/c.ts:Bar', 'body-changed')), settings);
    assert.deepEqual(plan.stale, [{ slug: 'a', citations: ['src/a.ts:Foo', 'src/b.ts'] }]);
    assert.deepEqual([plan.reactivated, plan.archived, plan.restaled], [[], [], []]);
  });

  it('brings back only the pages upkeep marked stale, once their citations resolve', () => {
    const byUpkeep = page('a', '`src/a.ts:Foo`', { status: 'stale', stale_reason: JSON.stringify(staleReason(['src/a.ts:Foo'])) });
    const byPerson = page('b', '`src/a.ts:Foo`', { status: 'stale', stale_reason: '"the design changed"' });
    assert.deepEqual(planUpkeep([byUpkeep, byPerson], report(), settings).reactivated, ['a']);
    assert.deepEqual(planUpkeep([byUpkeep, byPerson], report(missing('a', 'src/a.ts:Foo')), settings).reactivated, []);
  });

  it('rewrites the reason of a page it marked when other citations went missing', () => {
    const byUpkeep = page('a', '`src/a.ts:Foo` `src/a.ts:Bar`', { status: 'stale', stale_reason: JSON.stringify(staleReason(['src/a.ts:Foo'])) });
    assert.deepEqual(planUpkeep([byUpkeep], report(missing('a', 'src/a.ts:Bar')), settings).restaled, [{ slug: 'a', citations: ['src/a.ts:Bar'] }]);
  });

  it('archives stale and superseded pages untouched for the period, by the later of updated and git', () => {
    const pages = [
      page('old-stale', '', { status: 'stale', updated: '2026-08-01' }),
      page('old-superseded', '', { status: 'superseded', superseded_by: 'fresh', updated: '2026-01-01' }),
      page('committed-lately', '', { status: 'stale', updated: '2026-01-01' }),
      page('recent', '', { status: 'stale', updated: '2026-10-01' }),
      page('old-active', '', { updated: '2020-01-01' }),
      page('fresh', '', { status: 'archived', updated: '2020-01-01' }),
    ];
    const lastChanged = new Map([['committed-lately', new Date('2026-11-01T00:00:00Z')], ['old-stale', new Date('2026-03-01T00:00:00Z')]]);
    const plan = planUpkeep(pages, report(), { ...settings, lastChanged });
    assert.deepEqual(plan.archived, [{ slug: 'old-stale', was: 'stale', idleDays: 115 }, { slug: 'old-superseded', was: 'superseded', idleDays: 327 }]);
    assert.deepEqual(planUpkeep(pages, report(), { ...settings, archiveAfterDays: 400 }).archived, []);
  });
});

describe('archived pages', () => {
  const pages = [page('a', 'See [[gone]] and [[b]].'), page('b', 'See [[a]].'), page('gone', 'Deploys with make.', { status: 'archived' })];

  it('are not broken links nor orphans: lint says the link leads to an archived page', () => {
    const issues = lintPages(pages);
    assert.deepEqual(issues.map((i) => `${i.page}:${i.code}:${i.severity}`), ['.wiki/pages/a.md:links-to-archived:info']);
    assert.match(issues[0].message, /\[\[gone\]\] is archived/);
  });

  it('leave retrieval and the chat catalog, and keep their index entry in an Archived section', () => {
    assert.deepEqual(new WikiRetriever(pages).search('deploys make').map((hit) => hit.slug), []);
    const retriever = new WikiRetriever([page('gone', 'Deploys with make.')]);
    assert.equal(retriever.search('deploys make')[0]?.slug, 'gone');
    retriever.sync(pages);
    assert.deepEqual(retriever.search('deploys make'), []);
    assert.doesNotMatch(catalog(pages), /gone/);
    const index = buildIndex(pages);
    assert.equal(index.pages.find((entry) => entry.slug === 'gone')?.status, 'archived');
    const markdown = renderIndexMarkdown(index);
    assert.match(markdown, /## Archived\n\n- \[gone\]\(pages\/gone\.md\) — About gone\n/);
    assert.doesNotMatch(markdown.split('## Archived')[0], /gone/);
  });

  it('merge through the index merge driver, Archived section included', () => {
    const base = buildIndex(pages.slice(0, 2));
    const ours = buildIndex(pages);
    const theirs = buildIndex([...pages.slice(0, 2), page('c', '[[a]]')]);
    const merged = mergeIndexFile('.wiki/index.md', renderIndexMarkdown(base), renderIndexMarkdown(ours), renderIndexMarkdown(theirs));
    assert.deepEqual(merged, { text: renderIndexMarkdown(buildIndex([...pages, page('c', '[[a]]')])), conflicts: [] });
    assert.equal(mergeIndexFile('.wiki/index.json', renderIndexJson(base), renderIndexJson(ours), renderIndexJson(theirs)).conflicts.length, 0);
  });
});

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

describe('upkeep schedule', () => {
  const HOUR = 60 * 60 * 1000;
  it('is due at once when it never ran, then once per interval, never when off', () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    assert.equal(upkeepDue('daily', undefined, now), true);
    assert.equal(upkeepDue('daily', now - 23 * HOUR, now), false);
    assert.equal(upkeepDue('daily', now - 24 * HOUR, now), true);
    assert.equal(upkeepDue('weekly', now - 6 * 24 * HOUR, now), false);
    assert.equal(upkeepDue('weekly', now - 7 * 24 * HOUR, now), true);
    assert.equal(upkeepDue('off', undefined, now), false);
    assert.equal(upkeepDue('daily', now + HOUR, now), true, 'a clock set back does not stop upkeep for good');
  });
});
