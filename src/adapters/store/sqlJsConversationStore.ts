import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { Conversation, ConversationRecord, ConversationStore, PriorTurnsSummary, SearchHit, Turn } from '../../core/chat/conversation';
import { isMissing, WikiError } from '../../core/errors';
import { isConversationId, requireConversationId } from '../../core/chat/lineage';
import type { LockAttempt } from '../files/lockFile';
import { removeLeftoverTemps } from '../files/tempFiles';
import { ConversationDb } from './conversationDb';
import { tryStoreLock, waitForStoreLock } from './fileLock';
import { fileIdentity, replaceFileAtomic, storageError, syncDir } from './files';
import { JOURNAL_FORMAT, JournalReader, JournalWriter, listSegments, segmentPath, type JournalChange, type JournalEntry } from './journal';
import { salvageRows } from './salvage';
import { searchTerms } from './search';

/**
 * Conversations in sql.js (SQLite in memory), made durable by a journal, safe with several windows.
 *
 * Files in the storage folder:
 *   conversations.db                  SQLite image; meta.folded_segment = h: journal segments ≤ h are in it
 *   conversations.journal-<n>.jsonl   journal segments, one JSON line per change, highest n is current
 *   conversations.lock                held while compacting (created with O_EXCL; pid, host, time)
 *
 * Change: append one line to the highest segment (one O_APPEND write, then fdatasync), then read the
 *   journal forward and apply what is new, the change included: every window applies changes in
 *   journal order. appendTurn resolves after that, so an acknowledged turn is on disk, at any size.
 * Read: list/get/search first apply what other windows appended (readdir, then only new bytes).
 * Compaction (after `compactAfterMs` without changes or `compactAfterChanges` changes, and on close),
 *   under the lock: (1) start segment h+1, where appends go from then on; (2) read segments ≤ h to
 *   their end; (3) export the database with folded_segment = h to a temp file, fsync, rename over
 *   conversations.db; (4) delete segments ≤ h.
 *   An appender that wrote to h after (2) lists the segments after its write, sees h+1 and writes the
 *   entry again there; replaying an entry twice is harmless. A crash between (3) and (4) leaves
 *   segments ≤ h behind, which folded_segment says to skip. A reader (another window) that finds its
 *   next segment gone while later ones exist reloads conversations.db, which has it, and goes on.
 * Open: load conversations.db, then replay the segments above folded_segment. A damaged file is
 *   renamed to conversations.db.corrupt-<time>, never deleted; its readable rows are kept.
 */

export interface ConversationStoreOptions {
  /** sql-wasm.wasm; the extension passes the copy next to its bundle. */
  wasmPath?: string;
  now?: () => Date;
  /** Fold the journal into the database after this long without a change. */
  compactAfterMs?: number;
  /** ...or as soon as this window has made this many changes. */
  compactAfterChanges?: number;
  /** A compaction lock older than this is taken over (its owner is presumed hung). */
  lockStaleMs?: number;
  /** False forces the LIKE search used when sql.js has no FTS4. */
  fullTextSearch?: boolean;
  /** Problems found after opening (a change that could not be applied, lost journal segments). */
  onWarning?: (message: string) => void;
}

type Settings = Required<Omit<ConversationStoreOptions, 'wasmPath'>>;

export const DATABASE_FILE = 'conversations.db';
export const LOCK_FILE = 'conversations.lock';
const DEFAULT_SEARCH_LIMIT = 20;
/** Reloads in a row before giving up: each needs another window to compact again meanwhile. */
const MAX_RELOADS = 5;
const SET_ASIDE_LOCK_WAIT_MS = 3_000;

/**
 * Opens (creating if needed) the conversation store in `dir`. `warnings` says what the user should
 * know: a damaged database that was set aside, and what was recovered.
 */
