import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { Conversation, ConversationRecord, ConversationStore, PriorTurnsSummary, SearchHit, Turn } from '../../core/chat/conversation';
import { isMissing, WikiError } from '../../core/errors';
import { isConversationId, requireConversationId } from '../../core/chat/lineage';
import type { LockAttempt } from '../files/lockFile';
import { removeLeftoverTemps } from '../files/tempFiles';
import { Catalog, type ShardEffect } from './catalog';
import { tryStoreLock, waitForStoreLock } from './fileLock';
import { fileIdentity, replaceFileAtomic, storageError, syncDir } from './files';
import { JOURNAL_FORMAT, JournalReader, JournalWriter, listSegments, segmentPath, type JournalChange, type JournalEntry, type ReadEntry } from './journal';
import { LEGACY_DATABASE_FILE, readLegacyStore } from './legacyStore';
import { salvageRows } from './salvage';
import { searchTerms, snippet } from './search';
import { SHARD_COUNT, shardFile, shardOf, TURN_COLUMNS, TurnShard, type ScoredTurn } from './turnShard';

/**
 * Conversations in sql.js (SQLite in memory), made durable by a journal, safe with several windows,
 * and quick to open however many there are: a small catalog loads at once, turns load by shard.
 *
 * Files in the storage folder:
 *   catalog.db                        conversations with their totals (catalogDb.ts); meta.folded_segment = h:
 *                                     journal segments ≤ h are in it
 *   turns-NN.db                       the turns of conversations whose id hashes to NN (turnShard.ts), each
 *                                     with its own folded_segment
 *   conversations.journal-<n>.jsonl   journal segments, one JSON line per change, highest n is current
 *   conversations.lock                held while compacting (created with O_EXCL; pid, host, time)
 *   conversations.db                  the single file of earlier releases: split into the above on first
 *                                     open, then kept as conversations.db.migrated
 *
 * Change: append one line to the highest segment (one O_APPEND write, then fdatasync), then read the
 *   journal forward and apply what is new, the change included: every window applies changes in
 *   journal order. The catalog decides what each change means (a turn's index, or that it is dropped)
 *   and applies its part; the shard's part is kept pending until the shard is next read or compacted.
 *   appendTurn resolves after that, so an acknowledged turn is on disk, at any size, and SQLite's
 *   inserts stay off the durable path.
 * Read: list/get/search first apply what other windows appended (readdir, then only new bytes).
 *   get loads its conversation's shard, search every shard.
 * Compaction (after `compactAfterMs` without changes or `compactAfterChanges` changes, and on close),
 *   under the lock: (1) start segment h+1, where appends go from then on; (2) read segments ≤ h to
 *   their end; (3) load each shard with pending changes, then write each changed shard, then the
 *   catalog, each with folded_segment = h, to a temp file, fsync, rename; (4) delete segments ≤ h.
 *   So every shard file holds its turns up to the catalog's folded_segment; a shard left unchanged
 *   keeps an older folded_segment and had nothing in the segments deleted since.
 *   An appender that wrote to h after (2) lists the segments after its write, sees h+1 and writes the
 *   entry again there; replaying an entry twice is harmless. A crash within (3) or before (4) leaves
 *   segments ≤ h behind; each file's folded_segment says which of them it already has. A reader
 *   (another window) that finds its next segment gone while later ones exist reloads catalog.db,
 *   which has it, drops its loaded shards, and goes on.
 * Open: load catalog.db, then replay the segments above its folded_segment. A damaged file is
 *   renamed to <file>.corrupt-<time>, never deleted; its readable rows are kept, and a damaged catalog
 *   is rebuilt from the shards.
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

export const CATALOG_FILE = 'catalog.json';
export const LOCK_FILE = 'conversations.lock';
const DATA_FILE = /^(catalog\.json|turns-\d\d\.db|conversations\.db|conversations\.journal-\d+\.jsonl)$/;

/** Of the names in a folder, those of a store's data: its catalog, shards, journal, or an earlier release's single file. */
export const storeDataFiles = (names: readonly string[]): string[] => names.filter((name) => DATA_FILE.test(name)).sort();
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
  const wasmPath = options.wasmPath ?? require.resolve('sql.js/dist/sql-wasm.wasm');
  const warnings: string[] = [];
  const store = new SqlJsConversationStore(dir, () => loadSqlJs(wasmPath), {
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

/** sql.js is loaded here, when turns are first read or written: listing the history needs only the catalog. */
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

/** A turn shard in memory, and the journal segment its file had folded in when it was read. */
interface LoadedShard {
  db: TurnShard;
  folded: number | undefined;
  /** Holds changes its file does not have yet. */
  dirty: boolean;
}

export class SqlJsConversationStore implements ConversationStore {
  private catalog!: Catalog;
  private readonly shards = new Map<number, LoadedShard>();
  /** Effects not applied to their shard yet (loaded or not), with the journal segment of their entry. */
  private readonly pending = new Map<number, { segment: number; effect: ShardEffect }[]>();
  private reader!: JournalReader;
  /** catalog.db as it was when `catalog` was loaded from it (undefined: no file). */
  private catalogIdentity?: string;
  private readonly writer: JournalWriter;
  /** Serializes this window's operations. */
  private tail: Promise<unknown> = Promise.resolve();
  private changesSinceCompaction = 0;
  /** The catalog holds rows that are in neither catalog.db nor the journal (salvaged, or migrated). */
  private unsaved = false;
  private appliedEntries = 0;
  private timer?: NodeJS.Timeout;
  private compaction?: Promise<boolean>;
  /** Set for good once this build meets journal entries from a newer one. */
  private blocked?: WikiError;
  private closing?: Promise<void>;
  private closed = false;
  private readonly catalogFile: string;

  constructor(private readonly dir: string, private readonly loadSql: () => Promise<SqlJsStatic>, private readonly settings: Settings) {
    this.catalogFile = path.join(dir, CATALOG_FILE);
    this.writer = new JournalWriter(dir);
  }

  /** Splits an earlier release's single file, loads the catalog and replays the journal. Called once, by openConversationStore. */
  async open(warnings: string[]): Promise<void> {
    let salvage: string | undefined;
    let replayed: number;
    try {
      const migrated = await this.splitLegacyStore();
      if (migrated) warnings.push(migrated);
      salvage = await this.load();
      const before = this.appliedEntries;
      await this.catchUp();
      replayed = this.appliedEntries - before;
      await this.writer.use(Math.max(this.reader.segment, ...listSegments(this.dir)));
    } catch (error) {
      // sql.js memory is not garbage-collected: free it when the store never opens.
      await this.writer.close();
      this.releaseDatabases();
      throw error;
    }
    // Meanwhile the history is listed from the catalog; a conversation opened next finds SQLite ready.
    this.loadSql().catch((error: unknown) => this.settings.onWarning((error as Error).message));
    if (salvage) {
      warnings.push(`${salvage} ${replayed} more change(s) were replayed from the journal.`);
      await this.compact(); // write the recovered rows now
    } else if (replayed) {
      this.scheduleCompaction();
    }
  }

  list(): Promise<Conversation[]> {
    return this.operation(() => this.catalog.list());
  }

  get(id: string): Promise<ConversationRecord | undefined> {
    return this.operation(() => this.record(id));
  }

  search(query: string, limit = DEFAULT_SEARCH_LIMIT): Promise<SearchHit[]> {
    const terms = searchTerms(query);
    if (!terms.length || limit <= 0) return Promise.resolve([]);
    return this.operation(async () => {
      const tagged = this.catalog.searchTags(terms, limit);
      return [...tagged, ...(await this.searchTurns(terms, limit - tagged.length))];
    });
  }

  create(title: string, id?: string): Promise<Conversation> {
    const created = this.settings.now().toISOString();
    return this.operation(async () => {
      const conversation = { id: id === undefined ? randomUUID() : requireConversationId(id), title, created };
      if (id !== undefined) this.requireFree(id);
      await this.change({ op: 'create', conversation });
      return this.catalog.conversation(conversation.id)!;
    });
  }

  appendTurn(turn: Omit<Turn, 'index'>): Promise<Turn> {
    const stored = storedTurn(turn);
    const { conversationId } = stored;
    return this.operation(async () => {
      this.requireConversation(conversationId);
      const entry = await this.change({ op: 'turn', turn: stored });
      // Absent when another window deleted the conversation just before: the journal dropped the turn.
      const added = this.catalog.turnOf(entry.id);
      if (!added) throw notFound(conversationId);
      return { ...stored, index: added.index };
    });
  }

  appendSibling(turn: Omit<Turn, 'index'>, index: number): Promise<Turn> {
    const stored = storedTurn(turn);
    const { conversationId } = stored;
    return this.operation(async () => {
      this.requireQuestion(conversationId, index);
      const entry = await this.change({ op: 'sibling', turn: stored, index });
      const added = this.catalog.turnOf(entry.id);
      if (!added) throw notFound(conversationId);
      return { ...stored, index, sibling: added.sibling, siblingCount: added.sibling + 1 };
    });
  }

  showSibling(id: string, index: number, sibling: number): Promise<void> {
    return this.operation(async () => {
      const answers = this.requireQuestion(id, index);
      if (!Number.isInteger(sibling) || sibling < 0 || sibling >= answers) {
        throw new WikiError('turn-not-found', `Question ${index + 1} of conversation ${id} has no answer ${sibling + 1}.`, 'Open the conversation again from the history.');
      }
      if (answers > 1) await this.change({ op: 'show', conversationId: id, index, sibling });
    });
  }

  rename(id: string, title: string): Promise<void> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.change({ op: 'rename', conversationId: id, title });
    });
  }

  proposeTitle(id: string, title: string, source: 'model' | 'question'): Promise<boolean> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.change({ op: 'title', conversationId: id, title, source });
      const after = this.catalog.conversation(id);
      return after?.titleSource === source && after.title === title;
    });
  }

  setFiledPage(id: string, slug: string): Promise<void> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.change({ op: 'filed', conversationId: id, slug });
    });
  }

  setTags(id: string, tags: readonly string[]): Promise<void> {
    return this.operation(async () => {
      this.requireConversation(id);
      await this.change({ op: 'tags', conversationId: id, tags: [...tags] });
    });
  }

  setPriorSummary(id: string, summary: PriorTurnsSummary): Promise<void> {
    const { text, turns, model, created } = summary;
    return this.operation(async () => {
      this.requireConversation(id);
      await this.change({ op: 'summary', conversationId: id, summary: { text, turns, model, created } });
    });
  }

  importRecord(record: ConversationRecord): Promise<Conversation> {
    return this.operation(async () => {
      // Checked after catching up with the journal: a conversation another window holds is never replaced.
      const taken = !isConversationId(record.conversation.id) || !!this.catalog.conversation(record.conversation.id);
      const id = taken ? randomUUID() : record.conversation.id;
      await this.change({ op: 'restore', record: underId(record, id) });
      return this.catalog.conversation(id)!;
    });
  }

  addRecord(record: ConversationRecord): Promise<Conversation> {
    return this.operation(async () => {
      const id = requireConversationId(record.conversation.id);
      this.requireFree(id);
      await this.change({ op: 'restore', record: underId(record, id) });
      return this.catalog.conversation(id)!;
    });
  }

  delete(id: string): Promise<ConversationRecord | undefined> {
    return this.operation(async () => {
      const record = await this.record(id);
      if (record) await this.change({ op: 'delete', conversationId: id });
      return record;
    });
  }

  restore(record: ConversationRecord): Promise<void> {
    return this.operation(async () => {
      await this.change({ op: 'restore', record });
    });
  }

  /**
   * Folds the journal into catalog.db and the shards (see the comment at the top). Returns false when
   * there was nothing to fold or another window holds the lock; nothing is lost then, the journal stays.
   */
  compact(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.compaction ??= this.runCompaction().finally(() => {
      this.compaction = undefined;
    });
    return this.compaction;
  }

  /** Waits for pending work, folds the journal, and releases the databases. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearTimeout(this.timer);
      await this.tail;
      await this.compaction?.catch(() => undefined);
      await this.compact().catch((error: unknown) => this.settings.onWarning(`The chat history journal was not folded into ${this.catalogFile}: ${(error as Error).message} Nothing is lost; it is replayed on the next open.`));
      this.closed = true;
      await this.writer.close();
      this.releaseDatabases();
    })();
    return this.closing;
  }

  /** The conversation with the answer shown at each question; the other answers Retry made are its siblings. */
  private async record(id: string): Promise<ConversationRecord | undefined> {
    const conversation = this.catalog.conversation(id);
    if (!conversation) return undefined;
    const answers = this.catalog.answers(id);
    const turns: Turn[] = [];
    const siblings: Turn[] = [];
    for (const turn of (await this.shard(shardOf(id))).turns(id)) {
      const retried = answers.get(turn.index);
      if (!retried) turns.push(turn);
      else if ((turn.sibling ?? 0) === retried.shown) turns.push({ ...turn, sibling: retried.shown, siblingCount: retried.count });
      else siblings.push(turn);
    }
    return { conversation, turns, ...(siblings.length ? { siblings } : {}) };
  }

  /** Turns matching every term from every shard, most relevant first, then most recent conversation. */
  private async searchTurns(terms: readonly string[], limit: number): Promise<SearchHit[]> {
    if (limit <= 0) return [];
    const scored = [];
    for (let shard = 0; shard < SHARD_COUNT; shard++) scored.push(...this.searchShard(shard, await this.shard(shard), terms));
    const conversations = new Map(scored.map(({ conversationId }) => [conversationId, this.catalog.conversation(conversationId)]));
    const hits: SearchHit[] = [];
    const ranked = scored
      .filter((hit) => conversations.get(hit.conversationId))
      .sort((a, b) => b.score - a.score
        || conversations.get(b.conversationId)!.updated.localeCompare(conversations.get(a.conversationId)!.updated)
        || a.turnIndex - b.turnIndex);
    for (const hit of ranked.slice(0, limit)) {
      const text = (await this.shard(shardOf(hit.conversationId))).text(hit.conversationId, hit.turnIndex);
      if (!text) continue;
      hits.push({ conversationId: hit.conversationId, conversationTitle: conversations.get(hit.conversationId)!.title, turnIndex: hit.turnIndex, snippet: snippet(text.question, text.answer, terms) });
    }
    return hits;
  }

  /** A shard's matches; a damaged full-text index is rebuilt from the turns once, and the search goes on. */
  private searchShard(shard: number, db: TurnShard, terms: readonly string[]): ScoredTurn[] {
    try {
      return db.search(terms);
    } catch (error) {
      this.settings.onWarning(`The search index of ${path.join(this.dir, shardFile(shard))} could not be read (${(error as Error).message}); it was rebuilt from the turns.`);
      db.rebuildSearchIndex();
      this.shards.get(shard)!.dirty = true;
      return db.search(terms);
    }
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
  private async change(change: JournalChange): Promise<JournalEntry> {
    const entry = { v: JOURNAL_FORMAT, id: randomUUID(), ...change } as JournalEntry;
    await this.writer.append(entry);
    await this.catchUp();
    this.changesSinceCompaction++;
    this.scheduleCompaction();
    return entry;
  }

  private requireConversation(id: string): void {
    if (!this.catalog.conversation(id)) throw notFound(id);
  }

  /** Returns how many answers question `index` has. */
  private requireQuestion(id: string, index: number): number {
    const conversation = this.catalog.conversation(id);
    if (!conversation) throw notFound(id);
    if (!Number.isInteger(index) || index < 0 || index >= conversation.turnCount) {
      throw new WikiError('turn-not-found', `Conversation ${id} has no question ${index + 1}.`, 'Open the conversation again from the history.');
    }
    return this.catalog.answers(id).get(index)?.count ?? 1;
  }

  /** Checked after catching up with the journal, so a conversation another window made counts. */
  private requireFree(id: string): void {
    if (this.catalog.conversation(id)) throw new WikiError('conversation-exists', `There is already a conversation ${id}.`, 'Choose another id, or leave it out to get a new one.');
  }

  /**
   * Loads catalog.db into memory, forgets loaded shards, and points the journal reader after what
   * the catalog holds. Returns a message when the file was damaged and set aside.
   */
  private async load(): Promise<string | undefined> {
    // Identity first: if the file is replaced while we read it, the next gap reloads rather than skips.
    const identity = await fileIdentity(this.catalogFile);
    const image = await readIfExists(this.catalogFile);
    this.releaseDatabases();
    let salvage: string | undefined;
    try {
      this.catalog = Catalog.parse(image && Buffer.from(image).toString('utf8'), this.catalogFile);
    } catch (error) {
      // A newer format is refused untouched; anything else means the file is damaged.
      if (error instanceof WikiError || !image) throw error;
      salvage = await this.rebuildCatalog(identity, error);
    }
    this.catalogIdentity = salvage ? undefined : identity;
    // Without folded_segment (a new or salvaged catalog) every segment present is replayed.
    const folded = salvage ? undefined : this.catalog.foldedSegment();
    this.reader = new JournalReader(this.dir, folded === undefined ? (listSegments(this.dir)[0] ?? 1) : folded + 1);
    return salvage;
  }

  /** Sets a damaged catalog.json aside and rebuilds it from the shards: every conversation with turns comes back. */
  private async rebuildCatalog(identity: string | undefined, damage: unknown): Promise<string> {
    const aside = await this.setAside(this.catalogFile, identity, damage);
    this.catalog = Catalog.parse(undefined, this.catalogFile);
    const totals = [];
    for (let shard = 0; shard < SHARD_COUNT; shard++) totals.push(...(await this.shard(shard)).totals());
    this.catalog.adopt([], totals, true);
    this.unsaved = true;
    return `The chat history catalog ${this.catalogFile} could not be read (${(damage as Error).message}). It was moved to ${aside} and kept; ${totals.length} conversation(s) were rebuilt from the turn files, titled after their first question.`;
  }

  /** The shard, loaded on first use with the changes pending for it. */
  private async shard(shard: number): Promise<TurnShard> {
    const loaded = this.shards.get(shard);
    if (loaded) {
      this.applyPending(shard, loaded);
      return loaded.db;
    }
    const file = path.join(this.dir, shardFile(shard));
    const identity = await fileIdentity(file);
    const image = await readIfExists(file);
    let db: TurnShard;
    let salvaged = false;
    try {
      db = TurnShard.open(await this.loadSql(), image, { file, fullText: this.settings.fullTextSearch });
    } catch (error) {
      if (error instanceof WikiError || !image) throw error;
      db = await this.salvageShard(shard, file, image, identity, error);
      salvaged = true;
    }
    const opened = { db, folded: salvaged ? undefined : db.foldedSegment(), dirty: salvaged };
    this.shards.set(shard, opened);
    this.applyPending(shard, opened);
    return db;
  }

  /** Applies the changes kept for a shard that its file does not have yet. */
  private applyPending(shard: number, loaded: LoadedShard): void {
    const pending = this.pending.get(shard);
    if (!pending) return;
    this.pending.delete(shard);
    const effects = pending.filter(({ segment }) => loaded.folded === undefined || segment > loaded.folded);
    if (!effects.length) return;
    loaded.dirty = true;
    this.warnFailed(loaded.db.apply(effects.map(({ effect }) => effect)));
  }

  /** Sets a damaged shard aside, keeps its readable turns, and brings the catalog's totals in line. */
  private async salvageShard(shard: number, file: string, image: Uint8Array, identity: string | undefined, damage: unknown): Promise<TurnShard> {
    const aside = await this.setAside(file, identity, damage);
    const sql = await this.loadSql();
    const db = TurnShard.open(sql, undefined, { file, fullText: this.settings.fullTextSearch });
    const recovered = db.adoptRows(salvageRows(sql, image, 'turn', TURN_COLUMNS));
    const totals = new Map(db.totals().map((total) => [total.conversationId, total]));
    for (const id of this.catalog.ids()) {
      if (shardOf(id) !== shard) continue;
      this.catalog.setTotals(totals.get(id) ?? { conversationId: id, turnCount: 0, inputTokens: 0, outputTokens: 0, entries: [], firstQuestion: '', firstCreated: '' });
    }
    this.unsaved = true;
    this.settings.onWarning(`The chat history file ${file} could not be read (${(damage as Error).message}). It was moved to ${aside} and kept; ${recovered} turn(s) were recovered from it.`);
    return db;
  }

  /** Renames a damaged file aside, under the lock; returns where it went. */
  private async setAside(file: string, identity: string | undefined, damage: unknown): Promise<string> {
    const reason = (damage as Error).message;
    const aside = `${file}.corrupt-${this.settings.now().toISOString().replace(/[:.]/g, '-')}`;
    const attempt = await this.acquireLockWithin(SET_ASIDE_LOCK_WAIT_MS);
    if ('busy' in attempt) {
      throw new WikiError('store-busy', `The chat history file ${file} could not be read (${reason}), and another window is writing it (${attempt.busy}).`, 'Try again in a moment. Nothing was changed.');
    }
    try {
      // Another window may have replaced the damaged file with a good one since we read it.
      if ((await fileIdentity(file)) !== identity) throw new WikiError('store-busy', `The chat history file ${file} changed while it was being opened.`, 'Try again. Nothing was changed.');
      await fs.rename(file, aside);
      await syncDir(this.dir);
    } catch (error) {
      if (error instanceof WikiError) throw error;
      throw new WikiError('write-failed', `The chat history file ${file} could not be read (${reason}) and could not be moved aside: ${(error as Error).message}`, 'Move or rename that file yourself, then open the chat again. Nothing was deleted.');
    } finally {
      attempt.lock.release();
    }
    return aside;
  }

  /**
   * An earlier release kept everything in conversations.db. Under the lock, writes its turns to the
   * shards and its conversations to catalog.db (with the journal position it had), then renames it
   * to conversations.db.migrated. Returns a message when it was damaged and only partly read.
   */
  private async splitLegacyStore(): Promise<string | undefined> {
    const legacyFile = path.join(this.dir, LEGACY_DATABASE_FILE);
    const pending = async () => (await fileIdentity(legacyFile)) !== undefined && (await fileIdentity(this.catalogFile)) === undefined;
    if (!(await pending())) return undefined;
    const attempt = await this.acquireLockWithin(SET_ASIDE_LOCK_WAIT_MS);
    if ('busy' in attempt) throw new WikiError('store-busy', `The chat history ${legacyFile} is being converted by another window (${attempt.busy}).`, 'Try again in a moment. Nothing was changed.');
    const shards = new Map<number, TurnShard>();
    try {
      if (!(await pending())) return undefined; // another window split it meanwhile
      const sql = await this.loadSql();
      const rows = readLegacyStore(sql, await fs.readFile(legacyFile), legacyFile);
      const byShard = new Map<number, typeof rows.turns>();
      for (const row of rows.turns) {
        const shard = shardOf(String(row[0]));
        byShard.set(shard, [...(byShard.get(shard) ?? []), row]);
      }
      const totals = [];
      let keptTurns = 0;
      for (const [shard, turns] of byShard) {
        const db = TurnShard.open(sql, undefined, { file: path.join(this.dir, shardFile(shard)), fullText: this.settings.fullTextSearch });
        shards.set(shard, db);
        keptTurns += db.adoptRows(turns);
        if (rows.folded !== undefined) db.setFoldedSegment(rows.folded);
        totals.push(...db.totals());
      }
      const catalog = Catalog.parse(undefined, this.catalogFile);
      catalog.adopt(rows.conversations, totals, rows.damage !== undefined);
      if (rows.folded !== undefined) catalog.setFoldedSegment(rows.folded);
      // Shards first: a catalog on disk means the split is done.
      for (const [shard, db] of shards) await replaceFileAtomic(path.join(this.dir, shardFile(shard)), db.export(), () => attempt.lock.held());
      if (!(await replaceFileAtomic(this.catalogFile, catalog.export(), () => attempt.lock.held()))) {
        throw new WikiError('store-busy', `Another window took over the chat history's lock while ${legacyFile} was being converted.`, 'Try again. Nothing was changed.');
      }
      await fs.rename(legacyFile, `${legacyFile}.migrated`);
      await syncDir(this.dir);
      return rows.damage === undefined ? undefined
        : `The chat history database ${legacyFile} could not be read whole (${rows.damage}). It was kept as ${legacyFile}.migrated; ${rows.conversations.length} conversation(s) and ${keptTurns} turn(s) were recovered from it.`;
    } finally {
      for (const db of shards.values()) db.close();
      attempt.lock.release();
    }
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
        if ((await fileIdentity(this.catalogFile)) !== this.catalogIdentity) {
          // Another window compacted: catalog.db and the shards have the segments we missed.
          const salvage = await this.load();
          if (salvage) this.settings.onWarning(salvage);
          continue;
        }
        // Gone without a new catalog: something else removed them. Go on with what is left.
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

  /**
   * Applies entries to the catalog, and keeps their effects for the shards, applied when a shard is
   * next read or compacted: a change is acknowledged once it is in the journal and the catalog, so
   * SQLite's inserts stay off the durable path.
   */
  private apply(entries: readonly ReadEntry[]): void {
    if (!entries.length) return;
    const segmentOf = new Map(entries.map(({ segment, entry }) => [entry, segment]));
    const { effects, failed } = this.catalog.apply(entries.map(({ entry }) => entry));
    for (const { entry, error } of failed) this.warnSkipped(entry, error);
    for (const { entry, effect } of effects) {
      const shard = shardOf(effect.kind === 'turn' ? effect.turn.conversationId : effect.conversationId);
      appendTo(this.pending, shard, { segment: segmentOf.get(entry)!, effect });
    }
    this.appliedEntries += entries.length;
  }

  private warnSkipped(entry: JournalEntry, error: unknown): void {
    this.settings.onWarning(`Skipped a chat history change that could not be applied (${entry.op} ${entry.id}): ${(error as Error).message}`);
  }

  private warnFailed(failed: readonly { effect: ShardEffect; error: unknown }[]): void {
    for (const { effect, error } of failed) this.settings.onWarning(`Skipped a chat history change that could not be applied to the turns (${effect.kind}): ${(error as Error).message}`);
  }

  private releaseDatabases(): void {
    for (const { db } of this.shards.values()) db.close();
    this.shards.clear();
    this.pending.clear();
  }

  private scheduleCompaction(): void {
    clearTimeout(this.timer);
    if (this.closing) return;
    const soon = this.changesSinceCompaction >= this.settings.compactAfterChanges;
    this.timer = setTimeout(() => {
      this.compact().catch((error: unknown) => this.settings.onWarning(`Could not fold the chat history journal into ${this.catalogFile}: ${(error as Error).message} Nothing is lost; it stays in the journal.`));
    }, soon ? 0 : this.settings.compactAfterMs);
    this.timer.unref(); // never keeps a process alive
  }

  private async runCompaction(): Promise<boolean> {
    const shardsChanged = [...this.shards.values()].some(({ dirty }) => dirty);
    if (!this.unsaved && !shardsChanged && !(await this.journalHasChanges())) return false;
    const attempt = this.tryLock();
    if ('busy' in attempt) {
      this.scheduleCompaction(); // try again later; until then the journal holds everything
      return false;
    }
    const { lock } = attempt;
    const written: LoadedShard[] = [];
    try {
      const snapshot = await this.exclusive(async () => {
        const last = Math.max(this.reader.segment, ...listSegments(this.dir));
        await this.writer.use(last + 1);
        await this.catchUp(last);
        this.reader.skipTo(last + 1);
        for (const shard of [...this.pending.keys()]) await this.shard(shard);
        const shards: { file: string; image: Uint8Array }[] = [];
        for (const [shard, loaded] of this.shards) {
          if (!loaded.dirty) continue;
          loaded.db.setFoldedSegment(last);
          loaded.folded = last;
          loaded.dirty = false;
          written.push(loaded);
          shards.push({ file: path.join(this.dir, shardFile(shard)), image: loaded.db.export() });
        }
        this.catalog.setFoldedSegment(last);
        this.changesSinceCompaction = 0;
        return { catalog: this.catalog.export(), shards, last };
      });
      // Left by writers killed midway (a compaction, a lock being taken).
      for (const file of [this.catalogFile, ...snapshot.shards.map(({ file }) => file), path.join(this.dir, LOCK_FILE)]) await removeLeftoverTemps(file);
      // Each rename re-checks the lock: a window that took it over (we were paused past lockStaleMs)
      // may have written newer files. Shards first: the catalog's folded_segment vouches for them.
      for (const { file, image } of snapshot.shards) {
        if (!(await replaceFileAtomic(file, image, () => lock.held()))) return this.unwritten(written);
      }
      if (!(await replaceFileAtomic(this.catalogFile, snapshot.catalog, () => lock.held()))) return this.unwritten(written);
      this.catalogIdentity = await fileIdentity(this.catalogFile);
      this.unsaved = false;
      for (const segment of listSegments(this.dir)) {
        if (segment <= snapshot.last) await fs.rm(segmentPath(this.dir, segment), { force: true });
      }
      return true;
    } catch (error) {
      this.unwritten(written);
      throw error;
    } finally {
      lock.release();
    }
  }

  /** Shards whose write did not happen still hold changes their files lack. */
  private unwritten(shards: readonly LoadedShard[]): false {
    for (const shard of shards) shard.dirty = true;
    return false;
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

/** Only the fields of a turn the journal keeps: callers may pass richer objects. */
function storedTurn({ conversationId, question, answer, context, model, inputTokens, outputTokens, created, steps }: Omit<Turn, 'index'>): Omit<Turn, 'index'> {
  return { conversationId, question, answer, context, model, inputTokens, outputTokens, created, ...(steps?.length ? { steps } : {}) };
}

/** The record as conversation `id`, its answers numbered by question. */
function underId({ conversation, turns, siblings }: ConversationRecord, id: string): ConversationRecord {
  return {
    conversation: { ...conversation, id },
    turns: turns.map((turn, index) => ({ ...turn, conversationId: id, index })),
    ...(siblings?.length ? { siblings: siblings.map((turn) => ({ ...turn, conversationId: id })) } : {}),
  };
}

function appendTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
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
