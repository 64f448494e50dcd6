import * as assert from 'node:assert/strict';
import { answersWanted } from '../../../../src/core/drift/symbols';
import { packDeclaredNames, unpackDeclaredNames } from '../../../../src/adapters/treesitter/threadAnswers';
import { TreeSitterParser } from '../../../../src/adapters/treesitter/treeSitterParser';

describe('an outline from a parse thread (the repository map)', () => {
  it('names every top-level declaration with its kind and first line, and answers nothing else', async () => {
    const parser = new TreeSitterParser();
    await parser.prepare('a.py');
    // helper is defined twice: one declaration, from its first line.
    const text = 'import os\n\nclass Store:\n    def get(self):\n        return 1\n\ndef helper():\n    pass\n\ndef helper():\n    pass\n';
    const outline = unpackDeclaredNames(parser.answersOf('a.py', text, { names: [], outline: true }));
    const declared = outline.outline!().map(({ name, kind, startLine }) => [name, kind, startLine]);
    assert.deepEqual(declared, [['Store', 'class', 2], ['helper', 'function', 6]]);
    assert.deepEqual(outline.outline!().map(({ signature }) => signature), ['class Store:', 'def helper():'], 'each with its first line, as the map shows it');
    const topLevel = [...parser.parse('a.py', text).symbols.values()].filter(({ name }) => !name.includes('.'));
    assert.deepEqual(declared, topLevel.map(({ name, kind, startLine }) => [name, kind, startLine]), 'as a whole parse declares them');
    assert.equal(packDeclaredNames(outline.outline!()), parser.answersOf('a.py', text, { names: [], outline: true }));
    assert.equal(outline.get('helper'), undefined);
    assert.throws(() => outline.symbols, /Only the outline/);
    // Drift's wanted names are never answered by an outline, nor an outline by drift's answers.
    assert.equal(answersWanted(outline, { names: ['helper'] }), false);
    assert.equal(answersWanted(outline, { names: [], outline: true }), true);
    assert.equal(answersWanted({ partial: { names: new Set(['helper']), wholeFile: true } }, { names: [], outline: true }), false);
    assert.equal(answersWanted({}, { names: [], outline: true }), true, 'a whole parse answers everything');
    assert.deepEqual(unpackDeclaredNames('').outline!(), []);
  });

  it('enters no container: a Rust impl block and a C++ namespace add only what is declared at the top', async () => {
    const parser = new TreeSitterParser();
    await parser.prepare('a.rs');
    await parser.prepare('a.cc');
    const names = (file: string, text: string) => unpackDeclaredNames(parser.answersOf(file, text, { names: [], outline: true })).outline!().map(({ name }) => name);
    assert.deepEqual(names('a.rs', 'pub struct Store;\nimpl Store {\n    pub fn get(&self) {}\n}\nfn helper() {}\n'), ['Store', 'helper']);
    const [declaration] = unpackDeclaredNames(parser.answersOf('a.cc', 'int\tcount_items(void);\n', { names: [], outline: true })).outline!();
    assert.equal(declaration.signature, 'int\tcount_items(void);', 'a first line holding a tab comes back whole');
    assert.deepEqual(names('a.cc', 'namespace store {\nclass Store { void get(); };\n}\nint helper() { return 0; }\n'), ['store', 'helper']);
  });
});
