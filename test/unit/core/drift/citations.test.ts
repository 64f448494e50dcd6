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
    for (const code of ['Foo.bar', 'e.g.', 'npm test', 'const x = 1', 'a:b', 'x.ts is nice', 'README', 'https://example.com/a.ts', 'settings.yaml:key']) {
      assert.equal(parseCitationText(code), undefined, code);
    }
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
