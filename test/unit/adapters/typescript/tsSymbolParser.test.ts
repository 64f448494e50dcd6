import * as assert from 'node:assert/strict';
import type { FileSymbols, SymbolParser } from '../../../../src/core/drift/symbols';
import { CachingSymbolParser, TsSymbolParser } from '../../../../src/adapters/typescript/tsSymbolParser';

const parser = new TsSymbolParser();

/** `name kind` of every symbol, in declaration order. */
function names(text: string, fileName = 'a.ts'): string[] {
  return [...parser.parse(fileName, text).symbols.values()].map((s) => `${s.name} ${s.kind}`);
}

/** Every symbol's `sig body`, plus the whole-file fingerprint under `<file>`. */
function fingerprints(text: string, fileName = 'a.ts'): Record<string, string> {
  const parsed = parser.parse(fileName, text);
  const out: Record<string, string> = { '<file>': parsed.fingerprint };
  for (const [name, symbol] of parsed.symbols) out[name] = `${symbol.sig} ${symbol.body}`;
  return out;
}

function symbol(text: string, name: string, fileName = 'a.ts') {
  const found = parser.parse(fileName, text).symbols.get(name);
  assert.ok(found, `${name} is declared`);
  return found;
}

describe('TsSymbolParser', () => {
  it('names declarations of every kind the way citations write them', () => {
    const text = [
      'export function run(): void {}',
      'export class Cart {',
      '  static readonly MAX = 5;',
      '  #secret = 1;',
      '  constructor(readonly owner: string, private total: number, plain: boolean) {}',
      '  get size() { return 0; }',
      '  set size(value: number) {}',
      '  add(item: string): void {}',
      '}',
      'export interface Item { sku: string; describe(): string; get price(): number }',
      'export type Pair = { left: number; right(): number };',
      'export type Id = string;',
      'export enum Color { Red, Green = 2 }',
      'export const LIMIT = 3, { a, b: [c] } = source;',
      'export let counter = 0;',
      'namespace Outer { export namespace Inner { export function fn() {} } }',
      'namespace A.B { export const x = 1; }',
      "declare module 'lib' { export function inModule(): void; }",
      'declare global { interface Window { extra: number } }',
    ].join('\n');
    assert.deepEqual(names(text), [
      'run function',
      'Cart class', 'Cart.MAX property', 'Cart.#secret property', 'Cart.constructor constructor', 'Cart.owner property',
      'Cart.total property', 'Cart.size accessor', 'Cart.add method',
      'Item interface', 'Item.sku property', 'Item.describe method', 'Item.price accessor',
      'Pair type', 'Pair.left property', 'Pair.right method',
      'Id type',
      'Color enum', 'Color.Red enum-member', 'Color.Green enum-member',
      'LIMIT variable', 'a variable', 'c variable',
      'counter variable',
      'Outer namespace', 'Outer.Inner namespace', 'Outer.Inner.fn function',
      'A namespace', 'A.B namespace', 'A.B.x variable',
      // `declare module` and `declare global` are transparent.
      'inModule function',
      'Window interface', 'Window.extra property',
    ]);
  });

  it('names a default export `default`, and also by its own name when it has one', () => {
    assert.deepEqual(names('export default function main() {}'), ['default function', 'main function']);
    assert.deepEqual(names('export default class { run() {} }'), ['default class', 'default.run method']);
    assert.deepEqual(names('export default class Shop { run() {} }'), ['default class', 'Shop class', 'Shop.run method']);
    assert.deepEqual(names('export default { retries: 3 };'), ['default default']);
    assert.deepEqual(names('export default (x: number) => x * 2;'), ['default default']);
  });

  it('ignores what is declared inside function bodies', () => {
    assert.deepEqual(names('function outer() { function inner() {} const local = 1; }'), ['outer function']);
  });

  it('merges overloads into one symbol whose lines span all of them', () => {
    const text = [
      '/** Docs are not part of the span. */',
      'export function parse(text: string): number;',
      'export function parse(n: number): number;',
      'export function parse(input: string | number): number {',
      '  return Number(input);',
      '}',
      'class Box {',
      '  put(x: string): void;',
      '  put(x: number): void;',
      '  put(x: unknown) {}',
      '}',
    ].join('\n');
    assert.deepEqual(names(text), ['parse function', 'Box class', 'Box.put method']);
    const parse = symbol(text, 'parse');
    assert.deepEqual([parse.startLine, parse.endLine], [1, 5]);
    const put = symbol(text, 'Box.put');
    assert.deepEqual([put.startLine, put.endLine], [7, 9]);
  });

  it('merges a getter and setter pair into one accessor', () => {
    const size = symbol('class A {\n  get size() { return 1; }\n  set size(v: number) {}\n}', 'A.size');
    assert.deepEqual([size.kind, size.startLine, size.endLine], ['accessor', 1, 2]);
  });

  it('fingerprints are 8 hex chars, and body equals sig when there is no body', () => {
    const item = symbol('interface I { sku: string }', 'I.sku');
    assert.match(item.sig, /^[0-9a-f]{8}$/);
    assert.equal(item.body, item.sig);
    assert.match(parser.parse('a.ts', 'let x = 1;').fingerprint, /^[0-9a-f]{8}$/);
  });

  describe('fingerprints ignore formatting', () => {
    const same: Array<[string, string, string]> = [
      ['re-indentation and blank lines',
        'class A {\n  run(x: number) {\n    return x;\n  }\n}',
        'class A {\n\n\t\trun(x: number) {\n\t\t\t\treturn x;\n\t\t}\n}'],
      ['line breaks inside lists and calls',
        'function f(a: number, b: number) { return g(a, b); }',
        'function f(\n  a: number,\n  b: number\n) {\n  return g(\n    a,\n    b\n  );\n}'],
      ['trailing commas',
        'function f(a: number, b: number) { return [a, b, { c: a }]; }\nenum E { A, B }\ntype T = Map<string, number>;',
        'function f(a: number, b: number,) { return [a, b, { c: a, },]; }\nenum E { A, B, }\ntype T = Map<string, number,>;'],
      ['quote style and escapes',
        "const s = 'it is';\nconst t = 'A';\nimport x from 'y';",
        'const s = "it is";\nconst t = "\\x41";\nimport x from "y";'],
      ['a leading | or & in a multi-line union or intersection',
        "type T = 'a' | 'b' | 'c';\ntype U = A & B;\nfunction f(x: 'a' | 'b'): void {}",
        "type T =\n  | 'a'\n  | 'b'\n  | 'c';\ntype U =\n  & A\n  & B;\nfunction f(x:\n  | 'a'\n  | 'b'): void {}"],
      ['comments added, edited or removed',
        '// one\nfunction f() { return 1; /* why */ }\nconst x = 2; // two',
        'function f() {\n  // returns one, always\n  return 1;\n}\n/* block */ const x = /* inline */ 2;'],
      ['JSDoc added or edited',
        '/** Old words. */\nexport class A {\n  run() {}\n}',
        '/**\n * New words.\n * @example run()\n */\nexport class A {\n  /** Added. */\n  run() {}\n}'],
      ['CRLF line endings',
        'class A {\n  run() {\n    return `x${1}y`;\n  }\n}',
        'class A {\r\n  run() {\r\n    return `x${1}y`;\r\n  }\r\n}'],
      ['whitespace inside templates substitutions and around regexes',
        'const r = /a b/g.test(`${ x }!`);',
        'const r = /a b/g.test(`${x}!`);'],
    ];
    for (const [what, before, after] of same) {
      it(what, () => {
        assert.deepEqual(fingerprints(after), fingerprints(before));
      });
    }
  });

  describe('fingerprints see every change that is not formatting', () => {
    const different: Array<[string, string, string]> = [
      ['string contents', "const s = 'a b';", "const s = 'ab';"],
      ['text inside template literals', 'const s = `a b`;', 'const s = `ab`;'],
      ['regex contents', 'const r = /a b/;', 'const r = /ab/;'],
      ['an array hole', 'const a = [1, , ];', 'const a = [1, ];'],
      ['| versus & after a closing parenthesis', 'const m = (x) | y;', 'const m = (x) & y;'],
      ['| versus & after a postfix increment', 'let m = i++ | y;', 'let m = i++ & y;'],
      ['| versus & after a non-null assertion', 'const m = x! | y;', 'const m = x! & y;'],
      ['| versus & between type references', 'type T = A | B;', 'type T = A & B;'],
    ];
    for (const [what, before, after] of different) {
      it(what, () => {
        assert.notDeepEqual(fingerprints(after), fingerprints(before));
      });
    }
  });

  it('a parameter or return type change is in sig, not in body', () => {
    const before = symbol('export function total(items: number[]): number {\n  return items.length;\n}', 'total');
    for (const changed of [
      'export function total(items: number[], tax: number): number {\n  return items.length;\n}',
      'export function total(items: string[]): number {\n  return items.length;\n}',
      'export function total(items: number[]): bigint {\n  return items.length;\n}',
      'export async function total(items: number[]): number {\n  return items.length;\n}',
    ]) {
      const after = symbol(changed, 'total');
      assert.notEqual(after.sig, before.sig, changed);
      assert.equal(after.body, before.body, changed);
    }
  });

  it('a body change is in body, not in sig', () => {
    const before = symbol('class A {\n  run(x: number): number {\n    return x;\n  }\n}', 'A.run');
    const after = symbol('class A {\n  run(x: number): number {\n    return x + 1;\n  }\n}', 'A.run');
    assert.equal(after.sig, before.sig);
    assert.notEqual(after.body, before.body);
  });

  it('a variable keeps its name and type in sig and its value in body; a function value keeps its parameters in sig', () => {
    const base = symbol('export const LIMIT: number = 3;', 'LIMIT');
    assert.equal(symbol('export const LIMIT: number = 4;', 'LIMIT').sig, base.sig);
    assert.notEqual(symbol('export const LIMIT: number = 4;', 'LIMIT').body, base.body);
    assert.notEqual(symbol('export const LIMIT: bigint = 3;', 'LIMIT').sig, base.sig);
    assert.notEqual(symbol('export let LIMIT: number = 3;', 'LIMIT').sig, base.sig);

    const arrow = symbol('export const twice = (x: number) => x * 2;', 'twice');
    assert.equal(symbol('export const twice = (x: number) => x + x;', 'twice').sig, arrow.sig);
    assert.notEqual(symbol('export const twice = (x: bigint) => x * 2;', 'twice').sig, arrow.sig);
  });

  it('a class or namespace changes its body, not its sig, when a member changes', () => {
    const cls = symbol('class A extends B {\n  run() { return 1; }\n}', 'A');
    const clsEdited = symbol('class A extends B {\n  run() { return 2; }\n}', 'A');
    assert.equal(clsEdited.sig, cls.sig);
    assert.notEqual(clsEdited.body, cls.body);
    assert.notEqual(symbol('class A extends C {\n  run() { return 1; }\n}', 'A').sig, cls.sig);

    const ns = symbol('namespace N { export const x = 1; }', 'N');
    const nsEdited = symbol('namespace N { export const x = 2; }', 'N');
    assert.equal(nsEdited.sig, ns.sig);
    assert.notEqual(nsEdited.body, ns.body);
  });

  describe('TSX and JSX', () => {
    const component = [
      "import { label } from './label';",
      'export function Price({ amount }: { amount: number }) {',
      '  return <p className="price">Don\'t pay {label(amount)} today, it is a deal.</p>;',
      '}',
    ].join('\n');
    const edit = (from: string, to: string) => {
      assert.ok(component.includes(from), from);
      return component.replace(from, to);
    };

    it('parses components in .tsx, .jsx and .js files', () => {
      assert.deepEqual(names(component, 'view.tsx'), ['Price function']);
      assert.deepEqual(names('export const Row = ({ text }) => <li>{text}</li>;\nexport default Row;', 'row.jsx'), ['Row variable', 'default default']);
      assert.deepEqual(names('export function Row({ text }) { return <li>{text}</li>; }', 'row.js'), ['Row function']);
    });

    it('ignores how JSX text is wrapped and indented, apostrophes included', () => {
      const rewrapped = edit('">Don\'t pay {label(amount)} today, it is a deal.</p>', '">\n    Don\'t pay {label(amount)} today,\n      it is a deal.\n  </p>');
      assert.deepEqual(fingerprints(rewrapped, 'view.tsx'), fingerprints(component, 'view.tsx'));
      const js = (indent: string) => `export function Row() {\n  return <li>\n${indent}Don't stop\n  </li>;\n}`;
      assert.deepEqual(fingerprints(js('\t\t'), 'row.js'), fingerprints(js('    '), 'row.js'));
    });

    it('sees a change of JSX text, including a space JSX keeps and text after `//`', () => {
      const before = fingerprints(component, 'view.tsx');
      assert.notDeepEqual(fingerprints(edit('today', 'tomorrow'), 'view.tsx'), before);
      assert.notDeepEqual(fingerprints(edit('pay {', 'pay{'), 'view.tsx'), before);
      const link = (url: string) => `export const Link = () => <a>see http://${url}</a>;`;
      assert.notDeepEqual(fingerprints(link('one.example'), 'link.tsx'), fingerprints(link('two.example'), 'link.tsx'));
    });
  });

  it('does not throw on syntax errors, and still names what it can', () => {
    for (const broken of ['export function ok() {}\nclass {', 'const s = `unterminated ${', "const x = 'open", 'function (', '}}}', '<div>', '']) {
      const parsed = parser.parse('broken.tsx', broken);
      assert.match(parsed.fingerprint, /^[0-9a-f]{8}$/, broken);
      for (const s of parsed.symbols.values()) assert.match(`${s.sig} ${s.body} ${s.startLine}`, /^[0-9a-f]{8} [0-9a-f]{8} \d+$/, broken);
    }
    assert.deepEqual(names('export function ok() {}\nclass {'), ['ok function']);
  });
});

