import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { DeclaredName, ParseThreads, SourceSymbol } from '../../core/drift/symbols';
import { isFileAccessError, isNotAFile, isStackOverflow } from '../../core/errors';
import { nextTurn, turnDue } from '../../core/eventLoopTurns';
import { factsOf, type FileFacts, type SkippedFile } from '../../core/map/fileFacts';
import { identifierCounts } from '../../core/map/identifiers';
import type { FileFactsReader } from '../../core/map/repoMap';
import type { FileSystem } from '../../core/ports';
import { MAX_READ_BYTES } from '../../core/tools/workspaceText';

/** Files read and parsed at once: enough to keep every parse thread busy, few enough for the file descriptor limit and memory. */
const WINDOW = 128;
const OUTLINE = { names: [], outline: true } as const;
/** Fewer changed files than this parse on this thread: starting the threads (and their grammars) costs more than a save's parse. */
const THREADS_FROM = 16;

/** How the map parses, as drift does: on drift's parse threads where it has them, else through drift's symbolsOf. */
export interface MapParsing {
  /** Threads for a batch of files (drift's parse pool), or undefined where there are none. */
  threads?(paths: readonly string[]): ParseThreads | undefined;
  symbolsOf(relPath: string, text: string): Promise<readonly SourceSymbol[]>;
}

/**
 * Reads source files for the map through the guarded file access and parses them with drift's
 * parser. A file whose version (device, inode, size, times) is the one last read is not read
 * again; one whose bytes have the digest already known is not parsed again. Files find_symbol
 * would not read are skipped and named: over 2 MB, binary, refused (a link out, a secret, a FIFO)
 * or nested too deeply to parse.
 */
export class SourceFactsReader implements FileFactsReader {
  /** The digest of each file's last read version: a version unchanged needs no read. */
  private readonly digests = new Map<string, { version: string; digest: string }>();
  /** The digest of each file found nested too deeply to parse: the same bytes fail the same way. */
  private readonly tooDeep = new Map<string, string>();

  private readonly root: string;

  constructor(
    root: string,
    private readonly files: Pick<FileSystem, 'readVersioned' | 'stat'>,
    private readonly listing: (signal?: AbortSignal) => Promise<readonly string[]>,
    private readonly parsing: MapParsing,
  ) {
    this.root = path.resolve(root);
  }

  sourceFiles(signal?: AbortSignal): Promise<readonly string[]> {
    return this.listing(signal);
  }

  async read(paths: readonly string[], known: (path: string, digest: string) => FileFacts | undefined, signal?: AbortSignal): Promise<(FileFacts | SkippedFile)[]> {
    const results: (FileFacts | SkippedFile | undefined)[] = new Array(paths.length);
    const changed: number[] = [];
    for (let i = 0; i < paths.length; i++) {
      if (i % WINDOW === 0) await this.yieldTurn(signal);
      const stat = await this.files.stat(path.join(this.root, paths[i]));
      const last = this.digests.get(paths[i]);
      const facts = last && stat?.version === last.version ? known(paths[i], last.digest) : undefined;
      if (facts) results[i] = facts;
      else changed.push(i);
    }
    if (changed.length) {
      const threads = changed.length >= THREADS_FROM ? this.parsing.threads?.(changed.map((i) => paths[i])) : undefined;
      try {
        for (let start = 0; start < changed.length; start += WINDOW) {
          await this.yieldTurn(signal);
          await Promise.all(changed.slice(start, start + WINDOW).map(async (i) => (results[i] = await this.readOne(paths[i], known, threads))));
        }
      } finally {
        await threads?.release();
      }
    }
    // A file deleted since the listing is neither mapped nor skipped.
    return results.filter((entry): entry is FileFacts | SkippedFile => entry !== undefined);
  }

  private async readOne(relPath: string, known: (path: string, digest: string) => FileFacts | undefined, threads: ParseThreads | undefined): Promise<FileFacts | SkippedFile | undefined> {
    let bytes: Uint8Array;
    let version: string | undefined;
    try {
      ({ bytes, version } = await this.files.readVersioned(path.join(this.root, relPath), { maxBytes: MAX_READ_BYTES }));
    } catch (error) {
      if (isNotAFile(error)) return undefined;
      if (isFileAccessError(error)) return { path: relPath, reason: error.reason === 'too-large' ? 'too-large' : 'refused' };
      throw error;
    }
    if (bytes.subarray(0, 8192).includes(0)) return { path: relPath, reason: 'binary' };
    const digest = createHash('sha1').update(bytes).digest('base64');
    if (version) this.digests.set(relPath, { version, digest });
    else this.digests.delete(relPath); // written just now: read it again next time
    const cached = known(relPath, digest);
    if (cached) return cached;
    if (this.tooDeep.get(relPath) === digest) return { path: relPath, reason: 'too-deep' };
    const text = new TextDecoder().decode(bytes);
    const references = identifierCounts(text);
    try {
      return factsOf(relPath, digest, text, await this.declarations(relPath, text, bytes, threads), references);
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      this.tooDeep.set(relPath, digest);
      return { path: relPath, reason: 'too-deep' };
    }
  }

  /** The file's declarations: on a thread, its outline (nothing hashed); TS/JS, parsed on this thread, whole. */
  private async declarations(relPath: string, text: string, bytes: Uint8Array, threads: ParseThreads | undefined): Promise<Iterable<DeclaredName>> {
    if (!threads) return this.parsing.symbolsOf(relPath, text);
    const parsed = await threads.parse(relPath, async () => bytes, OUTLINE);
    return parsed.outline?.() ?? parsed.symbols.values();
  }

  private async yieldTurn(signal: AbortSignal | undefined): Promise<void> {
    // Reads may be synchronous (CLI, MCP): between batches, the event loop gets its turns.
    while (turnDue()) await nextTurn();
    signal?.throwIfAborted();
  }
}
