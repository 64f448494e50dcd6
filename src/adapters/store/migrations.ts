import type { Database } from 'sql.js';
import { WikiError } from '../../core/errors';

/**
 * The conversation store's schemas, each versioned by PRAGMA user_version. A database at version k
 * gets every migration above k, in order, each in its own transaction. To change a schema, append a
 * migration to its list; never edit one that has shipped.
 */

export interface Migration {
  version: number;
  up(db: Database): void;
}

/**
 * The single-file store (conversations.db) of releases up to 0.x: conversations and turns in one
 * database. Kept to read such a file once, when it is split into the catalog and the turn shards.
 */
export const LEGACY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: (db) => db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE conversation (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        filed_page TEXT
      );
      CREATE INDEX conversation_by_updated ON conversation (updated);
      CREATE TABLE turn (
        conversation_id TEXT NOT NULL REFERENCES conversation (id),
        turn_index INTEGER NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL,
        context TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        created TEXT NOT NULL,
        -- The journal entry that added the turn, so replaying that entry again adds nothing.
        entry_id TEXT UNIQUE,
        PRIMARY KEY (conversation_id, turn_index)
      );
    `),
  },
  {
    version: 2,
    // The tool steps of a turn (searches, pages and code read), as JSON.
    up: (db) => db.exec(`ALTER TABLE turn ADD COLUMN steps TEXT NOT NULL DEFAULT '[]';`),
  },
  {
    version: 3,
    // A conversation's tags (a sorted JSON list) and the model's summary of its earliest turns (JSON, or NULL).
    up: (db) => db.exec(`
      ALTER TABLE conversation ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE conversation ADD COLUMN prior_summary TEXT;
    `),
  },
  {
    version: 4,
    // A fork's lineage: the conversation it was forked from, and how many of its turns it started with.
    up: (db) => db.exec(`
      ALTER TABLE conversation ADD COLUMN parent_conversation_id TEXT;
      ALTER TABLE conversation ADD COLUMN forked_at_turn INTEGER;
    `),
  },
  {
    version: 5,
    // Where a title came from (question, fork, model, user). NULL for older rows: whether the user
    // renamed them is not known, so a proposed title never replaces theirs.
    up: (db) => db.exec(`ALTER TABLE conversation ADD COLUMN title_source TEXT;`),
  },
];

/** catalog.db: a conversation per row with its running totals; small, so the history opens at once. */
export const CATALOG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: (db) => db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE conversation (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        filed_page TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        prior_summary TEXT,
        parent_conversation_id TEXT,
        forked_at_turn INTEGER,
        title_source TEXT,
        turn_count INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX conversation_by_updated ON conversation (updated);
      -- The journal entry that added each turn, so replaying that entry again adds nothing.
      CREATE TABLE turn_entry (entry_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, turn_index INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX turn_entry_by_conversation ON turn_entry (conversation_id);
    `),
  },
];

/** turns-NN.db: the turns of the conversations whose id hashes to shard NN, with their full-text index. */
export const SHARD_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: (db) => db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE turn (
        conversation_id TEXT NOT NULL,
        turn_index INTEGER NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL,
        context TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        created TEXT NOT NULL,
        entry_id TEXT UNIQUE,
        steps TEXT NOT NULL DEFAULT '[]',
        -- Which answer to the question it is: Retry adds answers 1, 2, ... beside the first.
        sibling INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (conversation_id, turn_index, sibling)
      );
    `),
  },
];

export const schemaVersion = (db: Database): number => Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);

/** Brings `db` up to the newest known version. A database from a newer build is refused, untouched. */
export function migrate(db: Database, file: string, migrations: readonly Migration[]): void {
  const current = schemaVersion(db);
  const known = migrations.at(-1)?.version ?? 0;
  if (current > known) {
    throw new WikiError(
      'newer-database',
      `The chat history database ${file} was written by a newer version of Repo Wiki (schema ${current}; this version knows up to ${known}).`,
      'Update the Repo Wiki extension to open it. The file was left untouched.',
    );
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.exec('BEGIN');
    try {
      migration.up(db);
      db.exec(`PRAGMA user_version = ${migration.version}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}
