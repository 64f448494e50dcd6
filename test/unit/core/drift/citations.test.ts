import * as assert from 'node:assert/strict';
import { findCitations, parseCitationText } from '../../../../src/core/drift/citations';

describe('citations', () => {
  it('parses files, symbols, members and nested namespaces', () => {
    assert.deepEqual(parseCitationText('src/a.ts'), { text: 'src/a.ts', path: 'src/a.ts', outside: false });
    assert.deepEqual(parseCitationText('src/a.ts:Foo'), { text: 'src/a.ts:Foo', path: 'src/a.ts', symbol: 'Foo', outside: false });
    assert.equal(parseCitationText('src/a.ts:Foo.bar')?.symbol, 'Foo.bar');
    assert.equal(parseCitationText('lib/ns.ts:Outer.Inner.fn()')?.symbol, 'Outer.Inner.fn');
    assert.equal(parseCitationText('./src/a.ts:Foo')?.path, 'src/a.ts');
    assert.equal(parseCitationText('package.json')?.path, 'package.json');
  });

  it('leaves ordinary inline code alone', () => {
    for (const code of ['Foo.bar', 'e.g.', 'npm test', 'const x = 1', 'a:b', 'x.ts is nice', 'README', 'https://example.com/a.ts', 'package.json:12', 'src/a.ts:12', 'src/a.ts:Foo#L3', '/', 'src//']) {
      assert.equal(parseCitationText(code), undefined, code);
    }
  });

  it('parses line ranges as read_code does: #L10-L20, #L10-20 and one line #L10', () => {
    assert.deepEqual(parseCitationText('src/a.ts#L10-L20'), { text: 'src/a.ts#L10-L20', path: 'src/a.ts', outside: false, lines: { start: 10, end: 20 } });
    assert.deepEqual(parseCitationText('src/a.ts#L10-20')?.lines, { start: 10, end: 20 });
    assert.deepEqual(parseCitationText('docs/guide.md#L7')?.lines, { start: 7, end: 7 });
    assert.deepEqual(parseCitationText('src/a.ts#L0')?.lines, { start: 0, end: 0 }, 'kept as written, so drift can say what is wrong with it');
    assert.equal(parseCitationText('src/a#1.ts')?.path, 'src/a#1.ts', 'a # that starts no line range is part of the path');
    assert.equal(parseCitationText('Makefile#L1-L3'), undefined, 'a path needs a slash or a known extension, as for any citation');
  });

  it('parses a folder written with its trailing slash', () => {
    assert.deepEqual(parseCitationText('src/adapters/'), { text: 'src/adapters/', path: 'src/adapters', outside: false, folder: true });
    assert.deepEqual(parseCitationText('src/'), { text: 'src/', path: 'src', outside: false, folder: true });
    assert.equal(parseCitationText('../elsewhere/')?.outside, true);
  });

  it('parses keys of JSON, YAML and TOML files, and only of those', () => {
    assert.deepEqual(parseCitationText('package.json:scripts.test'), { text: 'package.json:scripts.test', path: 'package.json', symbol: 'scripts.test', outside: false });
    assert.equal(parseCitationText('pyproject.toml:project.dependencies')?.symbol, 'project.dependencies');
    assert.equal(parseCitationText('.github/workflows/ci.yml:jobs.unit-test.steps.0')?.symbol, 'jobs.unit-test.steps.0');
    assert.equal(parseCitationText('package.json:devDependencies.@types/node')?.symbol, 'devDependencies.@types/node');
    assert.equal(parseCitationText('README.md:Intro'), undefined, 'markdown has no keys');
  });

  it('flags paths that leave the workspace', () => {
    for (const path of ['../outside.ts', '/etc/passwd.ts', 'src/../../x.ts', '~/x.ts', 'C:/x.ts']) {
      assert.equal(parseCitationText(path)?.outside, true, path);
    }
  });

  it('finds citations with ranges in file coordinates, but not inside fenced code', () => {
    const body = 'Intro `src/a.ts:Foo` and ``src/b.ts``.\n```ts\n`src/fenced.ts:No`\n```\nLast `src/c.ts:Bar.baz`\n';
    const citations = findCitations({ body, bodyStartLine: 5 });
    assert.deepEqual(citations.map((c) => c.text), ['src/a.ts:Foo', 'src/b.ts', 'src/c.ts:Bar.baz']);
    assert.deepEqual(citations[0].range, { start: { line: 5, character: 7 }, end: { line: 5, character: 19 } });
    assert.deepEqual(citations[1].range.start, { line: 5, character: 27 });
    assert.equal(citations[2].range.start.line, 9);
  });
});
