import type { SqlJsStatic, SqlValue } from 'sql.js';
import { isTitleSource, PLACEHOLDER_TITLE_SOURCES, titleFromQuestion, type Conversation, type ConversationRecord, type PriorTurnsSummary, type SearchHit, type Turn } from '../../core/chat/conversation';
import type { JournalEntry } from './journal';
import { CATALOG_MIGRATIONS, migrate } from './migrations';
import { checkTables, SqlDb } from './sqlDb';

/**
 * The catalog (catalog.db): one row per conversation with its running totals, and the journal entry
 * of every turn. It is what the history list needs, so it stays small and opens at once; turns live
 * in shards (turnShard.ts) loaded on demand. Applying a journal entry here decides what it means
 * (whether a turn is kept, and at which index), and returns what its shard must do.
 */

/** What a journal entry does to the turns of one conversation, decided by the catalog. */
export type ShardEffect =
  | { kind: 'turn'; turn: Turn; entryId: string }
  | { kind: 'remove'; conversationId: string }
  | { kind: 'put'; conversationId: string; turns: Turn[] };

/** Column lists shared with salvage, which copies rows out of a damaged file. */
export const CONVERSATION_COLUMNS = 'id, title, created, updated, filed_page, tags, prior_summary, parent_conversation_id, forked_at_turn, title_source';
const CONVERSATION_VALUES = CONVERSATION_COLUMNS.split(',').map(() => '?').join(', ');
const CONVERSATION_SELECT = `SELECT ${CONVERSATION_COLUMNS}, turn_count, input_tokens, output_tokens FROM conversation`;
const FOLDED_KEY = 'folded_segment';
const PAGE_SIZE = 16_384;

/** Totals of a conversation's turns, as its shard holds them. */
export interface TurnTotals {
  conversationId: string;
  turnCount: number;
  inputTokens: number;
  outputTokens: number;
  /** Entry ids of its turns that came from the journal, with their index. */
  entries: { entryId: string; index: number }[];
  firstQuestion: string;
  firstCreated: string;
}

export class CatalogDb {
  /**
   * After a salvage, a journal turn may belong to a conversation whose row was lost with the damaged
   * file: it gets a conversation of its own instead of being dropped as deleted.
   */
  private adoptOrphanTurns = false;

  private constructor(private readonly sql: SqlDb) {}

