import * as assert from 'node:assert/strict';
import { mergeIndexFile } from '../../src/core/indexMerge';
import { parsePage } from '../../src/core/page';
import { buildIndex, renderIndexJson, renderIndexMarkdown } from '../../src/core/wikiIndex';
import { pageText } from './fakes';

type Spec = Record<string, { title?: string; topic?: string; status?: string; body?: string }>;

/** The pages of one side of a merge. */
function side(spec: Spec) {
  return Object.entries(spec).map(([slug, p]) => parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(p.title ?? slug, p.body ?? '', { topic: p.topic ?? 'architecture', status: p.status ?? 'active' }))));
}

/** Merges index.json and index.md of three sides and checks both against regenerating from `expected`. */
function assertMerges(base: Spec, ours: Spec, theirs: Spec, expected: Spec): void {
  const indexes = [base, ours, theirs].map((spec) => buildIndex(side(spec)));
  const want = buildIndex(side(expected));
  const json = mergeIndexFile('.wiki/index.json', ...(indexes.map(renderIndexJson) as [string, string, string]));
  assert.deepEqual(json, { text: renderIndexJson(want), conflicts: [] });
  const md = mergeIndexFile('.wiki/index.md', ...(indexes.map(renderIndexMarkdown) as [string, string, string]));
  assert.deepEqual(md, { text: renderIndexMarkdown(want), conflicts: [] });
}

describe('index merge driver', () => {
  it('keeps the pages each side added, in one topic or across topics', () => {
    const base = { welcome: { topic: 'other' } };
    assertMerges(base, { ...base, caching: { topic: 'patterns' } }, { ...base, retries: { topic: 'patterns' } }, { ...base, caching: { topic: 'patterns' }, retries: { topic: 'patterns' } });
    assertMerges(base, { ...base, caching: { topic: 'patterns' } }, { ...base, retries: { topic: 'gotchas' } }, { ...base, caching: { topic: 'patterns' }, retries: { topic: 'gotchas' } });
  });

  it('takes an edit, a move to another topic or a deletion from whichever side made it', () => {
    const base = { a: {}, b: {}, c: {} };
    assertMerges(base, { a: { title: 'A renamed' }, b: {}, c: {} }, { a: {}, b: { topic: 'gotchas', status: 'stale' } }, { a: { title: 'A renamed' }, b: { topic: 'gotchas', status: 'stale' } });
  });

  it('merges into an empty catalog and from a file one side added', () => {
    assertMerges({}, { a: {} }, { b: {} }, { a: {}, b: {} });
    const ours = renderIndexJson(buildIndex(side({ a: {} })));
    assert.equal(mergeIndexFile('index.json', '', ours, ours).text, ours);
  });

  it('reports a page both sides changed differently, keeping ours for it', () => {
    const [base, ours, theirs] = [{ a: {} }, { a: { title: 'Ours' } }, { a: { title: 'Theirs' } }].map((spec) => renderIndexJson(buildIndex(side(spec))));
    assert.deepEqual(mergeIndexFile('index.json', base, ours, theirs), { text: ours, conflicts: ['a'] });
  });

  it('gives up on a side that is not a generated catalog (hand edits, conflict markers)', () => {
    const good = renderIndexMarkdown(buildIndex(side({ a: {} })));
    assert.equal(mergeIndexFile('index.md', good, good, `${good}\nSome notes by hand.\n`).text, undefined);
    assert.equal(mergeIndexFile('index.md', good, `<<<<<<< HEAD\n${good}=======\n>>>>>>> x\n`, good).text, undefined);
    assert.equal(mergeIndexFile('index.json', '{}', '{"version":1,"pages":[]}', '{"version":1,"pages":[]}').text, undefined);
  });
});
