import type { SqlJsStatic, SqlValue } from 'sql.js';
import type { ToolStep, Turn } from '../../core/chat/conversation';
import { retriedOf, type ShardEffect, type TurnTotals } from './catalog';
import { migrate, SHARD_MIGRATIONS } from './migrations';
import { ftsMatch, ftsScore, likePattern, QUESTION_WEIGHT } from './search';
import { checkTables, SqlDb } from './sqlDb';

/**
 * One turn shard (turns-NN.db): the turns of the conversations whose id hashes to NN, and their
 * full-text index. Loaded when one of its conversations is opened or searched; it applies the
 * effects the catalog decided (catalogDb.ts), in journal order.
 */

export const SHARD_COUNT = 16;
export const TURN_COLUMNS = 'conversation_id, turn_index, question, answer, context, model, input_tokens, output_tokens, created, entry_id, steps, sibling';
const TURN_VALUES = TURN_COLUMNS.split(',').map(() => '?').join(', ');
const TURN_INSERT = `INSERT INTO turn (${TURN_COLUMNS}) VALUES (${TURN_VALUES})`;
const FTS_INSERT = 'INSERT INTO turn_fts (docid, question, answer) VALUES (last_insert_rowid(), ?, ?)';
const ENTRY_SELECT = 'SELECT 1 FROM turn WHERE entry_id = ?';
const FOLDED_KEY = 'folded_segment';
/** Turns (~2 KB each) waste half of a 4 KB page; 16 KB pages make the file ~40% smaller, and export and open as much faster. */
const PAGE_SIZE = 16_384;
/** Set while turns change without the full-text index (a build without FTS4); the index is rebuilt when FTS4 is back. */
const FTS_STALE_KEY = 'fts_stale';

/** The shard of a conversation: FNV-1a of its id, so every process agrees without asking anyone. */
export function shardOf(conversationId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < conversationId.length; i++) hash = Math.imul(hash ^ conversationId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % SHARD_COUNT;
}

export const shardFile = (shard: number): string => `turns-${String(shard).padStart(2, '0')}.db`;

/** A matching turn and its relevance, before the catalog adds titles and recency. */
export interface ScoredTurn {
  conversationId: string;
  turnIndex: number;
  score: number;
}

export class TurnShard {
  private constructor(private readonly sql: SqlDb, private readonly fullText: boolean) {
    sql.db.create_function('fts_score', (matchinfo: Uint8Array) => ftsScore(matchinfo));
    // A shard is loaded when its conversation is opened: the turn asked next is then appended at once.
    sql.prepare(ENTRY_SELECT, TURN_INSERT, ...(fullText ? [FTS_INSERT] : []));
  }

  /** Opens a shard image (undefined: a new one). Throws a WikiError for a newer build's, any other error for a damaged image. */
  static open(sql: SqlJsStatic, image: Uint8Array | undefined, options: { file: string; fullText: boolean }): TurnShard {
    const db = new sql.Database(image);
    try {
      if (!image?.length) db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
      migrate(db, options.file, SHARD_MIGRATIONS);
      // The full-text index is not read here: it is larger than the turns, and rebuilt from them if damaged (see search).
      checkTables(db, ['meta', 'turn']);
      return new TurnShard(new SqlDb(db), ensureSearchIndex(db, options.fullText));
    } catch (error) {
      db.close();
      throw error;
    }
  }

  foldedSegment(): number | undefined {
    const value = this.sql.meta(FOLDED_KEY);
    return value === undefined ? undefined : Number(value);
  }

  setFoldedSegment(segment: number): void {
    this.sql.setMeta(FOLDED_KEY, String(segment));
  }

  /** Applies effects in order, in one transaction; returns those that could not be applied (each skipped whole). */
  apply(effects: readonly ShardEffect[]): { effect: ShardEffect; error: unknown }[] {
    const failed: { effect: ShardEffect; error: unknown }[] = [];
    if (!effects.length) return failed;
    this.sql.transaction(() => {
      for (const effect of effects) {
        const error = this.sql.attempt(() => this.applyOne(effect));
        if (error) failed.push({ effect, error });
      }
    });
    return failed;
  }