  /** Opens a catalog image (undefined: a new one). Throws a WikiError for a newer build's, any other error for a damaged image. */
  static open(sql: SqlJsStatic, image: Uint8Array | undefined, file: string): CatalogDb {
    const db = new sql.Database(image);
    try {
      if (!image?.length) db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
      migrate(db, file, CATALOG_MIGRATIONS);
      checkTables(db);
      return new CatalogDb(new SqlDb(db));
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Journal segments up to this one are folded in; undefined when unknown (a new or salvaged catalog). */
  foldedSegment(): number | undefined {
    const value = this.sql.meta(FOLDED_KEY);
    return value === undefined ? undefined : Number(value);
  }

  setFoldedSegment(segment: number): void {
    this.sql.setMeta(FOLDED_KEY, String(segment));
  }

  /**
   * Applies entries in journal order, in one transaction. Returns the shard effects of those applied,
   * in order, and the entries that could not be applied (each skipped whole).
   */
  apply(entries: readonly JournalEntry[]): { effects: { entry: JournalEntry; effect: ShardEffect }[]; failed: { entry: JournalEntry; error: unknown }[] } {
    const effects: { entry: JournalEntry; effect: ShardEffect }[] = [];
    const failed: { entry: JournalEntry; error: unknown }[] = [];
    if (!entries.length) return { effects, failed };
    this.sql.transaction(() => {
      for (const entry of entries) {
        let effect: ShardEffect | undefined;
        const error = this.sql.attempt(() => {
          effect = this.applyOne(entry);
        });
        if (error) failed.push({ entry, error });
        else if (effect) effects.push({ entry, effect });
      }
    });
    return { effects, failed };
  }

  /** Each change is idempotent: the same entry may be replayed (see JournalWriter.append). */
  private applyOne(entry: JournalEntry): ShardEffect | undefined {
    switch (entry.op) {
      case 'create': {
        const { id, title, created } = entry.conversation;
        this.sql.run(`INSERT OR IGNORE INTO conversation (id, title, created, updated, title_source) VALUES (?, ?, ?, ?, 'question')`, [id, title, created, created]);
        return undefined;
      }
      case 'turn':
        return this.addTurn(entry.id, entry.turn);
      case 'rename':
        this.sql.run(`UPDATE conversation SET title = ?, title_source = 'user' WHERE id = ?`, [entry.title, entry.conversationId]);
        return undefined;
      case 'title':
        this.sql.run(`UPDATE conversation SET title = ?, title_source = ? WHERE id = ? AND title_source IN (${PLACEHOLDER_TITLE_SOURCES.map(() => '?').join(', ')})`, [entry.title, entry.source, entry.conversationId, ...PLACEHOLDER_TITLE_SOURCES]);
        return undefined;
      case 'filed':
        this.sql.run('UPDATE conversation SET filed_page = ? WHERE id = ?', [entry.slug, entry.conversationId]);
        return undefined;
      case 'tags':
        this.sql.run('UPDATE conversation SET tags = ? WHERE id = ?', [JSON.stringify(entry.tags), entry.conversationId]);
        return undefined;
      case 'summary':
        this.sql.run('UPDATE conversation SET prior_summary = ? WHERE id = ?', [JSON.stringify(entry.summary), entry.conversationId]);
        return undefined;
      case 'delete':
        this.remove(entry.conversationId);
        return { kind: 'remove', conversationId: entry.conversationId };
      case 'restore':
        return this.putRecord(entry.record);
    }
  }

  private addTurn(entryId: string, turn: Omit<Turn, 'index'>): ShardEffect | undefined {
    if (this.turnIndexOf(entryId) !== undefined) return undefined;
    if (!this.conversation(turn.conversationId)) {
      // Deleted meanwhile in another window: the turn is dropped, and appendTurn says so. After a
      // salvage, though, the conversation's row may have been lost with the damaged file.
      if (!this.adoptOrphanTurns) return undefined;
      this.sql.run('INSERT INTO conversation (id, title, created, updated) VALUES (?, ?, ?, ?)', [turn.conversationId, titleFromQuestion(turn.question), turn.created, turn.created]);
    }
    const index = Number(this.sql.query('SELECT turn_count FROM conversation WHERE id = ?', [turn.conversationId])[0][0]);
    this.sql.run('INSERT INTO turn_entry (entry_id, conversation_id, turn_index) VALUES (?, ?, ?)', [entryId, turn.conversationId, index]);
    this.sql.run(`UPDATE conversation SET updated = max(updated, ?), turn_count = turn_count + 1, input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?`,
      [turn.created, turn.inputTokens, turn.outputTokens, turn.conversationId]);
    return { kind: 'turn', turn: { ...turn, index }, entryId };
  }

  private remove(conversationId: string): void {
    this.sql.run('DELETE FROM turn_entry WHERE conversation_id = ?', [conversationId]);
    this.sql.run('DELETE FROM conversation WHERE id = ?', [conversationId]);
  }

  /** Puts a conversation back exactly as recorded, replacing any current version. */
  private putRecord({ conversation: c, turns }: ConversationRecord): ShardEffect {
    this.remove(c.id);
    this.insertConversation([
      c.id, c.title, c.created, c.updated, c.filedPage ?? null, JSON.stringify(c.tags ?? []), c.priorSummary ? JSON.stringify(c.priorSummary) : null,
      c.parentConversationId ?? null, c.forkedAtTurn ?? null, c.titleSource ?? null,
    ]);
    const indexed = turns.map((turn, index) => ({ ...turn, conversationId: c.id, index }));
    this.setTotals({ conversationId: c.id, turnCount: indexed.length, inputTokens: sum(indexed, 'inputTokens'), outputTokens: sum(indexed, 'outputTokens'), entries: [], firstQuestion: '', firstCreated: c.created });
    return { kind: 'put', conversationId: c.id, turns: indexed };
  }

  private insertConversation(row: readonly SqlValue[], orIgnore = false): void {
    this.sql.run(`INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO conversation (${CONVERSATION_COLUMNS}) VALUES (${CONVERSATION_VALUES})`, row as SqlValue[]);
  }

  /**
   * Builds the catalog from rows copied out of an older or damaged store, and the totals of the
   * turns its shards hold. A conversation whose row was lost gets one titled after its first question.
   */
  adopt(conversations: readonly SqlValue[][], totals: readonly TurnTotals[], orphanTurnsToo: boolean): void {
    this.adoptOrphanTurns ||= orphanTurnsToo;
    this.sql.transaction(() => {
      // OR IGNORE: a damaged row (a NULL where a value must be) is left out, not the whole salvage.
      for (const row of conversations) this.insertConversation(row, true);
      for (const total of totals) {
        this.sql.run('INSERT OR IGNORE INTO conversation (id, title, created, updated) VALUES (?, ?, ?, ?)', [total.conversationId, titleFromQuestion(total.firstQuestion), total.firstCreated, total.firstCreated]);
        this.setTotals(total);
      }
    });
  }

  /** Sets a conversation's totals and turn entries to what its shard holds. */
  setTotals(total: TurnTotals): void {
    this.sql.run('UPDATE conversation SET turn_count = ?, input_tokens = ?, output_tokens = ? WHERE id = ?', [total.turnCount, total.inputTokens, total.outputTokens, total.conversationId]);
    this.sql.run('DELETE FROM turn_entry WHERE conversation_id = ?', [total.conversationId]);
    for (const { entryId, index } of total.entries) {
      this.sql.run('INSERT OR REPLACE INTO turn_entry (entry_id, conversation_id, turn_index) VALUES (?, ?, ?)', [entryId, total.conversationId, index]);
    }
  }

  conversation(id: string): Conversation | undefined {
    const row = this.sql.query(`${CONVERSATION_SELECT} WHERE id = ?`, [id])[0];
    return row && toConversation(row);
  }

  /** Most recently updated first. */
  list(): Conversation[] {
    return this.sql.query(`${CONVERSATION_SELECT} ORDER BY updated DESC, id`).map(toConversation);
  }

  ids(): string[] {
    return this.sql.query('SELECT id FROM conversation').map(([id]) => String(id));
  }

  /** The index of the turn a journal entry added, if it was kept. */
  turnIndexOf(entryId: string): number | undefined {
    const row = this.sql.query('SELECT turn_index FROM turn_entry WHERE entry_id = ?', [entryId])[0];
    return row && Number(row[0]);
  }

  /** Conversations whose tags match every term (a term matches a tag it starts), most recent first. */
  searchTags(terms: readonly string[], limit: number): SearchHit[] {
    if (limit <= 0) return [];
    const rows = this.sql.query(`SELECT id, title, tags FROM conversation WHERE tags != '[]' ORDER BY updated DESC, id`);
    const hits: SearchHit[] = [];
    for (const [id, title, json] of rows) {
      const tags = JSON.parse(String(json)) as string[];
      if (!terms.every((term) => tags.some((tag) => tag.startsWith(term)))) continue;
      hits.push({ conversationId: String(id), conversationTitle: String(title), turnIndex: 0, snippet: `Tagged ${tags.join(', ')}`, tags });
      if (hits.length >= limit) break;
    }
    return hits;
  }

  export(): Uint8Array {
    return this.sql.export();
  }

  close(): void {
    this.sql.close();
  }
}

const sum = (turns: readonly Turn[], key: 'inputTokens' | 'outputTokens'): number => turns.reduce((total, turn) => total + turn[key], 0);

function toConversation([id, title, created, updated, filedPage, tags, priorSummary, parent, forkedAt, titleSource, turnCount, inputTokens, outputTokens]: SqlValue[]): Conversation {
  return {
    id: String(id), title: String(title), created: String(created), updated: String(updated),
    ...(filedPage === null ? {} : { filedPage: String(filedPage) }),
    turnCount: Number(turnCount), inputTokens: Number(inputTokens), outputTokens: Number(outputTokens),
    tags: JSON.parse(String(tags ?? '[]')) as string[],
    ...(priorSummary === null ? {} : { priorSummary: JSON.parse(String(priorSummary)) as PriorTurnsSummary }),
    ...(parent === null ? {} : { parentConversationId: String(parent), forkedAtTurn: Number(forkedAt) }),
    ...(isTitleSource(titleSource) ? { titleSource } : {}),
  };
}
