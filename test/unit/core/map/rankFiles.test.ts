import * as assert from 'node:assert/strict';
import type { SymbolKind } from '../../../../src/core/drift/symbols';
import type { DeclaredName } from '../../../../src/core/drift/symbols';
import { factsOf, type FileFacts } from '../../../../src/core/map/fileFacts';
import { DeclaredNames } from '../../../../src/core/map/identifiers';
import { referencesOf, wordsOf } from './referencesOf';
import { FileRanker, rankFiles } from '../../../../src/core/map/rankFiles';
import { renderMap } from '../../../../src/core/map/renderMap';
import { estimateTokens } from '../../../../src/core/chat/prompt';

/** A file declaring `declares` (functions unless a kind is given) and using `uses` once each. */
function file(path: string, declares: (string | [string, SymbolKind])[], uses: string[] = []): FileFacts {
  const definitions = declares.map((entry, line) => {
    const [name, kind] = typeof entry === 'string' ? [entry, 'function' as const] : entry;
    return { name, kind, line, signature: `function ${name}()` };
  });
  const words = [...declares.map((entry) => (typeof entry === 'string' ? entry : entry[0])), ...uses];
  return { path, digest: path, definitions, references: referencesOf(words.join(' ')) };
}

const rank = (files: readonly FileFacts[], focus: Parameters<typeof rankFiles>[1]) => rankFiles(files, focus);

function factsWithText(path: string, text: string, declared: DeclaredName[]): FileFacts {
  return factsOf(path, path, text, declared, referencesOf(text));
}

const noFocus = { files: new Set<string>(), names: new Set<string>() };