describe('CachingSymbolParser', () => {
  /** Counts the parses that reach the real parser. */
  class CountingParser implements SymbolParser {
    parses = 0;
    parse(fileName: string, text: string): FileSymbols {
      this.parses++;
      return parser.parse(fileName, text);
    }
  }

  it('never parses identical text twice, whatever the file is called', () => {
    const inner = new CountingParser();
    const caching = new CachingSymbolParser(inner);
    const first = caching.parse('src/a.ts', 'export const x = 1;');
    assert.equal(caching.parse('src/a.ts', 'export const x = 1;'), first);
    assert.equal(caching.parse('src/copy.ts', 'export const x = 1;'), first);
    assert.deepEqual([inner.parses, caching.hits, caching.misses], [1, 2, 1]);
  });

  it('parses again when the text or the script kind differs', () => {
    const inner = new CountingParser();
    const caching = new CachingSymbolParser(inner);
    caching.parse('a.ts', 'export const x = 1;');
    caching.parse('a.ts', 'export const x = 2;');
    caching.parse('a.tsx', 'export const x = 2;');
    assert.deepEqual([inner.parses, caching.hits, caching.misses], [3, 0, 3]);
  });

  it('evicts the least recently used text beyond its bound', () => {
    const inner = new CountingParser();
    const caching = new CachingSymbolParser(inner, 2);
    caching.parse('a.ts', 'const a = 1;');
    caching.parse('b.ts', 'const b = 1;');
    caching.parse('a.ts', 'const a = 1;'); // a is now the most recent
    caching.parse('c.ts', 'const c = 1;'); // evicts b
    caching.parse('a.ts', 'const a = 1;');
    caching.parse('b.ts', 'const b = 1;');
    assert.deepEqual([inner.parses, caching.hits, caching.misses], [4, 2, 4]);
  });
});
