import * as assert from 'node:assert/strict';
import { factsOf, type FileFacts, type SkippedFile } from '../../../../src/core/map/fileFacts';
import { referencesOf } from './referencesOf';
import { RepoMap, type FileFactsReader } from '../../../../src/core/map/repoMap';

/**
 * A repository in memory, read as SourceFactsReader reads one: a file's facts come from its text,
 * declarations are `def <name>` lines, and a file named `*.big` is skipped. Counts what it lists,
 * is asked about and parses.
 */
class CountingReader implements FileFactsReader {
  readonly texts = new Map<string, string>();
  listings = 0;
  asked: string[] = [];
  parsed: string[] = [];
  failNext = false;
  /** Runs once a read has read its files, as a change may land while a map is under way. */
  afterRead?: () => void;

  constructor(texts: Record<string, string>) {
    for (const [path, text] of Object.entries(texts)) this.texts.set(path, text);
  }

  async sourceFiles(): Promise<readonly string[]> {
    this.listings++;
    return [...this.texts.keys()].sort();
  }

  async read(paths: readonly string[], known: (path: string, digest: string) => FileFacts | undefined): Promise<(FileFacts | SkippedFile)[]> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk on fire');
    }
    this.asked.push(...paths);
    const entries = paths.flatMap((path): (FileFacts | SkippedFile)[] => {
      const text = this.texts.get(path);
      if (text === undefined) return []; // deleted since the listing
      if (path.endsWith('.big')) return [{ path, reason: 'too-large' }];
      const digest = `${text.length}:${text}`;
      const cached = known(path, digest);
      if (cached) return [cached];
      this.parsed.push(path);
      const symbols = [...text.matchAll(/^def (\w+)/gm)].map((match) => ({ name: match[1], kind: 'function' as const, startLine: text.slice(0, match.index).split('\n').length - 1 }));
      return [factsOf(path, digest, text, symbols, referencesOf(text))];
    });
    const after = this.afterRead;
    this.afterRead = undefined;
    after?.();
    return entries;
  }

  reset(): void {
    this.listings = 0;
    this.asked = [];
    this.parsed = [];
  }
}

const REPOSITORY = {
  'hub.py': 'def route_request():\n    pass\n',
  'a.py': 'def handler_a():\n    route_request()\n',
  'b.py': 'def handler_b():\n    route_request()\n',
  'huge.big': 'x',
};

const names = (result: Awaited<ReturnType<RepoMap['map']>>, path: string) => result.files.find((file) => file.path === path)?.definitions.map((definition) => definition.name);

describe('RepoMap', () => {
  it('unwatched, lists and has every file checked on each map, parsing only the files whose bytes changed', async () => {
    const reader = new CountingReader(REPOSITORY);
    const map = new RepoMap(reader);
    await map.map({ tokens: 1000 });
    reader.reset();
    reader.texts.set('a.py', `${REPOSITORY['a.py']}def handler_a2():\n    pass\n`);
    const again = await map.map({ tokens: 1000 });
    assert.equal(reader.listings, 1);
    assert.deepEqual(reader.asked, ['a.py', 'b.py', 'hub.py', 'huge.big']);
    assert.deepEqual(reader.parsed, ['a.py']);
    assert.deepEqual(names(again, 'a.py'), ['handler_a', 'handler_a2']);
  });

  it('watched, reads only the files it was told of, and their new declarations and references are in the next map', async () => {
    const reader = new CountingReader(REPOSITORY);
    const map = new RepoMap(reader, { watched: true });
    const first = await map.map({ tokens: 1000 });
    assert.equal(first.files[0].path, 'hub.py');
    assert.deepEqual(first.skipped, [{ path: 'huge.big', reason: 'too-large' }]);
    reader.reset();

    const quiet = await map.map({ tokens: 1000 });
    assert.deepEqual([reader.listings, reader.asked, reader.parsed], [0, [], []], 'told of nothing: nothing listed or read');
    assert.equal(quiet.text, first.text);

    // b.py now declares a name a.py and hub.py use: it becomes the hub.
    reader.texts.set('b.py', 'def handler_b():\n    route_request()\ndef shared_helper():\n    pass\n');
    reader.texts.set('a.py', 'def handler_a():\n    shared_helper()\n');
    reader.texts.set('hub.py', 'def route_request():\n    shared_helper()\n');
    map.filesChanged(['b.py', 'a.py', 'hub.py', 'README.md'], false);
    const saved = await map.map({ tokens: 1000 });
    assert.equal(reader.listings, 0);
    assert.deepEqual(reader.asked.sort(), ['a.py', 'b.py', 'hub.py'], 'only the listed files told of');
    assert.deepEqual(names(saved, 'b.py'), ['handler_b', 'shared_helper']);
    assert.equal(saved.files[0].path, 'b.py');
    assert.deepEqual(saved.skipped, first.skipped);
  });

  it('watched, lists again when files come or go: a new file is read, a deleted one leaves the map', async () => {
    const reader = new CountingReader(REPOSITORY);
    const map = new RepoMap(reader, { watched: true });
    await map.map({ tokens: 1000 });
    reader.reset();
    reader.texts.set('c.py', 'def handler_c():\n    route_request()\n');
    reader.texts.delete('b.py');
    map.filesChanged(['c.py', 'b.py'], true);
    const moved = await map.map({ tokens: 1000 });
    assert.equal(reader.listings, 1);
    assert.deepEqual(reader.asked, ['c.py']);
    assert.deepEqual(moved.files.map((file) => file.path).sort(), ['a.py', 'c.py', 'hub.py']);
  });

  it('watched, reads again after a failed map what that map was to read', async () => {
    const reader = new CountingReader(REPOSITORY);
    const map = new RepoMap(reader, { watched: true });
    await map.map({ tokens: 1000 });
    reader.texts.set('a.py', 'def handler_renamed():\n    pass\n');
    map.filesChanged(['a.py'], false);
    reader.failNext = true;
    await assert.rejects(map.map(), /disk on fire/);
    reader.reset();
    const next = await map.map({ tokens: 1000 });
    assert.deepEqual(reader.asked, ['a.py']);
    assert.deepEqual(names(next, 'a.py'), ['handler_renamed']);
  });

  it('watched, a failed first map leaves every file to be read', async () => {
    const reader = new CountingReader(REPOSITORY);
    const map = new RepoMap(reader, { watched: true });
    reader.failNext = true;
    await assert.rejects(map.map(), /disk on fire/);
    const next = await map.map({ tokens: 1000 });
    assert.deepEqual(reader.asked, ['a.py', 'b.py', 'hub.py', 'huge.big']);
    assert.equal(next.files.length, 3);
  });

  it('makes maps one after another: a change told of while a map is under way is read by the next', async () => {
    const reader = new CountingReader(REPOSITORY);
    const map = new RepoMap(reader, { watched: true });
    await map.map({ tokens: 1000 });
    reader.texts.set('a.py', 'def handler_one():\n    pass\n');
    map.filesChanged(['a.py'], false);
    reader.afterRead = () => {
      reader.texts.set('a.py', 'def handler_two():\n    pass\n');
      map.filesChanged(['a.py'], false);
    };
    const first = map.map({ tokens: 1000 });
    const second = map.map({ tokens: 1000 });
    assert.deepEqual(names(await first, 'a.py'), ['handler_one']);
    assert.deepEqual(names(await second, 'a.py'), ['handler_two']);
  });
});
