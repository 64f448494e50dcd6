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
      conversations: readableRows(db, `SELECT ${CONVERSATION_COLUMNS} FROM conversation`),
      turns: readableRows(db, `SELECT ${TURN_COLUMNS} FROM turn`),
    };
  } finally {
    db.close();
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