  /** Idempotent, as journal entries are: a turn already added by its entry is not added again. */
  private applyOne(effect: ShardEffect): void {
    switch (effect.kind) {
      case 'turn':
        if (this.sql.query(ENTRY_SELECT, [effect.entryId]).length) return;
        return this.insert(turnRow(effect.turn, effect.entryId));
      case 'remove':
        return this.remove(effect.conversationId);
      case 'put':
        this.remove(effect.conversationId);
        for (const turn of effect.turns) this.insert(turnRow(turn, null));
        return;
    }
  }

  /**
   * Fills a new shard with rows copied out of an older or damaged file (TURN_COLUMNS order). A row
   * that reads back wrong (a damaged page yields garbage) is left out, and each conversation's turns
   * are numbered 0..n-1 again, so the next turn's index is its count. Returns how many were added.
   */
  adoptRows(rows: readonly SqlValue[][]): number {
    const sound = rows.filter(isSoundTurnRow).sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]) || Number(a[11]) - Number(b[11]));
    return this.sql.transaction(() => {
      let added = 0;
      let next = -1;
      sound.forEach((row, i) => {
        const previous = sound[i - 1];
        if (previous?.[0] !== row[0]) next = 0;
        else if (previous[1] !== row[1]) next++;
        this.sql.run(`INSERT OR IGNORE INTO turn (${TURN_COLUMNS}) VALUES (${TURN_VALUES})`, [row[0], next, ...row.slice(2)]);
        added += this.sql.db.getRowsModified();
      });
      if (this.fullText) this.sql.db.exec(`INSERT INTO turn_fts (turn_fts) VALUES ('rebuild')`);
      return added;
    });
  }

  private insert(row: SqlValue[]): void {
    this.sql.run(TURN_INSERT, row);
    if (this.fullText) this.sql.run(FTS_INSERT, [row[2], row[3]]);
  }

  private remove(conversationId: string): void {
    if (this.fullText) {
      // Before the rows go: an external-content FTS4 index reads their old text to forget it.
      this.sql.run('DELETE FROM turn_fts WHERE docid IN (SELECT rowid FROM turn WHERE conversation_id = ?)', [conversationId]);
    }
    this.sql.run('DELETE FROM turn WHERE conversation_id = ?', [conversationId]);
  }

  /** Every answer of the conversation: by question, then answer (sibling). */
  turns(conversationId: string): Turn[] {
    return this.sql.query(`SELECT ${TURN_COLUMNS} FROM turn WHERE conversation_id = ? ORDER BY turn_index, sibling`, [conversationId]).map(toTurn);
  }

  /** Per conversation: its turn count, token totals and journal entries, to rebuild a catalog from. */
  totals(): TurnTotals[] {
    const byConversation = new Map<string, TurnTotals & { answers: { index: number; sibling: number; entryId: string }[] }>();
    for (const [conversationId, index, sibling, question, created, inputTokens, outputTokens, entryId] of this.sql.query('SELECT conversation_id, turn_index, sibling, question, created, input_tokens, output_tokens, entry_id FROM turn ORDER BY conversation_id, turn_index, sibling')) {
      const id = String(conversationId);
      let total = byConversation.get(id);
      if (!total) byConversation.set(id, (total = { conversationId: id, turnCount: 0, inputTokens: 0, outputTokens: 0, entries: [], firstQuestion: String(question), firstCreated: String(created), answers: [] }));
      const entry = entryId === null ? '' : String(entryId);
      if (Number(sibling) === 0) {
        total.turnCount++;
        total.entries[Number(index)] = entry;
      }
      total.answers.push({ index: Number(index), sibling: Number(sibling), entryId: entry });
      total.inputTokens += Number(inputTokens);
      total.outputTokens += Number(outputTokens);
    }
    // Which answer was shown is the catalog's to know: rebuilt, the latest answer is shown.
    return [...byConversation.values()].map(({ answers, ...total }) => {
      const latest = new Map(answers.map(({ index, sibling }) => [index, sibling]));
      const retried = retriedOf(answers, latest);
      return retried ? { ...total, retried } : total;
    });
  }

  /** Rebuilds the full-text index from the turns (after the index was found damaged). */
  rebuildSearchIndex(): void {
    if (this.fullText) this.sql.db.exec(`INSERT INTO turn_fts (turn_fts) VALUES ('rebuild')`);
  }

  /** Turns matching every term, with their relevance (a question hit counts QUESTION_WEIGHT times). */
  search(terms: readonly string[]): ScoredTurn[] {
    const rows = this.fullText
      ? this.sql.query(`SELECT t.conversation_id, t.turn_index, fts_score(matchinfo(turn_fts, 'x')) FROM turn_fts JOIN turn t ON t.rowid = turn_fts.docid WHERE turn_fts MATCH ?`, [ftsMatch(terms)])
      : this.sql.query(`
          SELECT conversation_id, turn_index, ${terms.map(() => `${occurrencesSql('question')} * ${QUESTION_WEIGHT} + ${occurrencesSql('answer')}`).join(' + ')}
          FROM turn WHERE ${terms.map(() => `(question LIKE ? ESCAPE '\\' OR answer LIKE ? ESCAPE '\\')`).join(' AND ')}`,
        [...terms.flatMap((term) => [term, term, term, term]), ...terms.flatMap((term) => [likePattern(term), likePattern(term)])]);
    return rows.map(([conversationId, turnIndex, score]) => ({ conversationId: String(conversationId), turnIndex: Number(turnIndex), score: Number(score) }));
  }

  /** The question and answer of one turn, for a search snippet. */
  text(conversationId: string, turnIndex: number): { question: string; answer: string } | undefined {
    const row = this.sql.query('SELECT question, answer FROM turn WHERE conversation_id = ? AND turn_index = ?', [conversationId, turnIndex])[0];
    return row && { question: String(row[0]), answer: String(row[1]) };
  }

  export(): Uint8Array {
    return this.sql.export();
  }

  close(): void {
    this.sql.close();
  }
}