export async function openConversationStore(dir: string, options: ConversationStoreOptions = {}): Promise<{ store: SqlJsConversationStore; warnings: string[] }> {
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (error) {
    throw storageError(dir, error);
  }
  const sql = await loadSqlJs(options.wasmPath ?? require.resolve('sql.js/dist/sql-wasm.wasm'));
  const warnings: string[] = [];
  const store = new SqlJsConversationStore(dir, sql, {
    now: options.now ?? (() => new Date()),
    compactAfterMs: options.compactAfterMs ?? 10_000,
    compactAfterChanges: options.compactAfterChanges ?? 200,
    lockStaleMs: options.lockStaleMs ?? 60_000,
    fullTextSearch: options.fullTextSearch ?? true,
    onWarning: options.onWarning ?? (() => undefined),
  });
  await store.open(warnings);
  return { store, warnings };
}

const sqlJsByWasm = new Map<string, Promise<SqlJsStatic>>();

/** sql.js is loaded here, on first open, never at extension activation. */
function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let loading = sqlJsByWasm.get(wasmPath);
  if (!loading) {
    loading = import('sql.js')
      .then(({ default: initSqlJs }) => initSqlJs({ locateFile: () => wasmPath }))
      .catch((error: unknown) => {
        sqlJsByWasm.delete(wasmPath);
        throw new Error(`Could not load SQLite from ${wasmPath}: ${(error as Error).message}. Reinstall the Repo Wiki extension.`);
      });
    sqlJsByWasm.set(wasmPath, loading);
  }
  return loading;
}

export class SqlJsConversationStore implements ConversationStore {
  private db!: ConversationDb;
  private reader!: JournalReader;
  /** conversations.db as it was when `db` was loaded from it (undefined: no file). */
  private dbIdentity?: string;
  private readonly writer: JournalWriter;
  /** Serializes this window's operations. */
  private tail: Promise<unknown> = Promise.resolve();
  private changesSinceCompaction = 0;
  /** The database holds rows that are in neither conversations.db nor the journal (salvaged). */
  private unsaved = false;
  private appliedEntries = 0;
  private timer?: NodeJS.Timeout;
  private compaction?: Promise<boolean>;
  /** Set for good once this build meets journal entries from a newer one. */
  private blocked?: WikiError;
  private closing?: Promise<void>;
  private closed = false;
  private readonly dbFile: string;

  constructor(private readonly dir: string, private readonly sql: SqlJsStatic, private readonly settings: Settings) {
    this.dbFile = path.join(dir, DATABASE_FILE);
    this.writer = new JournalWriter(dir);
  }

  /** Loads the database and replays the journal. Called once, by openConversationStore. */
  async open(warnings: string[]): Promise<void> {
    let salvage: string | undefined;
    let replayed: number;
    try {
      salvage = await this.load();
      const before = this.appliedEntries;
      await this.catchUp();
      replayed = this.appliedEntries - before;
      await this.writer.use(Math.max(this.reader.segment, ...listSegments(this.dir)));
    } catch (error) {
      // sql.js memory is not garbage-collected: free it when the store never opens.
      await this.writer.close();
      this.db?.close();
      throw error;
    }
    if (salvage) {
      warnings.push(`${salvage} ${replayed} more change(s) were replayed from the journal.`);
      await this.compact(); // write the recovered rows to a new conversations.db now
    } else if (replayed) {
      this.scheduleCompaction();
    }
  }

  list(): Promise<Conversation[]> {
    return this.operation(() => this.db.list());
  }

  get(id: string): Promise<ConversationRecord | undefined> {
    return this.operation(() => this.db.record(id));
  }

  search(query: string, limit = DEFAULT_SEARCH_LIMIT): Promise<SearchHit[]> {
    const terms = searchTerms(query);
    if (!terms.length) return Promise.resolve([]);
    return this.operation(() => this.db.search(terms, limit));
  }

  create(title: string, id?: string): Promise<Conversation> {
    const created = this.settings.now().toISOString();
    return this.operation(async () => {
      const conversation = { id: id === undefined ? randomUUID() : requireConversationId(id), title, created };
      if (id !== undefined) this.requireFree(id);
      await this.record({ op: 'create', conversation });
      return this.db.conversation(conversation.id)!;
    });
  }

