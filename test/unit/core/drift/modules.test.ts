import * as assert from 'node:assert/strict';
import { reExportersOf } from '../../../../src/core/drift/barrels';
import { sameLanguage } from '../../../../src/core/drift/driftEngine';
import { moduleCandidates, moduleWord } from '../../../../src/core/drift/modules';
import type { ReExport } from '../../../../src/core/drift/symbols';

describe('module candidates', () => {
  it('TS/JS: a relative specifier with or without extension, or its folder index; never a package or a path out', () => {
    assert.deepEqual(moduleCandidates('source/index.ts', './utils/type-guards').slice(0, 2), ['source/utils/type-guards.ts', 'source/utils/type-guards.tsx']);
    assert.ok(moduleCandidates('source/index.ts', './utils').includes('source/utils/index.ts'));
    assert.equal(moduleCandidates('src/a.ts', './b.js')[0], 'src/b.js');
    assert.ok(moduleCandidates('src/a.ts', './b.js').includes('src/b.ts'));
    assert.deepEqual(moduleCandidates('src/a.ts', 'lodash'), []);
    assert.deepEqual(moduleCandidates('a.ts', '../up'), []);
  });

  it('Python: a module or a package beside the file, relative or absolute (under each folder above it)', () => {
    assert.deepEqual(moduleCandidates('src/click/__init__.py', './core'), ['src/click/core.py', 'src/click/core/__init__.py']);
    assert.deepEqual(moduleCandidates('src/click/sub/m.py', '../core'), ['src/click/core.py', 'src/click/core/__init__.py']);
    assert.deepEqual(moduleCandidates('src/click/__init__.py', 'click/core'), [
      'src/click/click/core.py', 'src/click/click/core/__init__.py', 'src/click/core.py', 'src/click/core/__init__.py', 'click/core.py', 'click/core/__init__.py',
    ]);
    assert.deepEqual(moduleCandidates('pkg/__init__.py', '../../out'), []);
  });

  it('the word a module naming a file contains: its stem, or its folder for an index or a package', () => {
    assert.equal(moduleWord('source/utils/type-guards.ts'), 'type-guards');
    assert.equal(moduleWord('source/utils/index.ts'), 'utils');
    assert.equal(moduleWord('src/click/__init__.py'), 'click');
    assert.equal(moduleWord('types/a.d.ts'), 'a');
  });
});

describe('barrels that reach changed files', () => {
  const exportsOf: Record<string, ReExport[]> = {
    'source/index.ts': [{ exported: '*', imported: '*', from: './utils' }, { exported: 'ky', imported: 'default', from: './core/Ky' }],
    'source/utils/index.ts': [{ exported: 'isHTTPError', imported: 'isHTTPError', from: './type-guards' }],
    'source/other.ts': [{ exported: 'x', imported: 'x', from: './unrelated' }],
    'src/click/__init__.py': [{ exported: 'Context', imported: 'Context', from: './core' }],
  };
  const words: Array<string | readonly string[]> = [];
  const search = {
    async filesContaining(asked: string | readonly string[], only?: (file: string) => boolean) {
      words.push(asked);
      return Object.keys(exportsOf).filter((file) => !only || only(file));
    },
  };
  const reExportsOf = async (file: string) => exportsOf[file];

  it('follows barrels of barrels, each hop one search for the words of the files reached, in their language only', async () => {
    words.length = 0;
    assert.deepEqual(await reExportersOf(['source/utils/type-guards.ts'], { search, reExportsOf, sameLanguage }), ['source/index.ts', 'source/utils/index.ts']);
    assert.deepEqual(words.slice(0, 2), [['type-guards'], ['utils']]);
    assert.deepEqual(await reExportersOf(['src/click/core.py', 'README.md'], { search, reExportsOf, sameLanguage }), ['src/click/__init__.py']);
    assert.deepEqual(await reExportersOf(['src/main.go'], { search, reExportsOf, sameLanguage }), [], 'a language without re-exports searches nothing');
  });
});
