import * as assert from 'node:assert/strict';
import { answersWanted } from '../../../../src/core/drift/symbols';
import { packDeclaredNames, unpackDeclaredNames } from '../../../../src/adapters/treesitter/threadAnswers';
import { TreeSitterParser } from '../../../../src/adapters/treesitter/treeSitterParser';

describe('an outline from a parse thread (the repository map)', () => {
  it('names every declaration with its kind and first line, and answers nothing else', async () => {
    const parser = new TreeSitterParser();
    await parser.prepare('a.py');
    // helper is defined twice: one declaration, from its first line.
    const text = 'import os\n\nclass Store:\n    def get(self):\n        return 1\n\ndef helper():\n    pass\n\ndef helper():\n    pass\n';
    const outline = unpackDeclaredNames(parser.answersOf('a.py', text, { names: [], outline: true }));
    const declared = outline.outline!().map(({ name, kind, startLine }) => [name, kind, startLine]);
    assert.deepEqual(declared, [['Store', 'class', 2], ['Store.get', 'method', 3], ['helper', 'function', 6]]);
    assert.deepEqual(declared, [...parser.parse('a.py', text).symbols.values()].map(({ name, kind, startLine }) => [name, kind, startLine]), 'as a whole parse declares them');
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
});
