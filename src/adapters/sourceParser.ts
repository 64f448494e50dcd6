import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answersWanted, type FileSymbols, type ParseThreads, type SymbolParser, type WantedSymbols } from '../core/drift/symbols';
import { isTreeSitterFile, TreeSitterParser } from './treesitter/treeSitterParser';
import type { CachingSymbolParser } from './typescript/tsSymbolParser';

/** Bounds the parses kept of tree-sitter files (TS/JS keeps its own cache). */
const MAX_CACHED = 2000;

/**
 * The parser drift uses for every language: TS/JS through the TypeScript compiler API, the other
 * languages through tree-sitter, whose grammars load on first use. Unchanged text is never parsed
 * twice: a parse here is kept by its text; a batch parsed on other threads keeps only what was
 * wanted of each file, by a digest of its bytes, and parses a file again for more.
 * TypeScript itself loads on the first TS/JS file, so a run that cites no TS/JS never parses it.
 */
export class SourceParser implements SymbolParser {
  private ts?: CachingSymbolParser;
  private readonly treeSitter = new TreeSitterParser();
  private readonly cache = new Map<string, { extension: string; parsed: FileSymbols }>();
  /** Parses on other threads (partial), by extension and a digest of the bytes: no text comes back to key them by. */
  private readonly answered = new Map<string, FileSymbols>();

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
    return this.remember(fileName, text, this.cached(fileName, text) ?? this.treeSitter.parse(fileName, text, wanted));
  }

  /** Threads for a batch: tree-sitter files parse there, the others here. */
  threads(fileNames: readonly string[]): ParseThreads | undefined {
    const others = this.useThreads ? this.treeSitter.threads(fileNames) : undefined;
    if (!others) return undefined;
    return {
      parse: async (fileName, bytes, wanted) => {
        if (!isTreeSitterFile(fileName)) return this.parse(fileName, new TextDecoder().decode(bytes), wanted);
        // The digest is taken before the bytes go to the thread.
        const key = `${extensionOf(fileName)}:${createHash('sha1').update(bytes).digest('base64')}`;
        const known = this.answered.get(key);
        if (known) this.answered.delete(key); // re-inserted below: Map order is the LRU order
        const parsed = known && answersWanted(known, wanted) ? known : await others.parse(fileName, bytes, wanted);
        this.answered.set(key, parsed);
        if (this.answered.size > MAX_CACHED) this.answered.delete(this.answered.keys().next().value!);
        return parsed;
      },
      release: () => others.release(),
    };
  }

  // Keyed by the text itself (no copy of it), with the extension checked: the same text in another language is parsed anew.
  private cached(fileName: string, text: string): FileSymbols | undefined {
    const cached = this.cache.get(text);
    if (cached) this.cache.delete(text); // re-inserted by remember(): Map order is the LRU order
    return cached?.extension === extensionOf(fileName) ? cached.parsed : undefined;
  }

  private remember(fileName: string, text: string, parsed: FileSymbols): FileSymbols {
    this.cache.set(text, { extension: extensionOf(fileName), parsed });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return parsed;
  }
}

function extensionOf(fileName: string): string {
  return fileName.slice(fileName.lastIndexOf('.')).toLowerCase();
}

/**
 * The TypeScript compiler is most of a bundle's size, so the CLI and the drift worker share one
 * bundle of it and the TS/JS parser (tsParser.js, see esbuild.mjs), required on the first TS/JS
 * file; from compiled sources, the module itself.
 */
function loadTypeScriptModule(): typeof import('./typescript/tsSymbolParser') {
  const bundled = path.join(__dirname, 'tsParser.js');
  return require(fs.existsSync(bundled) ? bundled : path.join(__dirname, 'typescript', 'tsSymbolParser'));
}
