import * as assert from 'node:assert/strict';
import { catalog } from '../../../../src/core/chat/prompt';
import { WikiRetriever } from '../../../../src/core/chat/retrieval';
import type { DriftIssue, DriftReport } from '../../../../src/core/drift/driftEngine';
import { mergeIndexFile } from '../../../../src/core/index/indexMerge';
import { lintPages } from '../../../../src/core/lint/lint';
import { parsePage } from '../../../../src/core/pages/page';
import { upkeepDue } from '../../../../src/core/upkeep/schedule';
import { planUpkeep, staleReason } from '../../../../src/core/upkeep/upkeep';
import { buildIndex, renderIndexJson, renderIndexMarkdown } from '../../../../src/core/index/wikiIndex';
import { pageText } from '../../../support/fakes';

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
