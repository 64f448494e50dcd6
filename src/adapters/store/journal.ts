import * as fsSync from 'node:fs';
import * as path from 'node:path';
import { isMissing, WikiError } from '../../core/errors';
import type { ConversationRecord, PriorTurnsSummary, Turn } from '../../core/chat/conversation';
import { storageError, syncDir } from './files';

/**
 * The conversation journal: numbered segment files of JSON lines, one line per change.
 * Appenders always write to the highest segment; a compaction starts a new segment, folds the
 * older ones into the database and deletes them. See sqlJsConversationStore.ts for the whole scheme.
 */

/** Bumped when an entry's meaning changes; an older build refuses newer entries instead of dropping them. */
export const JOURNAL_FORMAT = 1;

export type JournalChange =
  | { op: 'create'; conversation: { id: string; title: string; created: string } }
  | { op: 'turn'; turn: Omit<Turn, 'index'> }
  /** Another answer to question `index` (Retry); it is shown from then on. */
  | { op: 'sibling'; turn: Omit<Turn, 'index'>; index: number }
  | { op: 'show'; conversationId: string; index: number; sibling: number }
  | { op: 'rename'; conversationId: string; title: string }
  /** A proposed title: applied only while the title is still a placeholder. */
  | { op: 'title'; conversationId: string; title: string; source: 'model' | 'question' }
  | { op: 'delete'; conversationId: string }
  | { op: 'restore'; record: ConversationRecord }
  | { op: 'filed'; conversationId: string; slug: string }
  | { op: 'tags'; conversationId: string; tags: string[] }
  | { op: 'summary'; conversationId: string; summary: PriorTurnsSummary };

/** `id` is unique per entry: replaying an entry twice (it may sit in two segments) must be harmless. */
export type JournalEntry = JournalChange & { v: number; id: string };

const OPS = new Set<string>(['create', 'turn', 'sibling', 'show', 'rename', 'title', 'delete', 'restore', 'filed', 'tags', 'summary']);
const SEGMENT = /^conversations\.journal-(\d+)\.jsonl$/;

export const segmentPath = (dir: string, segment: number): string => path.join(dir, `conversations.journal-${segment}.jsonl`);

/*
 * Listing segments and reading new bytes use synchronous calls: they are page-cache reads of a few
 * microseconds, and every change makes several, where a thread-pool round trip costs ~0.1 ms each.
 * Only the durable write (write + fdatasync, which may wait for the disk) is asynchronous.
 */

/** Segment numbers present in `dir`, lowest first. */
export function listSegments(dir: string): number[] {
  const names = fsSync.readdirSync(dir);
  return names.flatMap((name) => {
    const match = SEGMENT.exec(name);
    return match ? [Number(match[1])] : [];
  }).sort((a, b) => a - b);
}

/**
 * One line per entry, written with a single write call so concurrent appenders (O_APPEND) never
 * interleave. The leading newline isolates a line torn by a crash from the next writer's entry.
 */
export const encodeEntry = (entry: JournalEntry): Buffer => Buffer.from(`\n${JSON.stringify(entry)}\n`, 'utf8');

/** An entry from one line, or undefined for a torn or foreign line. Throws on entries from a newer build. */
export function parseEntry(line: string): JournalEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const entry = value as Partial<JournalEntry> | null;
  if (typeof entry?.v !== 'number' || typeof entry.id !== 'string' || typeof entry.op !== 'string') return undefined;
  if (entry.v > JOURNAL_FORMAT || !OPS.has(entry.op)) {
    throw new WikiError('newer-database', 'The chat history journal contains changes written by a newer version of Repo Wiki.', 'Update the Repo Wiki extension in every VS Code window. Nothing was changed.');
  }
  return entry as JournalEntry;
}

/** Appends entries durably to the highest segment. */
export class JournalWriter {
  /** The open segment's descriptor. */
  private fd?: number;
  private segment = 0;

  constructor(private readonly dir: string) {}

