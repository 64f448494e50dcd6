import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { FileSymbols, ParseThreads } from '../../../../src/core/drift/symbols';
import type { FileFacts } from '../../../../src/core/map/fileFacts';
import { SourceFactsReader } from '../../../../src/adapters/map/sourceFactsReader';

const ROOT = path.resolve('/repo');

/** Files in memory, each declaring `def <its name>` on its first line; parse threads that note the order they are asked in. */
function readerOf(paths: readonly string[]) {
  const asked: string[] = [];
  const bytesOf = (file: string) => new TextEncoder().encode(`def ${path.basename(file).replace(/\W/g, '_')}\n`);
  const threads: ParseThreads = {
    async parse(fileName, read) {
      asked.push(fileName);
      await read();
      const name = path.basename(fileName).replace(/\W/g, '_');
      return { outline: () => [{ name, kind: 'function', startLine: 0, signature: `def ${name}` }] } as unknown as FileSymbols;
    },
    release: async () => undefined,
  };
  const files = {
    readVersioned: async (file: string) => ({ bytes: bytesOf(path.relative(ROOT, file)), version: 'v1' }),
    stat: async () => undefined,
  };
  const reader = new SourceFactsReader(ROOT, files, async () => paths, { threads: () => threads, symbolsOf: async () => [] });
  return { reader, asked };
}

describe('SourceFactsReader', () => {
  it('hands files to the parse threads in turns of language, and answers in the order it was given', async () => {
    const paths = [
      ...Array.from({ length: 10 }, (_, i) => `a/m${i}.py`),
      ...Array.from({ length: 5 }, (_, i) => `b/m${i}.go`),
      'c/m0.rb',
      'c/m1.rb',
    ];
    const { reader, asked } = readerOf(paths);
    const facts = (await reader.read(paths, () => undefined)) as FileFacts[];
    assert.deepEqual(asked.slice(0, 8), ['a/m0.py', 'b/m0.go', 'c/m0.rb', 'a/m1.py', 'b/m1.go', 'c/m1.rb', 'a/m2.py', 'b/m2.go']);
    assert.deepEqual(asked.slice(-5), ['a/m5.py', 'a/m6.py', 'a/m7.py', 'a/m8.py', 'a/m9.py']);
    assert.deepEqual([...asked].sort(), [...paths].sort());
    assert.deepEqual(
      facts.map((file) => file.path),
      paths,
    );
    assert.deepEqual(
      facts.map((file) => file.definitions[0]?.name),
      paths.map((file) => path.basename(file).replace(/\W/g, '_')),
    );
  });
});
