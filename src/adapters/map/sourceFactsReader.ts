import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { DeclaredName, ParseThreads, SourceSymbol } from '../../core/drift/symbols';
import { isFileAccessError, isNotAFile, isStackOverflow } from '../../core/errors';
import { nextTurn, turnDue } from '../../core/eventLoopTurns';
import { factsOf, factsOfOutline, type FileFacts, type SkippedFile } from '../../core/map/fileFacts';
import { referencesIn, type References } from '../../core/map/identifiers';
import type { FileFactsReader } from '../../core/map/repoMap';
import type { FileSystem } from '../../core/ports';
import { MAX_READ_BYTES } from '../../core/tools/workspaceText';
import { rulesOf } from '../treesitter/languages';

/** Files in hand at once (read, or waiting for a parse thread to read them): enough to keep every parse thread busy, few enough for the file descriptor limit and memory. */
const WINDOW = 128;
const OUTLINE = { names: [], outline: true } as const;
/** Fewer changed files than this parse on this thread: starting the threads (and their grammars) costs more than a save's parse. */
const THREADS_FROM = 16;
/** What a parse thread is given for a file found, when read, to need no parse (skipped, or known by its digest). */
const NOTHING_TO_PARSE = new Uint8Array(0);

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
      const last = this.digests.get(paths[i]);
      // A file never read (the first map) needs no stat to be read.
      const facts = last && (await this.files.stat(path.join(this.root, paths[i])))?.version === last.version ? known(paths[i], last.digest) : undefined;
      if (facts) results[i] = facts;
      else changed.push(i);
    }
    if (changed.length) {
      inTurnsOfLanguage(changed, paths);
      const threads = changed.length >= THREADS_FROM ? this.parsing.threads?.(changed.map((i) => paths[i])) : undefined;
      try {
        // WINDOW files in hand, each one's place taken by the next as soon as it is done: no file
        // waits for the slowest of a batch, and a thread is never left without a file.
        let next = 0;
        const lane = async () => {
          while (next < changed.length) {
            const i = changed[next++];
            await this.yieldTurn(signal);
            results[i] = await this.readOne(paths[i], known, threads);
          }
        };
        await Promise.all(Array.from({ length: Math.min(WINDOW, changed.length) }, lane));
      } finally {
        await threads?.release();
      }
    }
    // A file deleted since the listing is neither mapped nor skipped.
    return results.filter((entry): entry is FileFacts | SkippedFile => entry !== undefined);
  }

  /** A file's facts; on threads, the file is read when a thread is ready for it. */
  private async readOne(relPath: string, known: (path: string, digest: string) => FileFacts | undefined, threads: ParseThreads | undefined): Promise<FileFacts | SkippedFile | undefined> {
    const file: { read?: Loaded } = {};
    let declared: Iterable<DeclaredName> | undefined;
    let text: string | undefined;
    try {
      if (threads) {
        const symbols = await threads.parse(relPath, async () => {
          const read = (file.read = await this.load(relPath, known));
          return 'bytes' in read ? read.bytes : NOTHING_TO_PARSE;
        }, OUTLINE);
        const read = file.read!;
        if (!('bytes' in read)) return read.settled;
        // Its outline, with each declaration's first line: what the map needs of a file, and no
        // text here (its bytes went to the thread). TS/JS parses on this thread, whole.
        const outline = symbols.outline?.();
        if (outline) return factsOfOutline(relPath, read.digest, outline, read.references);
        declared = symbols.symbols.values();
      } else {
        const read = (file.read = await this.load(relPath, known));
        if ('bytes' in read) declared = await this.parsing.symbolsOf(relPath, (text = decoded(read.bytes)));
      }
    } catch (error) {
      if (!isStackOverflow(error) || !file.read || !('bytes' in file.read)) throw error;
      this.tooDeep.set(relPath, file.read.digest);
      return { path: relPath, reason: 'too-deep' };
    }
    const read = file.read!;
    if (!('bytes' in read)) return read.settled;
    return factsOf(relPath, read.digest, text ?? decoded(read.bytes), declared!, read.references);
  }

  /** A file's bytes, digest and references; or, when it needs no parse, its facts, why it is skipped, or undefined when it is no file. */
  private async load(relPath: string, known: (path: string, digest: string) => FileFacts | undefined): Promise<Loaded> {
    let bytes: Uint8Array;
    let version: string | undefined;
    try {
      ({ bytes, version } = await this.files.readVersioned(path.join(this.root, relPath), { maxBytes: MAX_READ_BYTES }));
    } catch (error) {
      if (isNotAFile(error)) return { settled: undefined };
      if (isFileAccessError(error)) return { settled: { path: relPath, reason: error.reason === 'too-large' ? 'too-large' : 'refused' } };
      throw error;
    }
    if (bytes.subarray(0, 8192).includes(0)) return { settled: { path: relPath, reason: 'binary' } };
    const digest = createHash('sha1').update(bytes).digest('base64');
    if (version) this.digests.set(relPath, { version, digest });
    else this.digests.delete(relPath); // written just now: read it again next time
    const cached = known(relPath, digest);
    if (cached) return { settled: cached };
    if (this.tooDeep.get(relPath) === digest) return { settled: { path: relPath, reason: 'too-deep' } };
    // Counted before the bytes move to a parse thread (which has files in hand to parse meanwhile).
    return { bytes, digest, references: referencesIn(bytes) };
  }

  private async yieldTurn(signal: AbortSignal | undefined): Promise<void> {
    // Reads may be synchronous (CLI, MCP): between batches, the event loop gets its turns.
    while (turnDue()) await nextTurn();
    signal?.throwIfAborted();
  }
}

/**
 * Puts files in turns of language (the first of each, then the second of each, …), in place: each
 * parse thread meets every language it parses within its first files, and the JIT optimises the
 * outline walk once for all of them. A language at a time (the listing's order), every switch threw
 * the optimised walk away: on the map bench's corpus, 1.7 s of JIT compilation against 2.1.
 */
function inTurnsOfLanguage(indexes: number[], paths: readonly string[]): void {
  const byLanguage = new Map<string, number[]>();
  for (const i of indexes) {
    // Its grammar (`.h` and `.cc` share C++'s); by extension, a file no grammar parses.
    const language = rulesOf(paths[i])?.grammar ?? path.extname(paths[i]).toLowerCase();
    const files = byLanguage.get(language);
    if (files) files.push(i);
    else byLanguage.set(language, [i]);
  }
  const languages = [...byLanguage.values()];
  let next = 0;
  for (let turn = 0; next < indexes.length; turn++) {
    for (const files of languages) if (turn < files.length) indexes[next++] = files[turn];
  }
}

type Loaded = { bytes: Uint8Array; digest: string; references: References } | { settled: FileFacts | SkippedFile | undefined };

/** The text of bytes still in hand (a file parsed on this thread). */
function decoded(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
