import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { TS_LIKE } from '../core/drift/citations';
import type { SourceSymbol } from '../core/drift/symbols';
import type { CitedCode } from '../core/librarian/lintPass';
import { sensitivePathReason } from '../core/sensitivePaths';
import { insideRealRoot } from './realPath';

/**
 * The current code of cited symbols, read from disk. `symbolsOf` parses a file (in the CLI directly,
 * in the extension through the drift worker); symbols are cut out by their line range.
 */
export class FileCitedCode implements CitedCode {
  constructor(
    private readonly root: string,
    private readonly symbolsOf: (relPath: string, text: string) => Promise<readonly SourceSymbol[]>,
  ) {}

  async codeOf(citation: { path: string; symbol?: string }): Promise<string | undefined> {
    const file = path.resolve(this.root, citation.path);
    if (path.relative(this.root, file).startsWith('..') || sensitivePathReason(citation.path)) return undefined;
    // A symbolic link must not lead the model to a file outside the workspace.
    if (!(await insideRealRoot(this.root, file))) return undefined;
    const text = await fs.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined || !citation.symbol) return text;
    if (!TS_LIKE.test(citation.path)) return undefined;
    const symbol = (await this.symbolsOf(citation.path, text)).find((s) => s.name === citation.symbol);
    return symbol && text.split('\n').slice(symbol.startLine, symbol.endLine + 1).join('\n');
  }
}
