import * as assert from 'node:assert/strict';
import { estimateTokens } from '../../../../src/core/chat/prompt';
import { factsOf } from '../../../../src/core/map/fileFacts';
import { referencesOf } from './referencesOf';
import { rankFiles, type RankedFile } from '../../../../src/core/map/rankFiles';
import { renderMap } from '../../../../src/core/map/renderMap';
import { resolveFocus } from '../../../../src/core/map/repoMap';

/** Ranked files with declarations whose first lines are of many lengths. */
function ranked(count: number): RankedFile[] {
  return Array.from({ length: count }, (_, i) => ({
    path: `src/module${i}/file${i}.ts`,
    rank: 1 / (i + 1),
    best: 1,
    definitions: Array.from({ length: (i % 15) + 1 }, (_, j) => ({
      definition: { name: `fn${i}_${j}`, kind: 'function' as const, line: j * 3, signature: `export function fn${i}_${j}(${'argument, '.repeat((i * 7 + j) % 17)}): void {` },
      rank: 1 / (j + 1),
    })),
  }));
}

describe('renderMap', () => {
  it('never exceeds the token budget, whatever the budget', () => {
    const files = ranked(200);
    for (const budget of [1, 10, 17, 64, 100, 257, 1000, 1024, 4096, 100000]) {
      const map = renderMap(files, budget);
      assert.ok(estimateTokens(map.text) <= budget, `${budget}: ${estimateTokens(map.text)}`);
      assert.equal(map.tokens.used, estimateTokens(map.text));
      assert.equal(map.files.length + map.omitted, files.length);
      if (budget >= 1000 && map.omitted) assert.ok(map.tokens.used > budget * 0.9, `a ${budget}-token map that left files out is nearly full (${map.tokens.used})`);
    }
  });

  it('shows files in rank order and, in each, the most-used declarations in the file\'s order', () => {
    const map = renderMap(ranked(3), 300);
    assert.deepEqual(map.files.map((file) => file.path), ['src/module0/file0.ts', 'src/module1/file1.ts', 'src/module2/file2.ts']);
    assert.match(map.text, /^src\/module0\/file0\.ts:\n {4}1│ export function fn0_0\(\): void \{\nsrc\/module1\/file1\.ts:\n {4}1│ /);
    const lines = map.files[2].definitions.map((definition) => definition.line);
    assert.deepEqual(lines, [...lines].sort((a, b) => a - b));
  });

  it('chooses declarations by rank across files: a much-used one of a lower file before the little-used ones of a higher file', () => {
    const declaration = (name: string, line: number, rank: number) => ({ definition: { name, kind: 'function' as const, line, signature: `function ${name}() {` }, rank });
    const top = { path: 'top.ts', rank: 0.6, best: 0.2, definitions: [declaration('central', 0, 0.2), ...Array.from({ length: 8 }, (_, i) => declaration(`minor${i}`, i + 1, 0.01))] };
    const lower = { path: 'lower.ts', rank: 0.4, best: 0.5, definitions: [declaration('popular', 9, 0.5), declaration('unused', 10, 0)] };
    // 40 tokens: the two best signatures fit in half of them; every other declaration by name.
    const map = renderMap([top, lower], 40);
    assert.equal(map.text, 'top.ts:\n    1│ function central() {\n  also: minor0, minor1, minor2, minor3, minor4, minor5, minor6, minor7\nlower.ts:\n   10│ function popular() {\n  also: unused');
    assert.equal(map.tokens.used, 40);
    assert.deepEqual(map.files.map((file) => file.definitions.map((definition) => definition.name)), [['central', ...Array.from({ length: 8 }, (_, i) => `minor${i}`)], ['popular', 'unused']]);
    // 20 tokens: one signature, then names while they fit; files still in rank order.
    assert.equal(renderMap([top, lower], 20).text, 'top.ts: central, minor0, minor1, minor2\nlower.ts:\n   10│ function popular() {');
  });

  it('names further declarations once their signatures no longer fit, and shows every signature when they do', () => {
    const files = ranked(200);
    const small = renderMap(files.slice(0, 2), 1000);
    assert.doesNotMatch(small.text, /also:|\.ts: /, 'every signature fits: no names listed');
    const map = renderMap(files, 1000);
    const named = map.text.split('\n').filter((line) => /^ {2}also: |^\S+\.ts: \w/.test(line));
    assert.ok(named.length > 10, map.text);
    const signatures = map.text.split('\n').filter((line) => line.includes('│')).reduce((chars, line) => chars + line.length + 1, 0);
    assert.ok(signatures <= 1000 * 4 * 0.5 + 1, `signature lines take at most half the budget (${signatures} characters)`);
    assert.ok(map.tokens.used <= 1000 && map.tokens.used > 990, `${map.tokens.used}`);
  });

  it('shows a line declaring several names once, and lists each name', () => {
    const text = 'const { alpha, beta } = load();\nexport function gamma() {}\n';
    const facts = factsOf('a.js', 'd', text, [
      { name: 'alpha', kind: 'variable', startLine: 0 },
      { name: 'beta', kind: 'variable', startLine: 0 },
      { name: 'gamma', kind: 'function', startLine: 1 },
      { name: 'gamma.inner', kind: 'function', startLine: 1 },
    ], referencesOf(text));
    const map = renderMap(rankFiles([facts]), 100);
    assert.equal(map.text, 'a.js:\n    1│ const { alpha, beta } = load();\n    2│ export function gamma() {}');
    assert.deepEqual(map.files[0].definitions.map((definition) => definition.name), ['alpha', 'beta', 'gamma']);
  });

  it('names the skipped files it is given', () => {
    assert.deepEqual(renderMap([], 100, [{ path: 'big.c', reason: 'too-large' }]).skipped, [{ path: 'big.c', reason: 'too-large' }]);
  });
});

describe('resolveFocus', () => {
  it('reads files, folders and names', () => {
    const focus = resolveFocus(['./src/a.ts', 'lib/', 'Router.match', 'nothing/here.ts'], ['src/a.ts', 'lib/x.py', 'lib/y/z.go', 'other.rb']);
    assert.deepEqual([...focus.files].sort(), ['lib/x.py', 'lib/y/z.go', 'src/a.ts']);
    assert.deepEqual([...focus.names].sort(), ['Router', 'match']);
  });
});
