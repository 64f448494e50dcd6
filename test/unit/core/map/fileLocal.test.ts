import * as assert from 'node:assert/strict';
import type { MapDefinition } from '../../../../src/core/map/fileFacts';
import { ownNames } from '../../../../src/core/map/fileLocal';

/** Each line of `text` that declares one of `names` (its first word after export/async/function/const/class). */
function declarations(text: string): MapDefinition[] {
  return text.split('\n').flatMap((line, index) => {
    const match = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function|const|class|interface)\s+(\w+)/.exec(line);
    return match ? [{ name: match[1], kind: 'function' as const, line: index, signature: line.trim() }] : [];
  });
}
const own = (path: string, text: string) => {
  const names = ownNames(path, text, declarations(text));
  return names && [...names].sort();
};

describe('the names an ES module keeps to itself', () => {
  it('are its declarations without export, in a module that imports or exports', () => {
    const text = "import { x } from './x';\nexport function api() {}\nfunction text() {}\nconst page = 1;\n";
    assert.deepEqual(own('src/a.ts', text), ['page', 'text']);
    assert.deepEqual(own('test/a.test.mjs', "import assert from 'node:assert';\nfunction page() {}\n"), ['page'], 'a test file that exports nothing keeps its helpers');
  });

  it('are unknown where the file exports in a way no declaration line shows, or is not an ES module', () => {
    for (const tail of ['export { text };', 'export * from "./b";', 'export default text;', 'export type { T } from "./t";', 'export = text;']) {
      assert.equal(own('src/a.ts', `export function api() {}\nfunction text() {}\n${tail}\n`), undefined, tail);
    }
    assert.equal(own('src/a.ts', 'function text() {}\n'), undefined, 'a script: its declarations are global');
    assert.equal(own('lib/a.cjs', "import x from 'y';\nfunction text() {}\n"), undefined, 'CommonJS exports through module.exports');
    assert.equal(own('lib/a.py', 'import os\ndef text(): pass\n'), undefined);
    assert.equal(own('src/a.ts', "import x from 'y';\nexport default function main() {}\n"), undefined, 'nothing of its own');
  });

  it('leave out a decorated declaration, whose export is on a later line', () => {
    const definitions: MapDefinition[] = [{ name: 'Widget', kind: 'class', line: 1, signature: "@Component({ selector: 'w' })" }];
    assert.equal(ownNames('src/w.ts', "import { Component } from 'c';\n@Component({ selector: 'w' })\nexport class Widget {}\n", definitions), undefined);
  });
});
