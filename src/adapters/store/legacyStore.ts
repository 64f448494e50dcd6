import type { SqlJsStatic, SqlValue } from 'sql.js';
import { isTitleSource, type Conversation, type PriorTurnsSummary } from '../../core/chat/conversation';
import { WikiError } from '../../core/errors';
import { LEGACY_MIGRATIONS, migrate } from './migrations';
import { salvageRows } from './salvage';
import { checkTables } from './sqlDb';
import { TURN_COLUMNS } from './turnShard';

/** conversations.db: the single-file store of earlier releases, read once to split it into the catalog and shards. */
export const LEGACY_DATABASE_FILE = 'conversations.db';

const CONVERSATION_COLUMNS = 'id, title, created, updated, filed_page, tags, prior_summary, parent_conversation_id, forked_at_turn, title_source';

export interface LegacyRows {
  /** Without totals: the catalog counts the turns the shards get. */
  conversations: Conversation[];
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
    checkTables(db, ['meta', 'conversation', 'turn']);
    const folded = db.exec(`SELECT value FROM meta WHERE key = 'folded_segment'`)[0]?.values[0]?.[0];
    return {
      conversations: (db.exec(`SELECT ${CONVERSATION_COLUMNS} FROM conversation`)[0]?.values ?? []).flatMap(toConversation),
      // The single file had one answer per question: each is answer (sibling) 0.
      turns: db.exec(`SELECT ${TURN_COLUMNS.replace(/, sibling$/, ', 0')} FROM turn`)[0]?.values ?? [],
      ...(folded === undefined || folded === null ? {} : { folded: Number(folded) }),
    };
  } catch (error) {
    if (error instanceof WikiError) throw error;
    return {
      conversations: salvageRows(sql, image, 'conversation', CONVERSATION_COLUMNS).flatMap(toConversation),
      turns: salvageRows(sql, image, 'turn', TURN_COLUMNS),
      damage: (error as Error).message,
    };
  } finally {
    db?.close();
  }
}

/** A row as a conversation, or nothing when it reads back wrong (a damaged page yields garbage). */
function toConversation([id, title, created, updated, filedPage, tags, priorSummary, parent, forkedAt, titleSource]: SqlValue[]): Conversation[] {
  try {
    if (typeof id !== 'string' || typeof title !== 'string' || typeof created !== 'string' || typeof updated !== 'string') return [];
    return [{
      id, title, created, updated, turnCount: 0, inputTokens: 0, outputTokens: 0,
      ...(typeof filedPage === 'string' ? { filedPage } : {}),
      tags: JSON.parse(String(tags ?? '[]')) as string[],
      ...(typeof priorSummary === 'string' ? { priorSummary: JSON.parse(priorSummary) as PriorTurnsSummary } : {}),
      ...(typeof parent === 'string' ? { parentConversationId: parent, forkedAtTurn: Number(forkedAt) } : {}),
      ...(isTitleSource(titleSource) ? { titleSource } : {}),
    }];
  } catch {
    return [];
  }
}