describe('rankFiles', () => {
  // hub.ts declares what four other files use; leaf.ts is used by one of them.
  const repo = [
    file('src/a.ts', ['handleA'], ['HubService', 'hubConfig']),
    file('src/b.ts', ['handleB'], ['HubService', 'leafHelper']),
    file('src/c.ts', ['handleC'], ['HubService', 'hubConfig']),
    file('src/d.ts', ['handleD'], ['hubConfig']),
    file('src/hub.ts', ['HubService', 'hubConfig'], []),
    file('src/leaf.ts', ['leafHelper'], []),
    file('src/lonely.ts', ['nobodyUsesThis'], []),
  ];

  it('ranks the file every other file uses first, and a file nothing uses below the files used', () => {
    const ranked = rank(repo, noFocus);
    assert.equal(ranked[0].path, 'src/hub.ts');
    assert.equal(ranked[1].path, 'src/leaf.ts');
    const sum = ranked.reduce((total, entry) => total + entry.rank, 0);
    assert.ok(Math.abs(sum - 1) < 1e-6, `ranks sum to 1, not ${sum}`);
    assert.ok(ranked.find((entry) => entry.path === 'src/lonely.ts')!.rank < ranked[1].rank);
  });

  it('orders a file\'s declarations by how much they are used', () => {
    const hub = rank(repo, noFocus).find((entry) => entry.path === 'src/hub.ts')!;
    assert.deepEqual(hub.definitions.map((entry) => entry.definition.name), ['hubConfig', 'HubService']);
    assert.ok(hub.definitions[0].rank > hub.definitions[1].rank);
  });

  it('ranks a declaration many files use above one only a central file uses, though those files are used by none', () => {
    const users = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => file(`src/${name}.ts`, [`handle_${name}`], ['HubThing']));
    const tests = ['t1', 't2', 't3'].map((name) => file(`test/${name}.ts`, [`check_${name}`], ['widelyUsed']));
    const ranked = rank([...users, ...tests, file('src/hub.ts', ['HubThing'], ['rarelyUsed']), file('src/lib.ts', ['rarelyUsed', 'widelyUsed'])], noFocus);
    const lib = ranked.find((entry) => entry.path === 'src/lib.ts')!;
    assert.ok(ranked.find((entry) => entry.path === 'src/hub.ts')!.rank > ranked.find((entry) => entry.path === 'test/t1.ts')!.rank * 3);
    assert.deepEqual(lib.definitions.map((entry) => entry.definition.name), ['widelyUsed', 'rarelyUsed']);
    assert.equal(lib.best, lib.definitions[0].rank);
    assert.equal(ranked.find((entry) => entry.path === 'test/t1.ts')!.best, 0, 'a file whose declarations nothing uses');
  });

  it('moves focused files, and files declaring focused names, up', () => {
    const byFile = rank(repo, { files: new Set(['src/lonely.ts']), names: new Set() });
    assert.equal(byFile[0].path, 'src/lonely.ts');
    const byName = rank(repo, { files: new Set(), names: new Set(['leafHelper']) });
    assert.equal(byName[0].path, 'src/leaf.ts');
    const byUser = rank(repo, { files: new Set(['src/b.ts']), names: new Set() });
    const plain = rank(repo, noFocus);
    assert.equal(byUser[0].path, 'src/b.ts');
    assert.ok(byUser.find((entry) => entry.path === 'src/leaf.ts')!.rank > plain.find((entry) => entry.path === 'src/leaf.ts')!.rank, 'what the focused file uses moves up too');
  });

  it('shows a focused file\'s declarations by their first line, first, though nothing uses them', () => {
    const map = renderMap(rank(repo, { files: new Set(['src/lonely.ts']), names: new Set() }), 40);
    assert.match(map.text, /^src\/lonely\.ts:\n +1│ function nobodyUsesThis\(\)/);
    assert.ok(estimateTokens(map.text) <= 40);
    const byName = rank(repo, { files: new Set(), names: new Set(['nobodyUsesThis']) });
    assert.equal(byName[0].definitions[0].definition.name, 'nobodyUsesThis');
    assert.ok(byName[0].best >= byName[0].definitions[0].rank);
  });

  it('reads a name a file declares itself as its own, and a variable named after a class declared elsewhere as a binding to it', () => {
    const ranked = rank([
      file('lib/router.ts', [['Router', 'class']]),
      // Scripts that bind Router (`const { Router } = require(...)`) and each declare their own `files`.
      ...Array.from({ length: 4 }, (_, i) => file(`scripts/s${i}.mjs`, [['Router', 'variable'], ['files', 'variable']], ['Router', 'files'])),
      file('lib/files.ts', [['files', 'variable']]),
    ], noFocus);
    assert.equal(ranked[0].path, 'lib/router.ts');
    assert.ok(ranked.find((entry) => entry.path === 'lib/files.ts')!.rank <= ranked.find((entry) => entry.path === 'scripts/s0.mjs')!.rank + 1e-12, 'no script links to lib/files.ts: each uses its own files');
  });

  it('does not link a word to a declaration an ES module keeps to itself', () => {
    // Twenty modules use the word `text`; store.ts declares a `text` helper it does not export, api.ts exports `textOf`.
    const users = Array.from({ length: 20 }, (_, i) => factsWithText(`src/u${i}.ts`, `import { textOf } from './api';\nexport const u${i} = textOf(text, text);\n`, [{ name: `u${i}`, kind: 'variable', startLine: 1 }]));
    const store = factsWithText('src/store.ts', 'export class Store {}\nfunction text(value: unknown) {}\n', [{ name: 'Store', kind: 'class', startLine: 0 }, { name: 'text', kind: 'function', startLine: 1 }] as DeclaredName[]);
    const api = factsWithText('src/api.ts', 'export function textOf(value: unknown) {}\n', [{ name: 'textOf', kind: 'function', startLine: 0 }] as DeclaredName[]);
    assert.deepEqual([...store.own!], ['text']);
    const ranked = rank([...users, store, api], noFocus);
    assert.equal(ranked[0].path, 'src/api.ts');
    const storeRank = ranked.find((entry) => entry.path === 'src/store.ts')!;
    assert.equal(storeRank.definitions.find((d) => d.definition.name === 'text')!.rank, 0, 'no file can use it');
  });

  it('leaves out names declared in very many files (they link everything to everything)', () => {
    const many = Array.from({ length: 30 }, (_, i) => file(`m/f${i}.py`, ['run'], []));
    const ranked = rank([...many, file('main.py', ['main'], ['run'])], noFocus);
    const ranks = ranked.filter((entry) => entry.path.startsWith('m/')).map((entry) => entry.rank);
    assert.ok(Math.max(...ranks) - Math.min(...ranks) < 1e-12, 'no edge to any of them');
  });

  it('ranks again after a save as it ranks afresh, reusing its graph only while the declarations are the same', () => {
    const ranker = new FileRanker();
    ranker.rank(repo, noFocus);
    const same = (a: ReturnType<typeof rankFiles>, b: ReturnType<typeof rankFiles>) => {
      assert.deepEqual(a.map((entry) => entry.path), b.map((entry) => entry.path));
      a.forEach((entry, i) => assert.ok(Math.abs(entry.rank - b[i].rank) < 1e-4, entry.path));
      assert.deepEqual(a.map((entry) => entry.definitions.map((d) => d.definition.name)), b.map((entry) => entry.definitions.map((d) => d.definition.name)));
    };
    // d.ts now uses leafHelper three times (a save that declares nothing new).
    const saved = repo.map((facts) => (facts.path === 'src/d.ts' ? file('src/d.ts', ['handleD'], ['hubConfig', 'leafHelper', 'leafHelper', 'leafHelper']) : facts));
    same(ranker.rank(saved, noFocus), rank(saved, noFocus));
    // leaf.ts now declares hubConfig too: the graph is made anew.
    const declared = saved.map((facts) => (facts.path === 'src/leaf.ts' ? file('src/leaf.ts', ['leafHelper', 'hubConfig']) : facts));
    same(ranker.rank(declared, noFocus), rank(declared, noFocus));
    const focus = { files: new Set(['src/a.ts']), names: new Set<string>() };
    same(ranker.rank(declared, focus), rank(declared, focus));
  });

  it('ranks an empty repository as nothing', () => {
    assert.deepEqual(rank([], noFocus), []);
  });
});

