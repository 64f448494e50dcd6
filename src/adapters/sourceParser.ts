import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answersWanted, type FileSymbols, type ParseThreads, type SymbolParser, type WantedSymbols } from '../core/drift/symbols';
import { LruCache } from './lruCache';
import { isTreeSitterFile, TreeSitterParser } from './treesitter/treeSitterParser';
import type { CachingSymbolParser } from './typescript/tsSymbolParser';

/** Bounds the parses kept of tree-sitter files (TS/JS keeps its own cache). */
const MAX_CACHED = 2000;

/**
 * The parser drift uses for every language: TS/JS through the TypeScript compiler API, the other
 * languages through tree-sitter, whose grammars load on first use. Unchanged text is never parsed
 * twice: a parse here is kept by file, with its text; a batch parsed on other threads keeps only what was
 * wanted of each file, by a digest of its bytes, and parses a file again for more.
 * TypeScript itself loads on the first TS/JS file, so a run that cites no TS/JS never parses it.
 */
export class SourceParser implements SymbolParser {
  private ts?: CachingSymbolParser;
  private readonly treeSitter = new TreeSitterParser();
  /** Parses here, by file, with the text parsed (no copy of it): a save replaces its file's entry, and old versions go with it. */
  private readonly cache = new LruCache<string, { text: string; parsed: FileSymbols }>(MAX_CACHED);
  /** Parses on other threads (partial), by extension and a digest of the bytes: no text comes back to key them by. */
  private readonly answered = new LruCache<string, FileSymbols>(MAX_CACHED);

  /** `useThreads` false parses every file on the calling thread (to measure against a one-thread floor). */
  constructor(private readonly useThreads = true) {}

  /** The TS/JS parser (with its cache), loaded on first use. */
  get typescript(): CachingSymbolParser {
    if (!this.ts) {
      const { CachingSymbolParser: Caching, TsSymbolParser } = loadTypeScriptModule();
      this.ts = new Caching(new TsSymbolParser());
    }
    return this.ts;
  }

  async prepare(fileName: string): Promise<void> {
    if (isTreeSitterFile(fileName)) await this.treeSitter.prepare(fileName);
  }

  /** The tree-sitter grammar a file's language loaded (undefined for TS/JS, or before prepare()). */
  languageOf(fileName: string) {
    return this.treeSitter.languageOf(fileName);
  }

  parse(fileName: string, text: string, wanted?: WantedSymbols): FileSymbols {
    if (!isTreeSitterFile(fileName)) return this.typescript.parse(fileName, text);
    // Not keyed by the text: V8 hashes a long string by its length alone, and a Map of long texts compares every one of that length.
    const cached = this.cache.get(fileName);
    if (cached?.text === text && answersWanted(cached.parsed, wanted)) return cached.parsed;
    const parsed = this.treeSitter.parse(fileName, text, wanted);
    this.cache.set(fileName, { text, parsed });
    return parsed;
  }

  /** Threads for a batch: tree-sitter files parse there, the others here. */
  threads(fileNames: readonly string[]): ParseThreads | undefined {
    const others = this.useThreads ? this.treeSitter.parseThreads(fileNames) : undefined;
    if (!others) return undefined;
    return {
      parse: async (fileName, read, wanted) => {
        if (!isTreeSitterFile(fileName)) return this.parse(fileName, new TextDecoder().decode(await read()), wanted);
        // The repository map keeps what it made of a file by the file's digest itself. (Its read
        // always gives bytes, so there is always a parse.)
        if (wanted?.outline) return (await others.parse(fileName, read, wanted))!;
        let key = '';
        let known: FileSymbols | undefined;
        const parsed = await others.parse(fileName, async () => {
          const bytes = await read();
          // The digest is taken before the bytes go to the thread.
          key = `${extensionOf(fileName)}:${createHash('sha1').update(bytes).digest('base64')}`;
          known = this.answered.get(key);
          return known && answersWanted(known, wanted) ? undefined : bytes;
        }, wanted);
        if (!parsed) return known!;
        this.answered.set(key, parsed);
        return parsed;
      },
      release: () => others.release(),
    };
  }
}

function extensionOf(fileName: string): string {
  return fileName.slice(fileName.lastIndexOf('.')).toLowerCase();
}

/**
 * The TypeScript compiler is most of a bundle's size, so the CLI and the drift worker share the TS/JS
 * parser's bundle (tsParser.js), required on the first TS/JS file, which requires the one
 * dist/typescript.js (see esbuild.mjs); from compiled sources, the module itself.
 */
function loadTypeScriptModule(): typeof import('./typescript/tsSymbolParser') {
  const bundled = path.join(__dirname, 'tsParser.js');
  return require(fs.existsSync(bundled) ? bundled : path.join(__dirname, 'typescript', 'tsSymbolParser'));
}
