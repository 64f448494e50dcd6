import type { SqlJsStatic, SqlValue } from 'sql.js';
import { WikiError } from '../../core/errors';
import { CONVERSATION_COLUMNS } from './catalogDb';
import { LEGACY_MIGRATIONS, migrate } from './migrations';
import { salvageRows } from './salvage';
import { checkTables } from './sqlDb';
import { TURN_COLUMNS } from './turnShard';

/** conversations.db: the single-file store of earlier releases, read once to split it into the catalog and shards. */
export const LEGACY_DATABASE_FILE = 'conversations.db';

export interface LegacyRows {
  conversations: SqlValue[][];
  turns: SqlValue[][];
  /** Journal segments up to this one are in the file; undefined when unknown (damaged). */
  folded?: number;
  /** Why the file could not be read whole: its readable rows were salvaged. */
  damage?: string;
}

/** Reads every row of a single-file store at any schema it had. A newer build's file is refused untouched (WikiError). */
export function readLegacyStore(sql: SqlJsStatic, image: Uint8Array, file: string): LegacyRows {
  let db;
  try {
    db = new sql.Database(image);
    migrate(db, file, LEGACY_MIGRATIONS);
    checkTables(db);
    const folded = db.exec(`SELECT value FROM meta WHERE key = 'folded_segment'`)[0]?.values[0]?.[0];
    return {
      conversations: db.exec(`SELECT ${CONVERSATION_COLUMNS} FROM conversation`)[0]?.values ?? [],
      turns: db.exec(`SELECT ${TURN_COLUMNS} FROM turn`)[0]?.values ?? [],
      ...(folded === undefined || folded === null ? {} : { folded: Number(folded) }),
    };
  } catch (error) {
    if (error instanceof WikiError) throw error;
    return {
      conversations: salvageRows(sql, image, 'conversation', CONVERSATION_COLUMNS),
      turns: salvageRows(sql, image, 'turn', TURN_COLUMNS),
      damage: (error as Error).message,
    };
  } finally {
    db?.close();
  }
}
