import type { BindParams, Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { isTitleSource, PLACEHOLDER_TITLE_SOURCES, titleFromQuestion, type Conversation, type ConversationRecord, type PriorTurnsSummary, type SearchHit, type ToolStep, type Turn } from '../../core/chat/conversation';
import type { JournalEntry } from './journal';
import { migrate } from './migrations';
import { ftsMatch, ftsScore, likePattern, QUESTION_WEIGHT, snippet } from './search';

/** The in-memory conversation database (sql.js): journal entries applied in order, queries, export. */

/** Column lists shared with salvage, which copies rows out of a damaged file. */
export const CONVERSATION_COLUMNS = 'id, title, created, updated, filed_page, tags, prior_summary, parent_conversation_id, forked_at_turn, title_source';
export const TURN_COLUMNS = 'conversation_id, turn_index, question, answer, context, model, input_tokens, output_tokens, created, entry_id, steps';
const TURN_VALUES = TURN_COLUMNS.split(',').map(() => '?').join(', ');
const CONVERSATION_VALUES = CONVERSATION_COLUMNS.split(',').map(() => '?').join(', ');

/** Conversations with their turn count and running token totals. */
const conversationSelect = (where = '') => `
  SELECT ${CONVERSATION_COLUMNS.split(', ').map((column) => `c.${column}`).join(', ')}, count(t.turn_index), coalesce(sum(t.input_tokens), 0), coalesce(sum(t.output_tokens), 0)
  FROM conversation c LEFT JOIN turn t ON t.conversation_id = c.id ${where} GROUP BY c.id`;
const FOLDED_KEY = 'folded_segment';
const PAGE_SIZE = 16_384;
/** Set while turns change without the full-text index (a build without FTS4); the index is rebuilt when FTS4 is back. */
const FTS_STALE_KEY = 'fts_stale';

export class ConversationDb {
  private readonly statements = new Map<string, Statement>();
  /**
   * After a salvage, a journal turn may belong to a conversation whose row was lost with the damaged
   * file: it gets a conversation of its own instead of being dropped as deleted.
   */
  private adoptOrphanTurns = false;

  private constructor(private readonly db: Database, private readonly fullText: boolean) {
    db.create_function('fts_score', (matchinfo: Uint8Array) => ftsScore(matchinfo));
  }

  /**
   * Opens a database image (undefined: a new database), migrated and indexed. Throws a WikiError
   * for a database from a newer build, and any other error for a damaged image.
   */
  static open(sql: SqlJsStatic, image: Uint8Array | undefined, options: { file: string; fullText: boolean }): ConversationDb {
    const db = new sql.Database(image);
    try {
      // Turns (~2 KB each) waste half of a 4 KB page; 16 KB pages make the file ~40% smaller, and export and open as much faster.
      if (!image?.length) db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
      migrate(db, options.file);
      checkTables(db);
      return new ConversationDb(db, ensureSearchIndex(db, options.fullText));
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Journal segments up to this one are in the database; undefined when unknown. */
  foldedSegment(): number | undefined {
    const value = this.query('SELECT value FROM meta WHERE key = ?', [FOLDED_KEY])[0]?.[0];
    return value === undefined ? undefined : Number(value);
  }

  setFoldedSegment(segment: number): void {
    this.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [FOLDED_KEY, String(segment)]);
  }

  /** Applies entries in journal order, in one transaction; returns the entries that could not be applied. */
  apply(entries: readonly JournalEntry[]): { entry: JournalEntry; error: unknown }[] {
    if (!entries.length) return [];
    const failed: { entry: JournalEntry; error: unknown }[] = [];
    this.db.exec('BEGIN');
    try {
      for (const entry of entries) {
        // A savepoint per entry: a malformed entry is skipped whole, never half applied.
        this.db.exec('SAVEPOINT entry');
        try {
          this.applyOne(entry);
          this.db.exec('RELEASE entry');
        } catch (error) {
          this.db.exec('ROLLBACK TO entry; RELEASE entry');
          failed.push({ entry, error });
        }
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
    return failed;
  }

  /** Each change is idempotent: the same entry may be replayed (see JournalWriter.append). */
  private applyOne(entry: JournalEntry): void {
    switch (entry.op) {
      case 'create': {
        const { id, title, created } = entry.conversation;
        this.run(`INSERT OR IGNORE INTO conversation (id, title, created, updated, title_source) VALUES (?, ?, ?, ?, 'question')`, [id, title, created, created]);
        return;
      }
      case 'turn':
        return this.addTurn(entry.id, entry.turn);
      case 'rename':
        return this.run(`UPDATE conversation SET title = ?, title_source = 'user' WHERE id = ?`, [entry.title, entry.conversationId]);
      case 'title':
        return this.run(`UPDATE conversation SET title = ?, title_source = ? WHERE id = ? AND title_source IN (${PLACEHOLDER_TITLE_SOURCES.map(() => '?').join(', ')})`, [entry.title, entry.source, entry.conversationId, ...PLACEHOLDER_TITLE_SOURCES]);
      case 'filed':
        return this.run('UPDATE conversation SET filed_page = ? WHERE id = ?', [entry.slug, entry.conversationId]);
      case 'tags':
        return this.run('UPDATE conversation SET tags = ? WHERE id = ?', [JSON.stringify(entry.tags), entry.conversationId]);
      case 'summary':
        return this.run('UPDATE conversation SET prior_summary = ? WHERE id = ?', [JSON.stringify(entry.summary), entry.conversationId]);
      case 'delete':
        return this.remove(entry.conversationId);
      case 'restore':
        return this.putRecord(entry.record);
    }
  }

  private addTurn(entryId: string, turn: Omit<Turn, 'index'>): void {
    if (this.query('SELECT 1 FROM turn WHERE entry_id = ?', [entryId]).length) return;
    if (!this.conversation(turn.conversationId)) {
      // Deleted meanwhile in another window: the turn is dropped, and appendTurn says so. After a
      // salvage, though, the conversation's row may have been lost with the damaged file.
      if (!this.adoptOrphanTurns) return;
      this.run('INSERT INTO conversation (id, title, created, updated) VALUES (?, ?, ?, ?)', [turn.conversationId, titleFromQuestion(turn.question), turn.created, turn.created]);
    }
    const next = Number(this.query('SELECT coalesce(max(turn_index) + 1, 0) FROM turn WHERE conversation_id = ?', [turn.conversationId])[0][0]);
    this.insertTurn({ ...turn, index: next }, entryId);
    this.run('UPDATE conversation SET updated = max(updated, ?) WHERE id = ?', [turn.created, turn.conversationId]);
  }

  private insertTurn(turn: Turn, entryId: string | null): void {
    this.run(`INSERT INTO turn (${TURN_COLUMNS}) VALUES (${TURN_VALUES})`, [
      turn.conversationId, turn.index, turn.question, turn.answer, JSON.stringify(turn.context), turn.model,
      turn.inputTokens, turn.outputTokens, turn.created, entryId, JSON.stringify(turn.steps ?? []),
    ]);
    if (this.fullText) {
      this.run('INSERT INTO turn_fts (docid, question, answer) VALUES (last_insert_rowid(), ?, ?)', [turn.question, turn.answer]);
    }
  }

  private remove(conversationId: string): void {
    if (this.fullText) {
      // Before the rows go: an external-content FTS4 index reads their old text to forget it.
      this.run('DELETE FROM turn_fts WHERE docid IN (SELECT rowid FROM turn WHERE conversation_id = ?)', [conversationId]);
    }
    this.run('DELETE FROM turn WHERE conversation_id = ?', [conversationId]);
    this.run('DELETE FROM conversation WHERE id = ?', [conversationId]);
  }

  /** Puts a conversation back exactly as recorded, replacing any current version. */
  private putRecord({ conversation: c, turns }: ConversationRecord): void {
    this.remove(c.id);
    this.run(`INSERT INTO conversation (${CONVERSATION_COLUMNS}) VALUES (${CONVERSATION_VALUES})`, [
      c.id, c.title, c.created, c.updated, c.filedPage ?? null, JSON.stringify(c.tags ?? []), c.priorSummary ? JSON.stringify(c.priorSummary) : null,
      c.parentConversationId ?? null, c.forkedAtTurn ?? null, c.titleSource ?? null,
    ]);
    for (const turn of turns) this.insertTurn({ ...turn, conversationId: c.id }, null);
  }

  /**
   * Adds rows copied out of a damaged database, keeping what is already here. Turns whose
   * conversation row was lost get a conversation titled after their first question.
   */
  adoptRows(conversations: readonly SqlValue[][], turns: readonly SqlValue[][]): void {
    this.adoptOrphanTurns = true;
    this.db.exec('BEGIN');
    try {
      // OR IGNORE: a damaged row (a NULL where a value must be) is left out, not the whole salvage.
      for (const row of conversations) this.run(`INSERT OR IGNORE INTO conversation (${CONVERSATION_COLUMNS}) VALUES (${CONVERSATION_VALUES})`, row);
      for (const row of turns) {
        const [conversationId, , question, , , , , , created] = row;
        this.run('INSERT OR IGNORE INTO conversation (id, title, created, updated) VALUES (?, ?, ?, ?)', [conversationId, titleFromQuestion(String(question)), created, created]);
        this.run(`INSERT OR IGNORE INTO turn (${TURN_COLUMNS}) VALUES (${TURN_VALUES})`, row);
      }
      if (this.fullText) this.db.exec(`INSERT INTO turn_fts (turn_fts) VALUES ('rebuild')`);
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  conversation(id: string): Conversation | undefined {
    const row = this.query(conversationSelect('WHERE c.id = ?'), [id])[0];
    return row && toConversation(row);
  }

  /** Most recently updated first. */
  list(): Conversation[] {
    return this.query(`${conversationSelect()} ORDER BY c.updated DESC, c.id`).map(toConversation);
  }

  record(id: string): ConversationRecord | undefined {
    const conversation = this.conversation(id);
    if (!conversation) return undefined;
    const turns = this.query(`SELECT ${TURN_COLUMNS} FROM turn WHERE conversation_id = ? ORDER BY turn_index`, [id]).map(toTurn);
    return { conversation, turns };
  }

  /** The turn a journal entry added, if it was applied. */
  turnByEntry(entryId: string): Turn | undefined {
    const row = this.query(`SELECT ${TURN_COLUMNS} FROM turn WHERE entry_id = ?`, [entryId])[0];
    return row && toTurn(row);
  }

  /**
   * Conversations whose tags match every term (a term matches a tag it starts), most recent first,
   * then turns matching every term, most relevant first, then most recent conversation.
   */
  search(terms: readonly string[], limit: number): SearchHit[] {
    if (!terms.length || limit <= 0) return [];
    const tagged = this.searchTags(terms, limit);
    return [...tagged, ...this.searchTurns(terms, limit - tagged.length)];
  }

  private searchTags(terms: readonly string[], limit: number): SearchHit[] {
    const rows = this.query(`SELECT id, title, tags FROM conversation WHERE tags != '[]' ORDER BY updated DESC, id`);
    const hits: SearchHit[] = [];
    for (const [id, title, json] of rows) {
      const tags = JSON.parse(String(json)) as string[];
      if (!terms.every((term) => tags.some((tag) => tag.startsWith(term)))) continue;
      hits.push({ conversationId: String(id), conversationTitle: String(title), turnIndex: 0, snippet: `Tagged ${tags.join(', ')}`, tags });
      if (hits.length >= limit) break;
    }
    return hits;
  }

  private searchTurns(terms: readonly string[], limit: number): SearchHit[] {
    if (limit <= 0) return [];
    const rows = this.fullText
      ? this.query(`
          SELECT t.conversation_id, t.turn_index, c.title, t.question, t.answer
          FROM turn_fts JOIN turn t ON t.rowid = turn_fts.docid JOIN conversation c ON c.id = t.conversation_id
          WHERE turn_fts MATCH ?
          ORDER BY fts_score(matchinfo(turn_fts, 'x')) DESC, c.updated DESC, t.turn_index
          LIMIT ?`, [ftsMatch(terms), limit])
      : this.query(`
          SELECT t.conversation_id, t.turn_index, c.title, t.question, t.answer
          FROM turn t JOIN conversation c ON c.id = t.conversation_id
          WHERE ${terms.map(() => `(t.question LIKE ? ESCAPE '\\' OR t.answer LIKE ? ESCAPE '\\')`).join(' AND ')}
          ORDER BY ${terms.map(() => `${occurrencesSql('t.question')} * ${QUESTION_WEIGHT} + ${occurrencesSql('t.answer')}`).join(' + ')} DESC,
            c.updated DESC, t.turn_index
          LIMIT ?`, [...terms.flatMap((term) => [likePattern(term), likePattern(term)]), ...terms.flatMap((term) => [term, term, term, term]), limit]);
    return rows.map(([conversationId, turnIndex, title, question, answer]) => ({
      conversationId: String(conversationId),
      conversationTitle: String(title),
      turnIndex: Number(turnIndex),
      snippet: snippet(String(question), String(answer), terms),
    }));
  }

  /** The whole database as a SQLite file image. */
  export(): Uint8Array {
    return this.db.export();
  }

  close(): void {
    for (const statement of this.statements.values()) statement.free();
    this.statements.clear();
    this.db.close();
  }

  private prepared(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private query(sql: string, params: BindParams = []): SqlValue[][] {
    const statement = this.prepared(sql);
    try {
      statement.bind(params);
      const rows: SqlValue[][] = [];
      while (statement.step()) rows.push(statement.get());
      return rows;
    } finally {
      statement.reset();
    }
  }

  private run(sql: string, params: BindParams = []): void {
    this.query(sql, params);
  }
}

/**
 * Reads every table's pages, so damage shows at open, where the file can be set aside, not in a later
 * query. Table by table: a whole-file quick_check also maps every page and costs 20 times more.
 */
function checkTables(db: Database): void {
  const tables = db.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'`)[0]?.values ?? [];
  for (const [name] of tables) {
    const result = String(db.exec(`PRAGMA quick_check("${String(name).replace(/"/g, '""')}")`)[0]?.values[0]?.[0]);
    if (result !== 'ok') throw new Error(`table ${String(name)}: ${result}`);
  }
}

/** Occurrences of a bound lowercase term in a column (two parameters: the term twice). SQLite's lower() folds ASCII only, like LIKE. */
const occurrencesSql = (column: string): string => `(length(${column}) - length(replace(lower(${column}), ?, ''))) / length(?)`;

/** Creates or refreshes the full-text index; returns whether full-text search is available. */
function ensureSearchIndex(db: Database, wanted: boolean): boolean {
  const exists = db.exec(`SELECT 1 FROM sqlite_master WHERE name = 'turn_fts'`).length > 0;
  if (!wanted || !ftsAvailable(db)) {
    if (exists) db.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${FTS_STALE_KEY}', '1')`);
    return false;
  }
  // External content: the index refers to turn rows by rowid instead of keeping a second copy of the text.
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS turn_fts USING fts4(content="turn", question, answer, tokenize=unicode61)`);
  if (!exists || db.exec(`SELECT 1 FROM meta WHERE key = '${FTS_STALE_KEY}'`).length) {
    db.exec(`INSERT INTO turn_fts (turn_fts) VALUES ('rebuild'); DELETE FROM meta WHERE key = '${FTS_STALE_KEY}'`);
  }
  return true;
}

/** Whether this sql.js build has FTS4 (1.16's does; FTS5 is missing, so FTS4 is what we use). */
function ftsAvailable(db: Database): boolean {
  try {
    db.exec('CREATE VIRTUAL TABLE temp.fts_probe USING fts4(x); DROP TABLE temp.fts_probe');
    return true;
  } catch {
    return false;
  }
}

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

function toTurn([conversationId, index, question, answer, context, model, inputTokens, outputTokens, created, , steps]: SqlValue[]): Turn {
  const toolSteps = JSON.parse(String(steps ?? '[]')) as ToolStep[];
  return {
    conversationId: String(conversationId), index: Number(index), question: String(question), answer: String(answer),
    context: JSON.parse(String(context)) as Turn['context'], model: String(model),
    inputTokens: Number(inputTokens), outputTokens: Number(outputTokens), created: String(created),
    ...(toolSteps.length ? { steps: toolSteps } : {}),
  };
}