  /**
   * Resolves once the entry is on disk (fdatasync) in a segment that no compaction had passed by
   * when it was written. A compaction starts segment n+1 before it reads segment n, so if a newer
   * segment exists after our write, the compaction may have missed it: write it again there.
   * The write and its fdatasync are synchronous (about half a millisecond): awaited on the thread
   * pool, a turn's acknowledgement also waited for whatever the event loop ran meanwhile, such as
   * a garbage collection's marking, which put 5–30 ms pauses into one append in twenty.
   */
  async append(entry: JournalEntry): Promise<void> {
    const bytes = encodeEntry(entry);
    for (let attempt = 0; attempt < 20; attempt++) {
      const fd = this.fd;
      if (fd === undefined) throw new Error('The journal writer has no segment: call use() first.');
      try {
        const written = fsSync.writeSync(fd, bytes);
        if (written !== bytes.length) throw new Error(`only ${written} of ${bytes.length} bytes were written`);
        fsSync.fdatasyncSync(fd);
      } catch (error) {
        throw storageError(segmentPath(this.dir, this.segment), error);
      }
      const segments = listSegments(this.dir);
      const newest = Math.max(...segments);
      if (newest === this.segment) return;
      // A newer segment, or ours was removed by hand: write the entry again where readers will see it.
      await this.use(newest > this.segment ? newest : this.segment);
    }
    throw new WikiError('store-busy', 'Could not save to the chat history: its journal kept being rotated by another window.', 'Try again in a moment.');
  }

  /** Switches appends to `segment`, creating it if needed (a compaction starts the next segment this way). */
  async use(segment: number): Promise<void> {
    await this.close();
    const file = segmentPath(this.dir, segment);
    try {
      const existed = fsSync.existsSync(file);
      this.fd = fsSync.openSync(file, 'a');
      if (!existed) await syncDir(this.dir); // a new segment's name must survive a crash like its entries do
    } catch (error) {
      throw storageError(file, error);
    }
    this.segment = segment;
  }

  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) fsSync.closeSync(fd);
  }
}

/** An entry and the segment it was read from. */
export interface ReadEntry {
  segment: number;
  entry: JournalEntry;
}

export interface JournalRead {
  entries: ReadEntry[];
  /**
   * The next segment to read is gone although later ones exist: something folded it (a compaction
   * in another window, which rewrote the database first) or removed it, maybe before this reader
   * had seen all of it.
   */
  gap: boolean;
}

/** Reads new complete entries in journal order, tracking (segment, byte offset). */
export class JournalReader {
  constructor(private readonly dir: string, private segmentNumber: number, private offset = 0) {}

  get segment(): number {
    return this.segmentNumber;
  }

  /** Continues at the start of `segment`. */
  skipTo(segment: number): void {
    this.segmentNumber = segment;
    this.offset = 0;
  }

  /**
   * Entries appended since the last read, from segments listed in `segments` up to `last`.
   * Moving on from segment n is safe only because n+1 was listed before n was read: any later
   * write to n is also written to n+1 by its appender (see JournalWriter.append).
   */
  readNew(segments: readonly number[], last = Infinity): JournalRead {
    const entries: ReadEntry[] = [];
    const later = (segment: number) => segments.some((other) => other > segment);
    const start = segments.indexOf(this.segmentNumber);
    if (start < 0) return { entries, gap: later(this.segmentNumber) };
    for (const segment of segments.slice(start)) {
      if (segment > last) break;
      if (segment !== this.segmentNumber) this.skipTo(segment);
      const file = segmentPath(this.dir, segment);
      const size = fileSize(file);
      if (size === undefined) return { entries, gap: later(segment) };
      if (size < this.offset) this.offset = 0; // removed by hand and started again by an appender
      if (size === this.offset) continue;
      const chunk = readRange(file, this.offset, size);
      if (!chunk) return { entries, gap: later(segment) };
      // Only whole lines: a line without its newline is still being written, or was torn by a crash.
      const end = chunk.lastIndexOf(0x0a) + 1;
      for (const line of chunk.subarray(0, end).toString('utf8').split('\n')) {
        const entry = line && parseEntry(line);
        if (entry) entries.push({ segment, entry });
      }
      this.offset += end;
    }
    return { entries, gap: false };
  }
}

function fileSize(file: string): number | undefined {
  try {
    return fsSync.statSync(file).size;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Bytes [from, to) of a file (fewer if it shrank meanwhile), or undefined when it is gone. */
function readRange(file: string, from: number, to: number): Buffer | undefined {
  let fd: number;
  try {
    fd = fsSync.openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(to - from);
    return buffer.subarray(0, fsSync.readSync(fd, buffer, 0, buffer.length, from));
  } finally {
    fsSync.closeSync(fd);
  }
}
