import * as assert from 'node:assert/strict';
import { parsePage } from '../../../../src/core/pages/page';
import { buildIndex, parseIndex, renderIndexJson, renderIndexMarkdown } from '../../../../src/core/index/wikiIndex';
import { pageText } from '../../../support/fakes';

const page = (slug: string, title: string, body = '', fields: Record<string, string> = {}) =>
  parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(title, body, fields)));

describe('wiki index', () => {
  const pages = [
    page('zeta', 'Zeta', '[[alpha]] [[alpha]] [[beta]]', { tags: '[z, a]', topic: 'gotchas' }),
    page('alpha', 'Alpha | <b>', '[[zeta]]', { status: 'stale' }),
    page('beta', 'Beta', '', { status: 'superseded', superseded_by: 'alpha' }),
  ];

  it('is deterministic whatever order the pages were read in', () => {
    const a = renderIndexJson(buildIndex(pages));
    const b = renderIndexJson(buildIndex([...pages].reverse()));
    assert.equal(a, b);
    assert.equal(renderIndexMarkdown(buildIndex(pages)), renderIndexMarkdown(buildIndex([...pages].reverse())));
  });

  it('sorts pages by slug, dedupes links and keeps a stable key order', () => {
    const index = buildIndex(pages);
    assert.deepEqual(index.pages.map((p) => p.slug), ['alpha', 'beta', 'zeta']);
    assert.deepEqual(index.pages[2].links, ['alpha', 'beta']);
    assert.deepEqual(index.pages[2].tags, ['a', 'z']);
    assert.deepEqual(Object.keys(index.pages[1]), ['slug', 'path', 'title', 'topic', 'summary', 'status', 'tags', 'updated', 'corroborations', 'links', 'superseded_by']);
    assert.ok(!renderIndexJson(index).includes('2026-11-22T'), 'no timestamps of its own');
  });

  it('renders a markdown catalog grouped by topic with escaped titles', () => {
    const md = renderIndexMarkdown(buildIndex(pages));
    assert.match(md, /## Architecture\n\n- \[Alpha \\\| \\<b\\>\]\(pages\/alpha\.md\) _\(stale\)_/);
    assert.ok(md.indexOf('## Architecture') < md.indexOf('## Gotchas'));
  });

  it('says why an index cannot be used', () => {
    assert.deepEqual(parseIndex(undefined), { problem: 'missing' });
    assert.deepEqual(parseIndex('{"version":1,'), { problem: 'unparsable' });
    assert.deepEqual(parseIndex('{"version":2,"pages":[]}'), { problem: 'unparsable' });
    const conflicted = '{\n<<<<<<< HEAD\n"version": 1,\n=======\n"version": 1,\n>>>>>>> branch\n"pages": []}\n';
    assert.deepEqual(parseIndex(conflicted), { problem: 'conflict' });
    assert.deepEqual(parseIndex(renderIndexJson(buildIndex(pages))), { index: buildIndex(pages) });
  });

  it('leaves unreadable pages out of the catalog', () => {
    const binary = parsePage('.wiki/pages/bin.md', 'bin', new Uint8Array([0, 1, 2]));
    assert.deepEqual(buildIndex([binary, ...pages]).pages.map((p) => p.slug), ['alpha', 'beta', 'zeta']);
  });
});