/** Whether a copied row has the types a turn needs, and JSON that parses where JSON is kept. */
function isSoundTurnRow([conversationId, index, question, answer, context, model, inputTokens, outputTokens, created, , steps, sibling]: readonly SqlValue[]): boolean {
  const texts = [conversationId, question, answer, model, created].every((value) => typeof value === 'string');
  const numbers = [index, inputTokens, outputTokens, sibling].every((value) => typeof value === 'number');
  return texts && numbers && parsesAs(context, 'object') && parsesAs(steps ?? '[]', 'array');
}

function parsesAs(value: SqlValue, shape: 'object' | 'array'): boolean {
  if (typeof value !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return shape === 'array' ? Array.isArray(parsed) : typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

function turnRow(turn: Turn, entryId: string | null): SqlValue[] {
  return [
    turn.conversationId, turn.index, turn.question, turn.answer, JSON.stringify(turn.context), turn.model,
    turn.inputTokens, turn.outputTokens, turn.created, entryId, JSON.stringify(turn.steps ?? []), turn.sibling ?? 0,
  ];
}

function toTurn([conversationId, index, question, answer, context, model, inputTokens, outputTokens, created, , steps, sibling]: SqlValue[]): Turn {
  const toolSteps = JSON.parse(String(steps ?? '[]')) as ToolStep[];
  return {
    conversationId: String(conversationId), index: Number(index), question: String(question), answer: String(answer),
    context: JSON.parse(String(context)) as Turn['context'], model: String(model),
    inputTokens: Number(inputTokens), outputTokens: Number(outputTokens), created: String(created),
    ...(toolSteps.length ? { steps: toolSteps } : {}),
    ...(Number(sibling) > 0 ? { sibling: Number(sibling) } : {}),
  };
}

/** Occurrences of a bound lowercase term in a column (two parameters: the term twice). SQLite's lower() folds ASCII only, like LIKE. */
const occurrencesSql = (column: string): string => `(length(${column}) - length(replace(lower(${column}), ?, ''))) / length(?)`;

/** Creates or refreshes the full-text index; returns whether full-text search is available. */
function ensureSearchIndex(db: SqlDb['db'], wanted: boolean): boolean {
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
function ftsAvailable(db: SqlDb['db']): boolean {
  try {
    db.exec('CREATE VIRTUAL TABLE temp.fts_probe USING fts4(x); DROP TABLE temp.fts_probe');
    return true;
  } catch {
    return false;
  }
}
