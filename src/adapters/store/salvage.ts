import type { Database, SqlJsStatic, SqlValue } from 'sql.js';

/**
 * Rows of one table still readable in a damaged (or old) database image, read until the first
 * damaged page. `columns` is a select list; a column the file's version lacks reads as its default.
 */
export function salvageRows(sql: SqlJsStatic, image: Uint8Array, table: string, columns: string): SqlValue[][] {
  let db: Database;
  try {
    db = new sql.Database(image);
  } catch {
    return [];
  }
  try {
    // Lets SQLite read a truncated file up to its end instead of refusing it whole; nothing is written.
    db.exec('PRAGMA writable_schema = ON');
    return readableRows(db, `SELECT ${columnsOf(db, table, columns)} FROM ${table}`);
  } finally {
    db.close();
  }
}

/**
 * What a column added by a later schema reads as in a file from before it: a single-file store from
 * before tags (schema 2 and older) has no tags or summary, one from before forks (3 and older) no
 * lineage, one from before tool steps (1) no steps; none had further answers (siblings). None of its conversations had any.
 */
const ADDED_COLUMN_DEFAULTS: Readonly<Record<string, string>> = { tags: "'[]'", prior_summary: 'NULL', parent_conversation_id: 'NULL', forked_at_turn: 'NULL', title_source: 'NULL', steps: "'[]'", sibling: '0' };

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
