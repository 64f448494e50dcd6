import * as assert from 'node:assert/strict';
import { estimateTokens } from '../../../../src/core/chat/prompt';
import { factsOf } from '../../../../src/core/map/fileFacts';
import { rankFiles, type RankedFile } from '../../../../src/core/map/rankFiles';
import { renderMap } from '../../../../src/core/map/renderMap';
import { resolveFocus } from '../../../../src/core/map/repoMap';

/** Ranked files with declarations whose first lines are of many lengths. */
function ranked(count: number): RankedFile[] {
  return Array.from({ length: count }, (_, i) => ({
    path: `src/module${i}/file${i}.ts`,
    rank: 1 / (i + 1),
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

  it('shows a line declaring several names once, and lists each name', () => {
    const text = 'const { alpha, beta } = load();\nexport function gamma() {}\n';
    const facts = factsOf('a.js', 'd', text, [
      { name: 'alpha', kind: 'variable', startLine: 0 },
      { name: 'beta', kind: 'variable', startLine: 0 },
      { name: 'gamma', kind: 'function', startLine: 1 },
      { name: 'gamma.inner', kind: 'function', startLine: 1 },
    ]);
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