  appendTurn(turn: Omit<Turn, 'index'>): Promise<Turn> {
    // Only the fields of a turn: callers may pass richer objects.
    const { conversationId, question, answer, context, model, inputTokens, outputTokens, created, steps } = turn;
    return this.operation(async () => {
      this.requireConversation(conversationId);
      const entry = await this.record({ op: 'turn', turn: { conversationId, question, answer, context, model, inputTokens, outputTokens, created, ...(steps?.length ? { steps } : {}) } });
      // Absent when another window deleted the conversation just before: the journal dropped the turn.
      const stored = this.db.turnByEntry(entry.id);
      if (!stored) throw notFound(conversationId);
      return stored;
    });
  }

  rename(id: string, title: string): Promise<void> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.record({ op: 'rename', conversationId: id, title });
    });
  }

  proposeTitle(id: string, title: string, source: 'model' | 'question'): Promise<boolean> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.record({ op: 'title', conversationId: id, title, source });
      const after = this.db.conversation(id);
      return after?.titleSource === source && after.title === title;
    });
  }

  setFiledPage(id: string, slug: string): Promise<void> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.record({ op: 'filed', conversationId: id, slug });
    });
  }

  setTags(id: string, tags: readonly string[]): Promise<void> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.record({ op: 'tags', conversationId: id, tags: [...tags] });
    });
  }

  setPriorSummary(id: string, summary: PriorTurnsSummary): Promise<void> {
    const { text, turns, model, created } = summary;
    return this.operation(async () => {
      this.requireConversation(id);
      await this.record({ op: 'summary', conversationId: id, summary: { text, turns, model, created } });
    });
  }

  importRecord(record: ConversationRecord): Promise<Conversation> {
    return this.operation(async () => {
      // Checked after catching up with the journal: a conversation another window holds is never replaced.
      const taken = !isConversationId(record.conversation.id) || !!this.db.conversation(record.conversation.id);
      const id = taken ? randomUUID() : record.conversation.id;
      const turns = record.turns.map((turn, index) => ({ ...turn, conversationId: id, index }));
      await this.record({ op: 'restore', record: { conversation: { ...record.conversation, id }, turns } });
      return this.db.conversation(id)!;
    });
  }

  addRecord(record: ConversationRecord): Promise<Conversation> {
    return this.operation(async () => {
      const id = requireConversationId(record.conversation.id);
      this.requireFree(id);
      const turns = record.turns.map((turn, index) => ({ ...turn, conversationId: id, index }));
      await this.record({ op: 'restore', record: { conversation: record.conversation, turns } });
      return this.db.conversation(id)!;
    });
  }

  delete(id: string): Promise<ConversationRecord | undefined> {
    return this.operation(async () => {
      const record = this.db.record(id);
      if (record) await this.record({ op: 'delete', conversationId: id });
      return record;
    });
  }

  restore(record: ConversationRecord): Promise<void> {
    return this.operation(async () => {
      await this.record({ op: 'restore', record });
    });
  }

  /**
   * Folds the journal into conversations.db (see the comment at the top). Returns false when there
   * was nothing to fold or another window holds the lock; nothing is lost then, the journal stays.
   */
  compact(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.compaction ??= this.runCompaction().finally(() => {
      this.compaction = undefined;
    });
    return this.compaction;
  }

  /** Waits for pending work, folds the journal, and releases the database. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.timer);
      await this.tail;
      await this.compaction?.catch(() => undefined);
      await this.compact().catch((error: unknown) => this.settings.onWarning(`The chat history journal was not folded into ${this.dbFile}: ${(error as Error).message} Nothing is lost; it is replayed on the next open.`));
      this.closed = true;
      await this.writer.close();
      this.db.close();
    })();
    return this.closing;
  }

  /** Runs `work` after this window's earlier operations, on a database caught up with the journal. */
  private operation<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new Error('The conversation store is closed.'));
    return this.exclusive(async () => {
      await this.catchUp();
      return work();
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Appends a change durably, then applies it (with anything other windows appended before it). */
  private async record(change: JournalChange): Promise<JournalEntry> {
    const entry = { v: JOURNAL_FORMAT, id: randomUUID(), ...change } as JournalEntry;
    await this.writer.append(entry);
    await this.catchUp();
    this.changesSinceCompaction++;
    this.scheduleCompaction();
    return entry;
  }

  private requireConversation(id: string): void {
    if (!this.db.conversation(id)) throw notFound(id);
  }

  /** Checked after catching up with the journal, so a conversation another window made counts. */
  private requireFree(id: string): void {
    if (this.db.conversation(id)) throw new WikiError('conversation-exists', `There is already a conversation ${id}.`, 'Choose another id, or leave it out to get a new one.');
  }

  /**
   * Loads conversations.db into memory and points the journal reader after what it holds.
   * Returns a message when the file was damaged and set aside.
   */
  private async load(): Promise<string | undefined> {
    // Identity first: if the file is replaced while we read it, the next gap reloads rather than skips.
    const identity = await fileIdentity(this.dbFile);
    const image = await readIfExists(this.dbFile);
    let db: ConversationDb;
    let salvage: string | undefined;
    try {
      db = ConversationDb.open(this.sql, image, { file: this.dbFile, fullText: this.settings.fullTextSearch });
    } catch (error) {
      // A newer schema is refused untouched; anything else means the file is damaged.
      if (error instanceof WikiError || !image) throw error;
      ({ db, salvage } = await this.setAside(image, identity, error));
    }
    this.db?.close();
    this.db = db;
    this.dbIdentity = salvage ? undefined : identity;
    // Without folded_segment (a new, salvaged or pre-journal database) every segment present is replayed.
    const folded = salvage ? undefined : db.foldedSegment();
    this.reader = new JournalReader(this.dir, folded === undefined ? (listSegments(this.dir)[0] ?? 1) : folded + 1);
    return salvage;
  }

  /** Renames a damaged conversations.db aside, under the lock, and starts a database from its readable rows. */
  private async setAside(image: Uint8Array, identity: string | undefined, damage: unknown): Promise<{ db: ConversationDb; salvage: string }> {
    const reason = (damage as Error).message;
    const aside = `${this.dbFile}.corrupt-${this.settings.now().toISOString().replace(/[:.]/g, '-')}`;
    const attempt = await this.acquireLockWithin(SET_ASIDE_LOCK_WAIT_MS);
    if ('busy' in attempt) {
      throw new WikiError('store-busy', `The chat history database ${this.dbFile} could not be read (${reason}), and another window is writing it (${attempt.busy}).`, 'Try again in a moment. Nothing was changed.');
    }
    try {
      // Another window may have replaced the damaged file with a good one since we read it.
      if ((await fileIdentity(this.dbFile)) !== identity) throw new WikiError('store-busy', `The chat history database ${this.dbFile} changed while it was being opened.`, 'Try again. Nothing was changed.');
      await fs.rename(this.dbFile, aside);
      await syncDir(this.dir);
    } catch (error) {
      if (error instanceof WikiError) throw error;
      throw new WikiError('write-failed', `The chat history database ${this.dbFile} could not be read (${reason}) and could not be moved aside: ${(error as Error).message}`, 'Move or rename that file yourself, then open the chat again. Nothing was deleted.');
    } finally {
      attempt.lock.release();
    }
    const rows = salvageRows(this.sql, image);
    const db = ConversationDb.open(this.sql, undefined, { file: this.dbFile, fullText: this.settings.fullTextSearch });
    db.adoptRows(rows.conversations, rows.turns);
    this.unsaved = true;
    return {
      db,
      salvage: `The chat history database ${this.dbFile} could not be read (${reason}). It was moved to ${aside} and kept; ${rows.conversations.length} conversation(s) and ${rows.turns.length} turn(s) were recovered from it.`,
    };
  }

  private tryLock(): LockAttempt {
    return tryStoreLock(path.join(this.dir, LOCK_FILE), this.settings.lockStaleMs);
  }

  private acquireLockWithin(ms: number): Promise<LockAttempt> {
    return waitForStoreLock(path.join(this.dir, LOCK_FILE), this.settings.lockStaleMs, ms);
  }

  /** Applies what the journal gained since the last read, up to segment `last`. */
  private async catchUp(last?: number): Promise<void> {
    if (this.blocked) throw this.blocked;
    try {
      for (let reloads = 0; reloads <= MAX_RELOADS; reloads++) {
        const segments = listSegments(this.dir);
        const { entries, gap } = this.reader.readNew(segments, last);
        this.apply(entries);
        if (!gap) return;
        if ((await fileIdentity(this.dbFile)) !== this.dbIdentity) {
          // Another window compacted: conversations.db has the segments we missed.
          const salvage = await this.load();
          if (salvage) this.settings.onWarning(salvage);
          continue;
        }
        // Gone without a new database: something else removed them. Go on with what is left.
        const next = segments.find((segment) => segment > this.reader.segment)!;
        this.settings.onWarning(`Chat history journal segment(s) ${this.reader.segment}–${next - 1} in ${this.dir} were removed by something other than Repo Wiki; changes saved only there are lost.`);
        this.reader.skipTo(next);
      }
      throw new WikiError('store-busy', `Could not read the chat history in ${this.dir}: other windows kept rewriting it.`, 'Try again in a moment.');
    } catch (error) {
      if (error instanceof WikiError && error.code === 'newer-database') this.blocked = error;
      throw error;
    }
  }

  private apply(entries: readonly JournalEntry[]): void {
    for (const { entry, error } of this.db.apply(entries)) {
      this.settings.onWarning(`Skipped a chat history change that could not be applied (${entry.op} ${entry.id}): ${(error as Error).message}`);
    }
    this.appliedEntries += entries.length;
  }

  private scheduleCompaction(): void {
    clearTimeout(this.timer);
    if (this.closing) return;
    const soon = this.changesSinceCompaction >= this.settings.compactAfterChanges;
    this.timer = setTimeout(() => {
      this.compact().catch((error: unknown) => this.settings.onWarning(`Could not fold the chat history journal into ${this.dbFile}: ${(error as Error).message} Nothing is lost; it stays in the journal.`));
    }, soon ? 0 : this.settings.compactAfterMs);
    this.timer.unref(); // never keeps a process alive
  }

  private async runCompaction(): Promise<boolean> {
    if (!this.unsaved && !(await this.journalHasChanges())) return false;
    const attempt = this.tryLock();
    if ('busy' in attempt) {
      this.scheduleCompaction(); // try again later; until then the journal holds everything
      return false;
    }
    const { lock } = attempt;
    try {
      const snapshot = await this.exclusive(async () => {
        const last = Math.max(this.reader.segment, ...listSegments(this.dir));
        await this.writer.use(last + 1);
        await this.catchUp(last);
        this.reader.skipTo(last + 1);
        this.db.setFoldedSegment(last);
        this.changesSinceCompaction = 0;
        return { image: this.db.export(), last };
      });
      // Left by writers killed midway (a compaction, a lock being taken).
      await removeLeftoverTemps(this.dbFile);
      await removeLeftoverTemps(path.join(this.dir, LOCK_FILE));
      // Re-checks the lock just before the rename: a window that took it over (we were paused past
      // lockStaleMs) may have written a newer database.
      if (!(await replaceFileAtomic(this.dbFile, snapshot.image, () => lock.held()))) return false;
      this.dbIdentity = await fileIdentity(this.dbFile);
      this.unsaved = false;
      for (const segment of listSegments(this.dir)) {
        if (segment <= snapshot.last) await fs.rm(segmentPath(this.dir, segment), { force: true });
      }
      return true;
    } finally {
      lock.release();
    }
  }

  /** More than the one current segment, or a current segment with something in it. */
  private async journalHasChanges(): Promise<boolean> {
    const segments = listSegments(this.dir);
    if (segments.length !== 1) return segments.length > 1;
    try {
      return (await fs.stat(segmentPath(this.dir, segments[0]))).size > 0;
    } catch (error) {
      if (isMissing(error)) return false; // removed meanwhile: another window compacted
      throw error;
    }
  }
}

function notFound(id: string): WikiError {
  return new WikiError('conversation-not-found', `Conversation ${id} no longer exists.`, 'It may have been deleted in another window; pick it again from the history.');
}

async function readIfExists(file: string): Promise<Uint8Array | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
