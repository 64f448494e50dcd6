// A lookup that parses only the runs of statements mentioning a name must give exactly what the
// whole-file parse gives: same symbols, kinds, lines and fingerprints, and nothing it does not.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { declarationRuns, runsDeclaring, runsMentioning } from '../../../src/adapters/typescript/declarationChunks';
import { TsSymbolParser } from '../../../src/adapters/typescript/tsSymbolParser';
import type { SourceSymbol } from '../../../src/core/drift/symbols';

// Compiled, this file is out/test/system/corpus/declarationRuns.test.js.
const REPO = path.resolve(__dirname, '../../../..');
const parser = new TsSymbolParser();

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return /\.[mc]?ts$/.test(entry.name) ? [full] : [];
  });
}

const plain = (s: SourceSymbol | undefined) => s && { name: s.name, kind: s.kind, startLine: s.startLine, endLine: s.endLine, sig: s.sig, body: s.body };

/** Every name the whole parse finds, and some it does not, looked up run by run. */
function assertSameAsWholeParse(file: string, text: string): void {
  const whole = parser.parse(file, text).symbols;
  const lazy = parser.parse(file, text);
  for (const [name, symbol] of whole) assert.deepEqual(plain(lazy.get(name)), plain(symbol), `${file}: ${name}`);
  const undeclared = [...new Set(text.match(/\b[A-Za-z_]\w*\b/g) ?? [])].filter((word) => !whole.has(word)).slice(0, 40);
  for (const word of undeclared) assert.equal(lazy.get(word), undefined, `${file}: ${word} is not declared`);
  assert.equal(lazy.fingerprint, parser.parse(file, text).fingerprint);
}

describe('lookups by runs of statements', () => {
  it('match the whole-file parse on every declaration of the drift fixture project', () => {
    for (const file of tsFiles(path.join(REPO, 'test/fixtures/drift-project/src'))) assertSameAsWholeParse(file, fs.readFileSync(file, 'utf8'));
  });

  it('match the whole-file parse on every declaration of a large real code base (effect), parsing runs only', function () {
    this.timeout(120_000);
    const files = tsFiles(path.join(REPO, 'node_modules/effect/src'));
    assert.ok(files.length > 300, 'effect ships its TypeScript sources');
    const texts = new Map(files.map((file) => [file, fs.readFileSync(file, 'utf8')]));
    let fellBack = 0;
    for (const [file, text] of texts) {
      const names = [...parser.parse(file, text).symbols.keys()];
      const counting = new TsSymbolParser();
      const lazy = counting.parse(file, text);
      for (const name of names) lazy.get(name);
      fellBack += counting.parses.wholeFiles;
      assertSameAsWholeParse(file, text);
    }
    assert.ok(fellBack <= files.length / 50, `${fellBack} of ${files.length} files needed a whole parse`);
  });

  it('keep decorators with their class, overloads together, and split after type arguments', () => {
    const text = [
      'import { x } from "./x"',
      '@sealed',
      'export class Box {}',
      'export function f(a: string): void',
      'export function f(a: unknown) { return a }',
      'export type List = Array<string>',
      'export const n = 1',
      'const f2 = function named() {}',
    ].join('\n');
    const runs = declarationRuns(text);
    const { starts } = runs;
    const firstLines = starts.map((start) => text.slice(start).split('\n')[0]);
    assert.deepEqual(firstLines, ['import { x } from "./x"', 'export function f(a: string): void', 'export function f(a: unknown) { return a }', 'export type List = Array<string>', 'export const n = 1', 'const f2 = function named() {}']);
    assert.deepEqual(runsMentioning(text, starts, 'f'), [1, 2]);
    assert.deepEqual(runsMentioning(text, starts, 'f2'), [5]);
    assert.deepEqual(runsDeclaring(text, runs, 'f'), [1, 2]);
    assert.deepEqual(runsDeclaring(text, runs, 'x'), [], 'an import declares nothing the parser names');
    assert.deepEqual(runsDeclaring(text, runs, 'Box'), [0], 'the decorated class stays in the run before it');
    const lazy = parser.parse('a.ts', text);
    assert.deepEqual(plain(lazy.get('f')), plain(parser.parse('a.ts', text).symbols.get('f')));
    assert.equal(lazy.get('named'), undefined, 'a function expression name is not a declaration');
  });

  it('never splits a statement that continues on the next line', () => {
    const text = 'export const a = b\n  ? class {}\n  : function g() {}\nconst c = d >\n  function () {}\nconst e = `${`\nexport const no = 1\n`}`';
    const { starts } = declarationRuns(text);
    assert.deepEqual(starts.map((start) => text.slice(start).split('\n')[0]), ['export const a = b', 'const c = d >', 'const e = `${`']);
  });

  it('notes every name a run can declare, and the runs whose names it cannot tell', () => {
    const text = [
      'export const a = 1, b = 2',
      'export const { c, d } = pair',
      'declare global { interface Window { x: number } }',
      "declare module './m' { export const m: number }",
      'export default class {}',
      'export function* gen() {}',
      'export const enum E { A }',
      'export namespace N.Inner { export const z = 1 }',
    ].join('\n');
    const runs = declarationRuns(text);
    const lazy = parser.parse('a.ts', text);
    const whole = parser.parse('a.ts', text).symbols;
    for (const name of ['a', 'b', 'c', 'd', 'Window', 'Window.x', 'm', 'default', 'gen', 'E', 'E.A', 'N', 'N.Inner.z']) {
      assert.ok(whole.has(name), `${name} is declared`);
      assert.deepEqual(plain(lazy.get(name)), plain(whole.get(name)), name);
    }
    assert.deepEqual(runs.opaque, [1, 2, 3]);
  });

  it('parses the whole file when a run does not parse on its own', () => {
    // After `)`, the scanner alone reads `/}/` as a division and a `}`: a run then starts inside the function.
    const text = 'function f() {\n  if (ok) /}/.test(s)\n  const inner = 1\n}\nexport const after = 1';
    const { starts } = declarationRuns(text);
    assert.ok(starts.some((start) => text.startsWith('const inner', start)), 'the misread split happens');
    const counting = new TsSymbolParser();
    const lazy = counting.parse('a.ts', text);
    assert.equal(lazy.get('inner'), undefined, 'a local of a function is not a declaration of the file');
    assert.deepEqual(plain(lazy.get('after')), plain(parser.parse('a.ts', text).symbols.get('after')));
    assert.deepEqual(counting.parses, { wholeFiles: 1, runs: 1 });
  });
});
