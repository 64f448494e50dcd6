import * as assert from 'node:assert/strict';
import { mergeIndexFile } from '../../../../src/core/index/indexMerge';
import { parsePage } from '../../../../src/core/pages/page';
import { buildIndex, renderIndexJson, renderIndexMarkdown } from '../../../../src/core/index/wikiIndex';
import { pageText } from '../../../support/fakes';

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

  describe('refuses a side with an entry no rebuild could write, saying which and why', () => {
    const good = buildIndex(side({ a: {}, b: {} }));
    const json = (pages: unknown[]) => JSON.stringify({ version: 1, pages }, null, 2);
    const refusal = (theirs: string, fileName = 'index.json') => {
      const ours = fileName.endsWith('.md') ? renderIndexMarkdown(good) : renderIndexJson(good);
      const result = mergeIndexFile(fileName, ours, ours, theirs);
      assert.equal(result.text, undefined);
      assert.deepEqual(result.conflicts, []);
      return result.problem ?? '';
    };
    const withEntry = (change: Record<string, unknown>) => json([...good.pages, { ...good.pages[0], slug: 'c', path: '.wiki/pages/c.md', ...change }]);

    it('an invalid slug, a Windows device name among them', () => {
      assert.match(refusal(withEntry({ slug: '../../hooks/pre-commit', path: '.wiki/pages/../../hooks/pre-commit.md' })), /^theirs: page 3 has the slug "\.\.\/\.\.\/hooks\/pre-commit", which is not a valid page slug$/);
      assert.match(refusal(withEntry({ slug: 'con', path: '.wiki/pages/con.md' })), /slug "con", which is not a valid page slug/);
      assert.match(refusal(json([{ ...good.pages[0], slug: 7 }])), /^theirs: is not a catalog/);
    });

    it('a path that is not .wiki/pages/<slug>.md', () => {
      assert.equal(refusal(withEntry({ path: '/etc/passwd' })), 'theirs: page 3 ("c") has the path "/etc/passwd", not ".wiki/pages/c.md"');
      assert.match(refusal(withEntry({ path: '.wiki/pages/a.md' })), /has the path ".wiki\/pages\/a.md", not ".wiki\/pages\/c.md"/);
      assert.match(refusal(withEntry({ path: 'pages/c.md' })), /has the path/);
    });

    it('fields of the wrong type or outside the model', () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ title: 5 }, /title that is not a string/],
        [{ summary: null }, /summary that is not a string/],
        [{ updated: undefined }, /updated that is not a string/],
        [{ topic: 'secrets' }, /topic "secrets", not one of architecture/],
        [{ status: 'retired' }, /status "retired", not one of active, stale, superseded, archived/],
        [{ tags: 'x' }, /tags that are not a list of strings/],
        [{ tags: [1] }, /tags that are not a list of strings/],
        [{ links: ['a]](http://evil)'] }, /links that are not a list/],
        [{ links: [''] }, /links that are not a list/],
        [{ corroborations: '1' }, /corroborations that are not a whole number/],
        [{ corroborations: -1 }, /corroborations that are not a whole number/],
        [{ corroborations: 1.5 }, /corroborations that are not a whole number/],
        [{ superseded_by: '../x' }, /superseded_by "..\/x", which is not a valid page slug/],
      ];
      for (const [change, expected] of cases) assert.match(refusal(withEntry(change)), expected, JSON.stringify(change));
      assert.match(refusal(json([...good.pages, 'c'])), /^theirs: is not a catalog/);
    });

    it('unknown keys in an entry or at the top level, and a page listed twice', () => {
      assert.match(refusal(withEntry({ command: 'rm -rf ~' })), /page 3 has the unknown key "command"/);
      assert.match(refusal(JSON.stringify({ version: 1, pages: good.pages, hooks: [] })), /unknown top-level key "hooks"/);
      assert.match(refusal(json([...good.pages, good.pages[0]])), /lists the page "a" twice/);
    });

    it('hostile index.md lines', () => {
      const md = renderIndexMarkdown(good);
      const lines: [string, RegExp][] = [
        ['- [x](pages/../../etc/passwd.md)', /^theirs: line \d+ is not a page entry: "- \[x\]\(pages\/\.\.\/\.\.\/etc\/passwd\.md\)"$/],
        ['- [a](javascript:alert(1)) [b](pages/c.md)', /is not a page entry/],
        ['- [x](pages/c.md) <img src=x onerror=alert(1)>', /is not a page entry/],
        ['- [x](pages/c.md) _(retired)_', /is not a page entry/],
        ['- [x](pages/con.md)', /links to "pages\/con.md", and "con" is not a valid page slug/],
        ['- [x](pages/a--b.md)', /"a--b" is not a valid page slug/],
        ['- [A](pages/a.md)', /lists the page "a" twice/],
      ];
      for (const [line, expected] of lines) assert.match(refusal(md.replace('## Architecture\n\n', `## Architecture\n\n${line}\n`), 'index.md'), expected, line);
      assert.match(refusal(`# Notes\n\n${md}`, 'index.md'), /does not start with the generated header/);
      assert.match(refusal(md.replace('## Architecture', '## Passwords'), 'index.md'), /is not a topic heading: "## Passwords"/);
    });
  });

  it('accepts what a rebuild writes: link targets that are not slugs, every status, entries in any key order', () => {
    assertMerges({ a: {} }, { a: {}, b: { body: 'See [[Some Page]] and [[a|A]].' } }, { a: { status: 'stale' } }, { a: { status: 'stale' }, b: { body: 'See [[Some Page]] and [[a|A]].' } });
    const [base, ours] = ([{ a: {} }, { a: {}, b: {} }] as Spec[]).map((spec) => buildIndex(side(spec)));
    const reordered = JSON.stringify({ version: 1, pages: base.pages.map((entry) => Object.fromEntries(Object.entries(entry).reverse())) });
    assert.deepEqual(mergeIndexFile('index.json', renderIndexJson(base), renderIndexJson(ours), reordered), { text: renderIndexJson(ours), conflicts: [] });
  });
});
