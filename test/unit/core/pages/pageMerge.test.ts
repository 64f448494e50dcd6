import * as assert from 'node:assert/strict';
import { mergePageFile, type TextMerge } from '../../../../src/core/pages/pageMerge';
import { serializePage } from '../../../../src/core/pages/page';
import type { PageFrontmatter } from '../../../../src/core/model';

const MARKERS = { size: 7, ours: 'ours', theirs: 'theirs' };

/** A whole-text three-way merge: enough to tell which texts the page merge hands over (git merge-file is tested in the system tests). */
const wholeText: TextMerge = async (base, ours, theirs) => {
  if (ours === theirs || base === theirs) return { text: ours, conflicted: false };
  if (base === ours) return { text: theirs, conflicted: false };
  return { text: `<<<<<<< ours\n${ours}=======\n${theirs}>>>>>>> theirs\n`, conflicted: true };
};

const FRONTMATTER: PageFrontmatter = {
  title: 'Caching', topic: 'patterns', summary: 'How caching works.', status: 'active', tags: ['cache'],
  created: '2026-11-01', updated: '2026-11-01', corroborations: 0, sources: [],
  anchors: { 'src/a.ts:A': 'sig:00000001 body:00000001', 'src/b.ts:B': 'sig:00000002 body:00000002' },
};
const BODY = '# Caching\n\nUses `src/a.ts:A` and `src/b.ts:B`.\n';

const page = (change: Partial<PageFrontmatter> = {}, body = BODY, extras: Record<string, unknown> = {}) => serializePage({ ...FRONTMATTER, ...change }, body, extras);
const anchors = (a: string, b: string) => ({ anchors: { 'src/a.ts:A': a, 'src/b.ts:B': b } });
const merge = (base: string, ours: string, theirs: string) => mergePageFile(base, ours, theirs, wholeText, MARKERS);

describe('mergePageFile', () => {
  const [A0, B0] = [FRONTMATTER.anchors['src/a.ts:A'], FRONTMATTER.anchors['src/b.ts:B']];
  const [A1, A2, B1] = ['sig:00000001 body:0000000a at:aaaaaaaaaaaa', 'sig:00000001 body:0000000b at:bbbbbbbbbbbb', 'sig:00000002 body:0000000c at:cccccccccccc'];

  it('takes, citation by citation, the anchor the side that re-stamped it wrote, in both directions', async () => {
    const ours = page(anchors(A1, B0));
    const theirs = page(anchors(A0, B1));
    const expected = page(anchors(A1, B1));
    assert.deepEqual(await merge(page(), ours, theirs), { text: expected, conflicts: [] });
    assert.deepEqual(await merge(page(), theirs, ours), { text: expected, conflicts: [] });
  });

  it('agrees when both sides re-stamped a citation alike', async () => {
    const ours = page({ ...anchors(A1, B0), updated: '2026-11-05' });
    const theirs = page({ ...anchors(A1, B1), updated: '2026-11-05' });
    assert.deepEqual(await merge(page(), ours, theirs), { text: page({ ...anchors(A1, B1), updated: '2026-11-05' }), conflicts: [] });
  });

  it('leaves a citation both sides re-stamped differently between conflict markers, and only that one', async () => {
    const result = await merge(page(), page(anchors(A1, B1)), page(anchors(A2, B0)));
    assert.deepEqual(result.conflicts, ['anchor "src/a.ts:A"']);
    assert.match(result.text, new RegExp([
      'anchors:',
      '<<<<<<< ours',
      `  "src/a.ts:A": "${A1}"`,
      '=======',
      `  "src/a.ts:A": "${A2}"`,
      '>>>>>>> theirs',
      `  "src/b.ts:B": "${B1}"`,
      '---',
    ].join('\n')));
  });

  it('merges the other fields key by key, and leaves a field both changed differently as a conflict', async () => {
    const clean = await merge(page(), page({ summary: 'Ours.' }), page({ tags: ['cache', 'http'] }));
    assert.deepEqual(clean, { text: page({ summary: 'Ours.', tags: ['cache', 'http'] }), conflicts: [] });
    const conflicted = await merge(page(), page({ summary: 'Ours.' }), page({ summary: 'Theirs.' }));
    assert.deepEqual(conflicted.conflicts, ['field "summary"']);
    assert.match(conflicted.text, /\ntopic: patterns\n<<<<<<< ours\nsummary: Ours\.\n=======\nsummary: Theirs\.\n>>>>>>> theirs\nstatus: active\n/);
  });

  it('keeps keys outside the schema, merged the same way, and adds no field a side leaves out', async () => {
    const base = '---\ntitle: Caching\ntopic: patterns\nsummary: S.\nstatus: active\ncreated: 2026-11-01\nupdated: 2026-11-01\nowner: ann\n---\nBody.\n';
    const result = await merge(base, base.replace('owner: ann', 'owner: bob'), base.replace('updated: 2026-11-01', 'updated: 2026-11-03'));
    assert.deepEqual(result, { text: base.replace('owner: ann', 'owner: bob').replace('updated: 2026-11-01', 'updated: 2026-11-03'), conflicts: [] });
  });

  it('hands the bodies, without frontmatter, to the text merge', async () => {
    const result = await merge(page(), page(anchors(A1, B0), `${BODY}Ours.\n`), page(anchors(A0, B1)));
    assert.deepEqual(result, { text: page(anchors(A1, B1), `${BODY}Ours.\n`), conflicts: [] });
    const both = await merge(page(), page({}, `${BODY}Ours.\n`), page({}, `${BODY}Theirs.\n`));
    assert.deepEqual(both.conflicts, ['body']);
    assert.ok(both.text.startsWith(page({}, '')), 'the frontmatter is written once, merged');
    assert.ok(both.text.endsWith(`<<<<<<< ours\n${BODY}Ours.\n=======\n${BODY}Theirs.\n>>>>>>> theirs\n`));
  });

  it('merges a page both sides added as from an empty page', async () => {
    const result = await merge('', page(anchors(A1, B0)), page(anchors(A2, B0)));
    assert.deepEqual(result.conflicts, ['anchor "src/a.ts:A"']);
  });

  it('merges a side that is not a valid page as plain text, and says why', async () => {
    const broken = page().replace('topic: patterns', 'topic: nonsense');
    const result = await merge(page(), broken, page({ summary: 'Theirs.' }));
    assert.deepEqual(result.conflicts, ['text']);
    assert.match(result.asText ?? '', /^ours is not a valid page \(Frontmatter field "topic" must be one of /);
    assert.match((await merge(page(), page().replace(/\n/g, '\r\n'), page({ summary: 'x' }))).asText ?? '', /^ours has CRLF line endings$/);
  });

  it('returns a side unchanged when the other did not change the page', async () => {
    const changed = `${page()}\n`;
    assert.equal((await merge(page(), page(), changed)).text, changed);
    assert.equal((await merge(page(), changed, page())).text, changed);
  });
});
