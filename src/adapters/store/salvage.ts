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
      // A file from before tags (schema 2 and older) has no tags or summary: none of its conversations had any.
      conversations: readableRows(db, `SELECT ${hasColumn(db, 'conversation', 'tags') ? CONVERSATION_COLUMNS : CONVERSATION_COLUMNS.replace('tags, prior_summary', "'[]', NULL")} FROM conversation`),
      // A file from before tool steps (schema 1) has no steps column: its turns had none.
      turns: readableRows(db, `SELECT ${hasColumn(db, 'turn', 'steps') ? TURN_COLUMNS : TURN_COLUMNS.replace('steps', "'[]'")} FROM turn`),
    };
  } finally {
    db.close();
  }
}

function hasColumn(db: Database, table: string, column: string): boolean {
  try {
    return db.exec(`PRAGMA table_info(${table})`)[0]?.values.some((row) => row[1] === column) ?? false;
  } catch {
    return false; // a damaged schema: read the columns every version has
  }
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
