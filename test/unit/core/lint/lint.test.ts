import * as assert from 'node:assert/strict';
import { lintPages } from '../../../../src/core/lint/lint';
import { parsePage } from '../../../../src/core/pages/page';
import { pageText } from '../../../support/fakes';

const page = (slug: string, title: string, body = '', fields: Record<string, string> = {}) =>
  parsePage(`.wiki/pages/${slug}.md`, slug, new TextEncoder().encode(pageText(title, body, fields)));
const summary = (issues: ReturnType<typeof lintPages>) => issues.map((i) => `${i.page.slice(12)}:${i.range.start.line}:${i.code}`);

describe('lintPages', () => {
  it('finds nothing in a healthy wiki', () => {
    assert.deepEqual(lintPages([page('a', 'A', 'see [[b]]'), page('b', 'B', 'see [[a]]')]), []);
  });

  it('reports a broken link at the link', () => {
    const issues = lintPages([page('a', 'A', 'see [[b]]\nand [[gone|Gone]]'), page('b', 'B', '[[a]]')]);
    assert.deepEqual(summary(issues), ['a.md:10:broken-link']);
    assert.equal(issues[0].range.start.character, 4);
    assert.equal(issues[0].data?.target, 'gone');
  });

  it('reports orphan pages, but not in a one-page wiki', () => {
    assert.deepEqual(summary(lintPages([page('a', 'A', '[[b]]'), page('b', 'B'), page('c', 'C')])), ['a.md:0:orphan-page', 'c.md:0:orphan-page']);
    assert.deepEqual(lintPages([page('solo', 'Solo')]), []);
  });

  it('does not count a self-link as an incoming link', () => {
    assert.deepEqual(summary(lintPages([page('a', 'A', '[[a]] [[b]]'), page('b', 'B', '[[b]]')])), ['a.md:0:orphan-page']);
  });

  it('reports duplicate titles on every page that shares one, at the title line', () => {
    const issues = lintPages([page('a', 'Same', '[[b]]'), page('b', 'same', '[[a]]')]);
    assert.deepEqual(summary(issues), ['a.md:1:duplicate-title', 'b.md:1:duplicate-title']);
  });

  it('warns when an active page links to a stale or superseded page, with the replacement', () => {
    const issues = lintPages([
      page('a', 'A', '[[old]] [[older]]'),
      page('old', 'Old', '[[a]]', { status: 'stale', stale_reason: '"code moved"' }),
      page('older', 'Older', '[[old]] [[a]]', { status: 'superseded', superseded_by: 'a' }),
    ]);
    assert.deepEqual(summary(issues), ['a.md:9:links-to-stale', 'a.md:9:links-to-superseded']);
    assert.match(issues[0].message, /code moved/);
    assert.equal(issues[1].data?.replacement, 'a');
  });

  it('reports a superseded_by that points nowhere', () => {
    const issues = lintPages([page('a', 'A', '[[b]]'), page('b', 'B', '[[a]]', { status: 'superseded', superseded_by: 'ghost' })]);
    assert.deepEqual(summary(issues), ['a.md:9:links-to-superseded', 'b.md:8:superseded-by-missing']);
  });

  it('includes each page\'s own parse problems', () => {
    const bad = parsePage('.wiki/pages/bad.md', 'bad', new TextEncoder().encode('no frontmatter [[a]]'));
    assert.deepEqual(summary(lintPages([page('a', 'A', '[[bad]]'), bad])), ['bad.md:0:frontmatter-missing']);
  });
});
