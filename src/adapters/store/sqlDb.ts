import type { BindParams, Database, SqlValue, Statement } from 'sql.js';

/** A sql.js database with cached prepared statements: what the catalog and the turn shards share. */
export class SqlDb {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  query(sql: string, params: BindParams = []): SqlValue[][] {
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

  /** Compiles statements ahead of their first use, so that use is not the one that waits. */
  prepare(...sql: string[]): void {
    for (const text of sql) this.prepared(text);
  }

  run(sql: string, params: BindParams = []): void {
    this.query(sql, params);
  }

  /** Runs `work` in one transaction: all of it or nothing. */
  transaction<T>(work: () => T): T {
    this.db.exec('BEGIN');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Runs `work` in a savepoint inside a transaction; on failure it is undone whole and the error returned. */
  attempt(work: () => void): unknown {
    this.db.exec('SAVEPOINT entry');
    try {
      work();
      this.db.exec('RELEASE entry');
      return undefined;
    } catch (error) {
      this.db.exec('ROLLBACK TO entry; RELEASE entry');
      return error;
    }
  }

  meta(key: string): string | undefined {
    const value = this.query('SELECT value FROM meta WHERE key = ?', [key])[0]?.[0];
    return value === undefined || value === null ? undefined : String(value);
  }

  setMeta(key: string, value: string): void {
    this.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
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
}

/**
 * Reads the pages of `tables`, so damage shows at open, where the file can be set aside, not in a
 * later query. Table by table: a whole-file quick_check also maps every page and costs 20 times more.
 */
export function checkTables(db: Database, tables: readonly string[]): void {
  for (const name of tables) {
    const result = String(db.exec(`PRAGMA quick_check("${name.replace(/"/g, '""')}")`)[0]?.values[0]?.[0]);
    if (result !== 'ok') throw new Error(`table ${name}: ${result}`);
  }
}
