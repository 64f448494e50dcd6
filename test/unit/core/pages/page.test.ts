import * as assert from 'node:assert/strict';
import { parsePage, serializePage, MAX_PAGE_BYTES } from '../../../../src/core/pages/page';
import { LintCode } from '../../../../src/core/lint/lintCodes';
import { pageText } from '../../../support/fakes';

const encode = (text: string) => new TextEncoder().encode(text);
const parse = (text: string | Uint8Array, slug = 'a-page') =>
  parsePage(`.wiki/pages/${slug}.md`, slug, typeof text === 'string' ? encode(text) : text);
const codes = (text: string | Uint8Array, slug?: string) => parse(text, slug).problems.map((p) => p.code);

describe('parsePage', () => {
  it('reads a valid page with all fields and its links', () => {
    const page = parse(pageText('Request pipeline', 'See [[other-page]] and [[third|the third]].\n', { tags: '[http, core]' }));
    assert.equal(page.valid, true);
    assert.deepEqual(page.problems, []);
    assert.equal(page.frontmatter.title, 'Request pipeline');
    assert.equal(page.frontmatter.created, '2026-11-01');
    assert.deepEqual(page.frontmatter.tags, ['http', 'core']);
    assert.equal(page.frontmatter.corroborations, 0);
    assert.deepEqual(page.links.map((l) => [l.target, l.label]), [['other-page', undefined], ['third', 'the third']]);
    assert.equal(page.bodyStartLine, 9);
    assert.deepEqual(page.links[0].range, { start: { line: 9, character: 4 }, end: { line: 9, character: 18 } });
  });

  it('ignores links inside fenced code blocks and inline code', () => {
    const page = parse(pageText('T', '```md\n[[in-fence]]\n```\n`[[inline]]` then [[real]]\n~~~\n[[tilde]]\n~~~\n'));
    assert.deepEqual(page.links.map((l) => l.target), ['real']);
    assert.equal(page.links[0].range.start.line, 12);
  });

  it('reports a page without frontmatter and still reads its links', () => {
    const page = parse('# Just markdown\n[[x]]\n');
    assert.deepEqual(page.problems.map((p) => p.code), [LintCode.FrontmatterMissing]);
    assert.equal(page.links.length, 1);
    assert.equal(page.readable, true);
  });

  it('reports malformed YAML on the line where it breaks', () => {
    const page = parse('---\ntitle: ok\ntopic: [unclosed\nsummary: x\n---\nbody\n');
    assert.equal(page.problems.length, 1);
    assert.equal(page.problems[0].code, LintCode.FrontmatterYaml);
    assert.ok(page.problems[0].range.start.line >= 2, `line ${page.problems[0].range.start.line}`);
    assert.match(page.problems[0].message, /not valid YAML/);
  });

  it('reports each missing and invalid field at its own line', () => {
    const page = parse('---\ntitle: ""\ntopic: cooking\nstatus: active\ncreated: 22/11/2026\nupdated: 2026-11-02\ncorroborations: -1\ntags: notalist\n---\n');
    const byField = page.problems.map((p) => [p.code, p.range.start.line, p.message.match(/"(\w+)"/)?.[1]]);
    assert.deepEqual(byField, [
      ['field-invalid', 1, 'title'],
      ['field-missing', 0, 'summary'],
      ['field-invalid', 2, 'topic'],
      ['field-invalid', 4, 'created'],
      ['field-invalid', 7, 'tags'],
      ['field-invalid', 6, 'corroborations'],
    ]);
    assert.equal(page.valid, false);
  });

  it('requires superseded_by on a superseded page', () => {
    assert.deepEqual(codes(pageText('T', '', { status: 'superseded' })), [LintCode.FieldMissing]);
    assert.deepEqual(codes(pageText('T', '', { status: 'superseded', superseded_by: 'newer' })), []);
    assert.deepEqual(codes(pageText('T', '', { status: 'superseded', superseded_by: '../etc/passwd' })), [LintCode.FieldInvalid]);
  });

  it('refuses binary, oversized and non-UTF-8 files without parsing them', () => {
    assert.deepEqual(codes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1])), [LintCode.PageBinary]);
    assert.deepEqual(codes(new Uint8Array(MAX_PAGE_BYTES + 1).fill(0x61)), [LintCode.PageTooLarge]);
    assert.deepEqual(codes(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x41])), [LintCode.PageEncoding]);
    assert.equal(parse(new Uint8Array([0xff, 0xfe])).readable, false);
  });

  it('reports a file name that is not a valid slug', () => {
    assert.deepEqual(codes(pageText('T'), 'Bad Name'), [LintCode.InvalidSlug]);
    assert.match(parse(pageText('T'), 'con').problems[0].message, /"con\.md" is not a valid slug: Windows reserves that name/);
  });

  it('handles CRLF line endings and a BOM', () => {
    const page = parse(`\ufeff${pageText('T', 'x [[y]]\n').replace(/\n/g, '\r\n')}`);
    assert.deepEqual(page.problems, []);
    assert.equal(page.links[0].target, 'y');
  });

  it('round-trips through serializePage with dates kept as YYYY-MM-DD', () => {
    const original = parse(pageText('Round trip', 'Body with [[link]].\n', { anchors: '{"src/a.ts:Foo": "sig:1 body:2"}' }));
    const again = parse(serializePage(original.frontmatter as never, original.body));
    assert.deepEqual(again.frontmatter, original.frontmatter);
    assert.equal(again.body, original.body);
  });

  it('writes diff-friendly frontmatter and keeps fields outside the schema', () => {
    const original = parse(pageText('Pipeline: how it works', 'Body.\n', { tags: '[http, "yes"]', owner: 'team-web', review: '{every: 90d}' }));
    assert.deepEqual(original.extraFields, { owner: 'team-web', review: { every: '90d' } });
    const text = serializePage({ ...original.frontmatter, anchors: { 'src/a.ts:Foo': 'sig:1 body:2' } } as never, original.body, original.extraFields);
    assert.equal(text, [
      '---',
      'title: "Pipeline: how it works"',
      'topic: architecture',
      'summary: "About Pipeline: how it works"',
      'status: active',
      'tags: [http, "yes"]',
      'created: 2026-11-01',
      'updated: 2026-11-02',
      'corroborations: 0',
      'sources: []',
      'anchors:',
      '  "src/a.ts:Foo": "sig:1 body:2"',
      'owner: team-web',
      'review:',
      '  every: 90d',
      '---',
      'Body.',
      '',
    ].join('\n'));
    const again = parse(text);
    assert.deepEqual(again.problems, []);
    assert.deepEqual(again.extraFields, original.extraFields);
    assert.deepEqual(again.frontmatter.tags, ['http', 'yes']);
  });

  it('treats hostile YAML (a custom tag) as invalid YAML rather than executing it', () => {
    assert.deepEqual(codes('---\ntitle: !!js/function "function(){ return 1 }"\n---\n'), [LintCode.FrontmatterYaml]);
  });
});
