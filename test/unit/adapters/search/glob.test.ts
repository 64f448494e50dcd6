import * as assert from 'node:assert/strict';
import { globMatcher } from '../../../../src/adapters/search/glob';
import { CodeSearchError, MAX_GLOB_CHARS } from '../../../../src/core/tools/codeSearch';

/**
 * The RegExp translation globMatcher used before (src/adapters/search/ripgrep.ts until issue 36):
 * the reference the linear matcher must agree with on ordinary globs. Never run on a hostile glob.
 */
function regexGlob(given: string): RegExp {
  const glob = given.replace(/^\.\//, '');
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      i++;
      if (glob[i + 1] === '/') {
        i++;
        source += '(?:.*/)?';
      } else source += '.*';
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '{') {
      braces++;
      source += '(?:';
    } else if (c === '}' && braces) {
      braces--;
      source += ')';
    } else if (c === ',' && braces) source += '|';
    else if (c === '[' && glob.indexOf(']', i + 2) > i) {
      const close = glob.indexOf(']', i + 2);
      source += `[${glob.slice(i + 1, close).replace(/^!/, '^').replace(/[\\\]]/g, '\\$&')}]`;
      i = close;
    } else source += c.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
  }
  source += ')'.repeat(braces);
  return new RegExp(`${glob.includes('/') ? '^' : '(?:^|/)'}${source}(?:/.*)?$`);
}

/** [glob, path, expected]: what rg's reading of a glob says, and what the regex translation said. */
const CASES: [string, string, boolean][] = [
  ['*.ts', 'a.ts', true],
  ['*.ts', 'src/deep/a.ts', true],
  ['*.ts', 'a.tsx', false],
  ['*.ts', 'a.ts/inner.md', true], // a match on a folder takes in everything under it
  ['*.md', 'docs/a.md', true],
  ['src/**/*.ts', 'src/a/b/c.ts', true],
  ['src/**/*.ts', 'src/c.ts', true],
  ['src/**/*.ts', 'lib/src/c.ts', false],
  ['src/**/*.ts', 'src/a.js', false],
  ['**/test/*.md', 'test/a.md', true],
  ['**/test/*.md', 'x/y/test/a.md', true],
  ['**/test/*.md', 'x/test/sub/a.md', false],
  ['**/test/*.md', 'x/mytest/a.md', false],
  ['src/*.ts', 'src/a/b.ts', false],
  ['src/*.ts', 'src/a.ts', true],
  ['src', 'src/a/b.ts', true],
  ['src', 'lib/src/a.ts', true], // no slash: a name anywhere
  ['src', 'srcs/a.ts', false],
  ['./src/*.ts', 'src/a.ts', true],
  ['?', 'a', true],
  ['?', 'dir/a', true],
  ['?', 'ab', false],
  ['a?.ts', 'ab.ts', true],
  ['a?.ts', 'a/.ts', false],
  ['a?.ts', 'a.ts', false],
  ['src/*.{ts,js}', 'src/a.js', true],
  ['src/*.{ts,js}', 'src/a.md', false],
  ['{src,test}/**/*.ts', 'test/unit/a.ts', true],
  ['{src,test}/**/*.ts', 'docs/a.ts', false],
  ['*.{ts,{md,txt}}', 'notes.txt', true],
  ['*.{ts,js', 'a.js', true], // an unclosed brace is closed at the end
  ['a}b,c', 'a}b,c', true], // outside braces, `}` and `,` are themselves
  ['[abc].ts', 'b.ts', true],
  ['[abc].ts', 'd.ts', false],
  ['[a-c]?.ts', 'bz.ts', true],
  ['[!a-c].ts', 'd.ts', true],
  ['[!a-c].ts', 'a.ts', false],
  ['[^a-c].ts', 'a.ts', false],
  ['[]].ts', '].ts', true],
  ['[a-].ts', '-.ts', true],
  ['x[.ts', 'x[.ts', true], // no `]`: a literal `[`
  ['**', 'any/thing/at/all', true],
  ['src/**', 'src/a/b', true],
  ['src/**', 'lib/a', false],
  ['a**b', 'a/x/b', true],
  ['file.name+(x)$^|.ts', 'file.name+(x)$^|.ts', true],
  ['file.ts', 'fileXts', false],
  ['*?*?*?:', 'src/abc:', true],
  ['*?*?*?:', 'src/ab:', false],
  ['src/*?*?*?*?*?*?*?*?*?*?:', 'src/aaaaaaaaaa:', true],
  ['*?*?*?*?*?*?*?*?*?*?:', 'src/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.ts', false],
];

describe('globMatcher (linear-time glob matching)', () => {
  it('answers a table of ordinary globs as rg reads them', () => {
    for (const [glob, file, expected] of CASES) assert.equal(globMatcher(glob).test(file), expected, `${glob} ~ ${file}`);
  });

  it('answers as the RegExp translation it replaced did, on every glob of the table against every path of it', () => {
    // Not the hostile globs: on those the RegExp is what took seconds to hours.
    const globs = [...new Set(CASES.map(([glob]) => glob))].filter((glob) => !glob.includes('*?*?*?*?'));
    const files = [...new Set([...CASES.map(([, file]) => file), 'src/a.ts', 'README.md', 'src/test/a.md', '.hidden/x.ts', 'a', '', 'src/', 'ab/c.js'])];
    for (const glob of globs) {
      const before = regexGlob(glob);
      const now = globMatcher(glob);
      for (const file of files) assert.equal(now.test(file), before.test(file), `${glob} ~ ${JSON.stringify(file)}`);
    }
  });

  it('answers a hostile glob of 50 "*?" pairs in under 50 ms, against paths that match and paths that do not', () => {
    const glob = `${'*?'.repeat(50)}:`;
    const paths = [`src/${'a'.repeat(120)}.ts`, `${'d'.repeat(60)}/${'a'.repeat(49)}:`, `${'a/'.repeat(100)}${'b'.repeat(100)}`];
    const started = performance.now();
    const matcher = globMatcher(glob);
    const answers = paths.map((file) => matcher.test(file));
    const elapsed = performance.now() - started;
    assert.deepEqual(answers, [false, false, false]);
    assert.equal(matcher.test(`${'a'.repeat(100)}:`), true);
    assert.ok(elapsed < 50, `took ${elapsed.toFixed(1)} ms`);
  });

  it('answers hostile nestings of braces, globstars and classes in under 50 ms', () => {
    const globs = [`${'{a,'.repeat(60)}b${'}'.repeat(60)}`.slice(0, MAX_GLOB_CHARS), '**/'.repeat(60) + 'x', '[a-z]*'.repeat(30) + ':'];
    const file = `${'a/'.repeat(50)}${'a'.repeat(150)}`;
    for (const glob of globs) {
      const started = performance.now();
      globMatcher(glob).test(file);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 50, `${glob.slice(0, 30)}…: took ${elapsed.toFixed(1)} ms`);
    }
  });

  it(`refuses a glob over ${MAX_GLOB_CHARS} characters and a range out of order, as bad input`, () => {
    for (const glob of ['*'.repeat(MAX_GLOB_CHARS + 1), '[z-a].ts']) {
      assert.throws(() => globMatcher(glob), (error: unknown) => error instanceof CodeSearchError && error.reason === 'bad-input', glob.slice(0, 20));
    }
    assert.doesNotThrow(() => globMatcher('*'.repeat(MAX_GLOB_CHARS)));
  });
});