describe('referencesIn', () => {
  /** Each word of a text with its count, as the text's references have them. */
  const countsOf = (text: string) => {
    const references = referencesOf(text);
    return new Map(wordsOf(references).map((word, i) => [word, references.counts[i]]));
  };

  it('counts identifiers of two characters or more, not numbers\' letters', () => {
    const counts = countsOf('const fooBar = $el + 0x1F + x; fooBar(_id, a1b2, "fooBar")');
    assert.equal(counts.get('fooBar'), 3);
    assert.equal(counts.get('$el'), 1);
    assert.equal(counts.get('_id'), 1);
    assert.equal(counts.get('a1b2'), 1);
    assert.equal(counts.get('x'), undefined);
    assert.equal(counts.get('x1F'), undefined);
    assert.equal(counts.get('F'), undefined);
  });

  it('keeps each word once, in the order first met; a non-ASCII letter ends a word', () => {
    const references = referencesOf('route(Router, Router) naïve');
    assert.deepEqual(wordsOf(references), ['route', 'Router', 'na', 've']);
    assert.deepEqual([...references.counts], [1, 2, 1, 1]);
  });

  it('counts a text of more distinct words than a word in eight bytes, the room first made for them', () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const names = Array.from({ length: 26 * 26 }, (_, i) => letters[Math.floor(i / 26)] + letters[i % 26]);
    const counts = countsOf([...names, ...names.slice(0, 10)].join(' '));
    assert.equal(counts.size, names.length);
    names.forEach((name, i) => assert.equal(counts.get(name), i < 10 ? 2 : 1, name));
  });
});

describe('DeclaredNames', () => {
  it('finds each word of a text among the declared names by its bytes; a name no text holds as a word is never found', () => {
    const long = `Long${'_name'.repeat(40)}`;
    const names = new DeclaredNames(['Router', 'route', 'operator+', 'naïve', long, 'x']);
    const references = referencesOf(`Router Routers Route route naïve operator ${long} ${long}_ x1`);
    const found = names.indexesOf(references);
    assert.deepEqual(wordsOf(references), ['Router', 'Routers', 'Route', 'route', 'na', 've', 'operator', long, `${long}_`, 'x1']);
    assert.deepEqual([...found], [0, -1, -1, 1, -1, -1, -1, 4, -1, -1]);
  });

  it('finds every name of a large table', () => {
    const declared = Array.from({ length: 20_000 }, (_, i) => `name_${i.toString(36)}_${'x'.repeat(i % 40)}`);
    const names = new DeclaredNames(declared);
    const references = referencesOf([...declared].reverse().join('\n'));
    assert.deepEqual([...names.indexesOf(references)], declared.map((_, i) => declared.length - 1 - i));
  });
});
