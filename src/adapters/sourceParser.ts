import type { FileSymbols, SymbolParser } from '../core/drift/symbols';
import { isTreeSitterFile, TreeSitterParser } from './treesitter/treeSitterParser';
import { CachingSymbolParser, TsSymbolParser } from './typescript/tsSymbolParser';

/** Bounds the parses kept of tree-sitter files (TS/JS keeps its own cache). */
const MAX_CACHED = 2000;

/**
 * The parser drift uses for every language: TS/JS through the TypeScript compiler API, the other
 * languages through tree-sitter, whose grammars load on first use. Unchanged text is never parsed twice.
 */
export class SourceParser implements SymbolParser {
  readonly typescript = new CachingSymbolParser(new TsSymbolParser());
  private readonly treeSitter = new TreeSitterParser();
  private readonly cache = new Map<string, FileSymbols>();

  async prepare(fileName: string): Promise<void> {
    if (isTreeSitterFile(fileName)) await this.treeSitter.prepare(fileName);
  }

  /** The tree-sitter grammar a file's language loaded (undefined for TS/JS, or before prepare()). */
  languageOf(fileName: string) {
    return this.treeSitter.languageOf(fileName);
  }

  parse(fileName: string, text: string): FileSymbols {
    if (!isTreeSitterFile(fileName)) return this.typescript.parse(fileName, text);
    const key = `${fileName.slice(fileName.lastIndexOf('.'))}\u0000${text}`;
    let parsed = this.cache.get(key);
    if (parsed) this.cache.delete(key); // re-inserted below: Map order is the LRU order
    else parsed = this.treeSitter.parse(fileName, text);
    this.cache.set(key, parsed);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return parsed;
  }
}
