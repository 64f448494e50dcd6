import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { CONVERSATION_COLUMNS, TURN_COLUMNS } from './conversationDb';

/** Rows still readable in a damaged database image: each table is read until the first damaged page. */
export interface SalvagedRows {
  conversations: SqlValue[][];
  turns: SqlValue[][];
}

export function salvageRows(sql: SqlJsStatic, image: Uint8Array): SalvagedRows {
  let db: Database;
  try {
    db = new sql.Database(image);
  } catch {
    return { conversations: [], turns: [] };
  }
  try {
    // Lets SQLite read a truncated file up to its end instead of refusing it whole; nothing is written.
    db.exec('PRAGMA writable_schema = ON');
    return {
      // A file from before tags (schema 2 and older) has no tags or summary, one from before forks
      // (schema 3 and older) no lineage: none of its conversations had any.
      conversations: readableRows(db, `SELECT ${columnsOf(db, 'conversation', CONVERSATION_COLUMNS)} FROM conversation`),
      // A file from before tool steps (schema 1) has no steps column: its turns had none.
      turns: readableRows(db, `SELECT ${columnsOf(db, 'turn', TURN_COLUMNS)} FROM turn`),
    };
  } finally {
    db.close();
  }
}

/** What a column added by a later schema reads as in a file from before it. */
const ADDED_COLUMN_DEFAULTS: Readonly<Record<string, string>> = { tags: "'[]'", prior_summary: 'NULL', parent_conversation_id: 'NULL', forked_at_turn: 'NULL', title_source: 'NULL', steps: "'[]'" };

/** `columns` as a select list of `table` in this file: a column it lacks reads as its default. */
function columnsOf(db: Database, table: string, columns: string): string {
  let present: Set<unknown>;
  try {
    present = new Set(db.exec(`PRAGMA table_info(${table})`)[0]?.values.map((row) => row[1]) ?? []);
  } catch {
    present = new Set(); // a damaged schema: read the columns every version has
  }
  return columns.split(', ').map((column) => (column in ADDED_COLUMN_DEFAULTS && !present.has(column) ? ADDED_COLUMN_DEFAULTS[column] : column)).join(', ');
}

function readableRows(db: Database, sql: string): SqlValue[][] {
  const rows: SqlValue[][] = [];
  try {
    const statement = db.prepare(sql);
    try {
      while (statement.step()) rows.push(statement.get());
    } finally {
      statement.free();
    }
  } catch {
    // Damage (or a missing table) ends the read; the rows before it are kept.
  }
  return rows;
}
