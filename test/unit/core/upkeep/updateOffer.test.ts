import * as assert from 'node:assert/strict';
import type { DriftIssue } from '../../../../src/core/drift/driftEngine';
import type { UpkeepPlan } from '../../../../src/core/upkeep/upkeep';
import { decideUpdateOffer, pagesToUpdate, updateOfferMessage, upkeepStatusMessage } from '../../../../src/core/upkeep/updateOffer';

function issue(page: string, code: DriftIssue['code']): DriftIssue {
  return { page: `.wiki/pages/${page}.md`, code, severity: 'warning', message: '', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, data: { citation: 'src/a.ts:A', path: 'src/a.ts', symbol: 'A' } } as DriftIssue;
}

const A = '.wiki/pages/a.md';
const B = '.wiki/pages/b.md';
const C = '.wiki/pages/c.md';

describe('upkeep: offering updates for drifted pages', () => {
  it('counts the drift generate --update revisits, each page once, and not unverified or unreadable citations', () => {
    const issues = [
      issue('b', 'body-changed'), issue('b', 'signature-changed'), issue('a', 'renamed-symbol'), issue('c', 'missing-file'),
      issue('d', 'unverified'), issue('e', 'unreadable-file'), issue('f', 'outside-workspace'), issue('g', 'type-changed'), issue('h', 'moved-symbol'), issue('i', 'missing-symbol'),
    ];
    assert.deepEqual(pagesToUpdate(issues), [A, B, C, '.wiki/pages/g.md', '.wiki/pages/h.md', '.wiki/pages/i.md']);
    assert.deepEqual(pagesToUpdate([issue('d', 'unverified')]), []);
  });

  it('offers the drifted pages when a model is set up, and remembers them', () => {
    assert.deepEqual(decideUpdateOffer([B, A], [], true), { offer: true, pages: [A, B], remember: [A, B] });
  });

  it('does not ask again for the same pages, nor for fewer of them', () => {
    assert.deepEqual(decideUpdateOffer([A, B], [A, B], true), { offer: false, why: 'offered-before', pages: [A, B], remember: [A, B] });
    assert.deepEqual(decideUpdateOffer([A], [A, B], true), { offer: false, why: 'offered-before', pages: [A], remember: [A] }, 'B was fixed: forgotten');
  });

  it('asks again when a page drifted that was not offered, for all the drifted pages', () => {
    assert.deepEqual(decideUpdateOffer([A, B, C], [A, B], true), { offer: true, pages: [A, B, C], remember: [A, B, C] });
  });

  it('a page that stopped drifting and drifts again is news', () => {
    const fixed = decideUpdateOffer([], [A], true);
    assert.deepEqual(fixed, { offer: false, why: 'nothing-drifted', pages: [], remember: [] });
    assert.equal(decideUpdateOffer([A], fixed.remember, true).offer, true);
  });

  it('without a model offers nothing and remembers nothing new, so the offer comes once one is set up', () => {
    const offline = decideUpdateOffer([A, B], [A], false);
    assert.deepEqual(offline, { offer: false, why: 'no-model', pages: [A, B], remember: [A] });
    assert.deepEqual(decideUpdateOffer([A, B], offline.remember, true).offer, true);
  });

  it('says how many pages drifted, and where when there are several wikis', () => {
    assert.equal(updateOfferMessage(3), '3 wiki pages drifted: propose updates?');
    assert.equal(updateOfferMessage(1, 'api'), '1 wiki page drifted in api: propose updates?');
  });

  it('the status bar names drifted pages beside what upkeep changed, never "nothing to change" alone when pages drifted', () => {
    const empty: UpkeepPlan = { stale: [], restaled: [], reactivated: [], archived: [] };
    const staled: UpkeepPlan = { ...empty, stale: [{ slug: 'auth', citations: ['src/a.ts:gone'] }] };
    assert.equal(upkeepStatusMessage(empty, 0), 'nothing to change');
    assert.equal(upkeepStatusMessage(empty, 3), '3 pages drifted, nothing else to change');
    assert.equal(upkeepStatusMessage(staled, 1), '1 marked stale, 0 active again, 0 archived; 1 page drifted');
  });
});
