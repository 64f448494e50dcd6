import * as path from 'node:path';
import { SYMBOL_FILE } from '../core/drift/citations';
import type { SourceSymbol } from '../core/drift/symbols';
import { isFileAccessError, isNotAFile } from '../core/errors';
import type { CitedCode } from '../core/lint/librarianPass';
import type { FileSystem } from '../core/ports';

/**
 * The current code of cited symbols, read through the guarded file access (so never a link out,
 * a secret or a FIFO). `symbolsOf` parses a file (in the CLI directly, in the extension through the
 * drift worker); symbols are cut out by their line range.
 */
export class FileCitedCode implements CitedCode {
  constructor(
    private readonly root: string,
    private readonly files: FileSystem,
    private readonly symbolsOf: (relPath: string, text: string) => Promise<readonly SourceSymbol[]>,
  ) {}

  async codeOf(citation: { path: string; symbol?: string }): Promise<string | undefined> {
    let text: string;
    try {
      text = new TextDecoder().decode(await this.files.readFile(path.resolve(this.root, citation.path)));
    } catch (error) {
      // Drift reports these files; the librarian just does not see them.
      if (isNotAFile(error) || isFileAccessError(error)) return undefined;
      throw error;
    }
    if (!citation.symbol) return text;
    if (!SYMBOL_FILE.test(citation.path)) return undefined;
    const symbol = (await this.symbolsOf(citation.path, text)).find((s) => s.name === citation.symbol);
    return symbol && text.split('\n').slice(symbol.startLine, symbol.endLine + 1).join('\n');
  }
}
