import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { Turn } from '../../../../src/core/chat/conversation';
import { WikiError } from '../../../../src/core/errors';
import { listSegments, segmentPath } from '../../../../src/adapters/store/journal';
import { LEGACY_DATABASE_FILE } from '../../../../src/adapters/store/legacyStore';
import { LEGACY_MIGRATIONS, migrate, SHARD_MIGRATIONS, schemaVersion } from '../../../../src/adapters/store/migrations';
import { CATALOG_FILE, LOCK_FILE, openConversationStore, type ConversationStoreOptions, type SqlJsConversationStore } from '../../../../src/adapters/store/sqlJsConversationStore';
import { shardFile, shardOf } from '../../../../src/adapters/store/turnShard';

const dirs: string[] = [];
const stores: SqlJsConversationStore[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-conversations-'));
  dirs.push(dir);
  return dir;
}

/** Warnings raised after open; a test that expects some takes them out. */
const laterWarnings: string[] = [];

let clock = Date.parse('2026-01-22T10:00:00Z');
const tick = () => new Date((clock += 1000)).toISOString();

/** Compaction only when a test asks for it (or on close). */
async function open(dir: string, options: ConversationStoreOptions = {}) {
  const opened = await openConversationStore(dir, {
    compactAfterMs: 60_000, compactAfterChanges: 10_000, now: () => new Date(tick()), onWarning: (m) => laterWarnings.push(m), ...options,
  });
  stores.push(opened.store);
  return opened;
}

const openStore = async (dir: string, options: ConversationStoreOptions = {}) => (await open(dir, options)).store;

function turn(conversationId: string, question: string, answer = `An answer to: ${question}`): Omit<Turn, 'index'> {
  return {
    conversationId, question, answer, model: 'claude-test', inputTokens: 12, outputTokens: 34, created: tick(),
    context: { pages: [{ slug: 'request-pipeline', title: 'Request pipeline', score: 0.8, stale: false }], offline: false },
  };
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<WikiError> {
  const error = await promise.then(() => assert.fail(`expected a ${code} error`), (e: unknown) => e);
  assert.ok(error instanceof WikiError, String(error));
  assert.equal(error.code, code);
  return error;
}

const files = (dir: string) => fs.readdirSync(dir).sort();
const dbFile = (dir: string) => path.join(dir, CATALOG_FILE);
const legacyFile = (dir: string) => path.join(dir, LEGACY_DATABASE_FILE);
const shardPath = (dir: string, conversationId: string) => path.join(dir, shardFile(shardOf(conversationId)));

async function sqlJs() {
  return initSqlJs({ locateFile: () => require.resolve('sql.js/dist/sql-wasm.wasm') });
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(laterWarnings.splice(0), []);
});

describe('conversation store (sql.js + journal)', () => {
  it('creates conversations and lists them most recently updated first', async () => {
    const store = await openStore(tempDir());
    const first = await store.create('First');
    const second = await store.create('Second');
    await store.appendTurn(turn(first.id, 'A later question'));
    const list = await store.list();
    assert.deepEqual(list.map((c) => [c.title, c.turnCount]), [['First', 1], ['Second', 0]]);
    assert.notEqual(first.id, second.id);
    assert.match(first.id, /^[0-9a-f-]{36}$/);
  });

  it('numbers turns per conversation and keeps every field', async () => {
    const store = await openStore(tempDir());
    const a = await store.create('A');
    const b = await store.create('B');
    const sent = turn(a.id, 'q0');
    assert.deepEqual(await store.appendTurn(sent), { ...sent, index: 0 });
    assert.equal((await store.appendTurn(turn(b.id, 'b0'))).index, 0);
    assert.equal((await store.appendTurn(turn(a.id, 'q1'))).index, 1);
    assert.equal((await store.appendTurn(turn(a.id, 'q2'))).index, 2);
    const record = (await store.get(a.id))!;
    assert.deepEqual(record.turns.map((t) => [t.index, t.question]), [[0, 'q0'], [1, 'q1'], [2, 'q2']]);
    assert.deepEqual(record.turns[0], { ...sent, index: 0 });
    assert.equal(record.conversation.updated, record.turns[2].created);
    assert.deepEqual([record.conversation.inputTokens, record.conversation.outputTokens], [36, 102], 'running token totals');
    assert.deepEqual((await store.list()).map((c) => [c.title, c.turnCount, c.inputTokens]), [['A', 3, 36], ['B', 1, 12]]);
    assert.equal(await store.get('no-such-id'), undefined);
  });

  it('keeps a turn\'s tool steps across reopen and compaction', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('With tools');
    const steps = [
      { tool: 'read_code', input: { citation: 'src/a.ts:Foo' }, label: 'Read src/a.ts:Foo', ok: true, summary: 'lines 1–9', output: '  1 | export class Foo {}' },
      { tool: 'read_code', input: { citation: '../etc/passwd' }, label: 'Read ../etc/passwd', ok: false, summary: 'refused: outside the workspace', output: 'refused' },
    ];
    const sent = { ...turn(c.id, 'q'), steps };
    await store.appendTurn(sent);
    await store.appendTurn(turn(c.id, 'no tools'));
    await store.close();
    const reopened = await openStore(dir); // compacted on close: read from the database file
    const [first, second] = (await reopened.get(c.id))!.turns;
    assert.deepEqual(first, { ...sent, index: 0 });
    assert.equal(second.steps, undefined);
  });

  it('renames and records the filed page', async () => {
    const store = await openStore(tempDir());
    const c = await store.create('Old title');
    await store.rename(c.id, 'New title');
    await store.setFiledPage(c.id, 'conversations/routing');
    const { conversation } = (await store.get(c.id))!;
    assert.equal(conversation.title, 'New title');
    assert.equal(conversation.filedPage, 'conversations/routing');
  });

  it('delete returns the whole record and restore puts it back with the same id, turns and dates', async () => {
    const store = await openStore(tempDir());
    const c = await store.create('Keep me');
    await store.appendTurn(turn(c.id, 'How are requests routed?'));
    await store.appendTurn(turn(c.id, 'And errors?'));
    await store.setFiledPage(c.id, 'routing');
    const before = (await store.get(c.id))!;
    const deleted = await store.delete(c.id);
    assert.deepEqual(deleted, before);
    assert.equal(await store.get(c.id), undefined);
    assert.deepEqual(await store.search('routed'), []);
    assert.equal(await store.delete(c.id), undefined);
    await store.restore(deleted!);
    assert.deepEqual(await store.get(c.id), before);
    assert.equal((await store.search('routed')).length, 1);
  });

  it('refuses turns and renames for a conversation that does not exist, writing nothing', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await rejectsWith(store.appendTurn(turn('missing', 'q')), 'conversation-not-found');
    await rejectsWith(store.rename('missing', 't'), 'conversation-not-found');
    await rejectsWith(store.setFiledPage('missing', 's'), 'conversation-not-found');
    assert.equal(fs.statSync(segmentPath(dir, 1)).size, 0);
  });

  it('keeps everything across reopen: from the journal alone, and after compaction', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Durable');
    await store.appendTurn(turn(c.id, 'q0'));
    const copy = await openStore(dir); // reads the journal only: nothing compacted yet
    assert.deepEqual(await copy.get(c.id), await store.get(c.id));
    assert.equal(fs.existsSync(dbFile(dir)), false);

    assert.equal(await store.compact(), true);
    assert.deepEqual(files(dir), [CATALOG_FILE, 'conversations.journal-2.jsonl', shardFile(shardOf(c.id))], 'the catalog and the one shard that changed');
    await store.appendTurn(turn(c.id, 'q1'));
    await store.close();
    await copy.close();
    const reopened = await openStore(dir);
    assert.deepEqual((await reopened.get(c.id))!.turns.map((t) => t.question), ['q0', 'q1']);
  });

  it('a turn acknowledged on a loaded shard, before SQLite stores it, is seen by the next search, get and compaction', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Deferred');
    await store.appendTurn(turn(c.id, 'first question'));
    assert.equal((await store.get(c.id))!.turns.length, 1); // its shard is loaded now
    await store.appendTurn(turn(c.id, 'where is the zebracorn configured'));
    assert.deepEqual((await store.search('zebracorn')).map((hit) => [hit.conversationId, hit.turnIndex]), [[c.id, 1]]);
    await store.appendTurn(turn(c.id, 'third question'));
    assert.deepEqual((await store.get(c.id))!.turns.map((t) => t.question), ['first question', 'where is the zebracorn configured', 'third question']);
    await store.appendTurn(turn(c.id, 'fourth question'));
    assert.equal(await store.compact(), true);
    fs.rmSync(segmentPath(dir, 1), { force: true }); // folded: the shard file alone must have it
    const reopened = await openStore(dir);
    assert.deepEqual((await reopened.get(c.id))!.turns.map((t) => t.index), [0, 1, 2, 3]);
  });

  it('compacts on its own after the idle delay', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { compactAfterMs: 20 });
    const c = await store.create('Idle');
    await store.appendTurn(turn(c.id, 'q0'));
    for (let waited = 0; !fs.existsSync(dbFile(dir)) && waited < 2000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    assert.ok(fs.existsSync(dbFile(dir)), 'catalog.db was written');
    assert.equal((await store.get(c.id))!.turns.length, 1);
  });

  it('does not load sql.js until a store is opened', () => {
    const modulePath = require.resolve('../../../../src/adapters/store/sqlJsConversationStore');
    const loaded = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(modulePath)}); console.log(Object.keys(require.cache).some((m) => m.includes('sql.js')))`], { encoding: 'utf8' });
    assert.equal(loaded.trim(), 'false');
  });
});

for (const fullTextSearch of [true, false]) {
  describe(`conversation search (${fullTextSearch ? 'FTS4' : 'LIKE fallback'})`, () => {
    async function seeded() {
      const store = await openStore(tempDir(), { fullTextSearch });
      const routing = await store.create('Routing');
      await store.appendTurn(turn(routing.id, 'How does the router pick a handler?', 'By method and path, after authentication.'));
      await store.appendTurn(turn(routing.id, 'What about errors?', 'Handlers throw HttpError; the router is not involved.'));
      const caching = await store.create('Caching');
      await store.appendTurn(turn(caching.id, 'Where is the cache?', `${'Padding words about other topics. '.repeat(8)}The cache sits in front of the router for GET requests. ${'More padding text follows here. '.repeat(8)}`));
      return { store, routing, caching };
    }

    it('finds turns by words in questions or answers, question hits first', async () => {
      const { store, routing, caching } = await seeded();
      const hits = await store.search('router');
      assert.deepEqual(hits.map((h) => [h.conversationId, h.turnIndex]), [[routing.id, 0], [caching.id, 0], [routing.id, 1]]);
      assert.equal(hits[0].conversationTitle, 'Routing');
      assert.equal(hits[0].snippet, 'How does the router pick a handler?');
    });

    it('needs every word, matches word starts, ignores case, and honours the limit', async () => {
      const { store, routing } = await seeded();
      assert.deepEqual((await store.search('ROUTER authent')).map((h) => [h.conversationId, h.turnIndex]), [[routing.id, 0]]);
      assert.equal((await store.search('router', 2)).length, 2);
      assert.deepEqual(await store.search('router zebra'), []);
    });

    it('treats query syntax as plain words and returns nothing for an empty query', async () => {
      const { store } = await seeded();
      for (const query of ['"router', 'router*', 'NOT router', 'router OR', '(router', 'router -errors', 'NEAR/2 router', '100%', 'a_b', "it's"]) {
        await store.search(query); // must not throw
      }
      assert.ok((await store.search('"router" AND')).length >= 1, 'AND is a plain word');
      assert.deepEqual(await store.search(''), []);
      assert.deepEqual(await store.search('   '), []);
      assert.deepEqual(await store.search('" * -'), []);
    });

    it('gives a plain-text snippet of about 120 characters around the match', async () => {
      const { store } = await seeded();
      const hit = (await store.search('GET'))[0];
      assert.ok(hit.snippet.length <= 122, hit.snippet);
      assert.match(hit.snippet, /^…[^\n]* GET requests\. [^\n]*…$/);
    });
  });
}

describe('conversation search index', () => {
  it('folds accents with FTS4', async () => {
    const store = await openStore(tempDir());
    const c = await store.create('Café');
    await store.appendTurn(turn(c.id, 'Is the café open?'));
    assert.equal((await store.search('cafe')).length, 1);
  });

  it('rebuilds the full-text index for turns added while it was unavailable', async () => {
    const dir = tempDir();
    const withFts = await openStore(dir);
    const c = await withFts.create('Index');
    await withFts.appendTurn(turn(c.id, 'indexed question'));
    await withFts.close();
    const withoutFts = await openStore(dir, { fullTextSearch: false });
    await withoutFts.appendTurn(turn(c.id, 'unindexed question'));
    await withoutFts.close();
    const again = await openStore(dir);
    assert.equal((await again.search('unindexed')).length, 1);
    assert.equal((await again.search('question')).length, 2);
  });
});

describe('conversation store: answers Retry keeps beside each other (siblings)', () => {
  it('keeps both answers, shows the new one, switches between them, and the totals count both', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Siblings');
    await store.appendTurn(turn(c.id, 'q0', 'first answer'));
    const retried = await store.appendSibling(turn(c.id, 'q0', 'second answer'), 0);
    assert.deepEqual([retried.index, retried.sibling, retried.siblingCount], [0, 1, 2]);
    let record = (await store.get(c.id))!;
    assert.deepEqual(record.turns.map((t) => [t.answer, t.sibling, t.siblingCount]), [['second answer', 1, 2]]);
    assert.deepEqual(record.siblings?.map((t) => [t.index, t.answer, t.sibling ?? 0]), [[0, 'first answer', 0]]);
    assert.deepEqual([record.conversation.turnCount, record.conversation.inputTokens], [1, 24], 'one question; both answers cost tokens');

    await store.showSibling(c.id, 0, 0);
    record = (await store.get(c.id))!;
    assert.deepEqual(record.turns.map((t) => [t.answer, t.sibling, t.siblingCount]), [['first answer', 0, 2]]);
    await store.appendTurn(turn(c.id, 'q1'));
    await rejectsWith(store.showSibling(c.id, 0, 5), 'turn-not-found');
    await rejectsWith(store.appendSibling(turn(c.id, 'q9'), 9), 'turn-not-found');

    const other = await openStore(dir); // another window replays the journal
    assert.deepEqual(await other.get(c.id), await store.get(c.id));
    await store.close();
    const reopened = await openStore(dir); // and after compaction
    const after = (await reopened.get(c.id))!;
    assert.deepEqual(after.turns.map((t) => [t.index, t.answer, t.sibling ?? 0]), [[0, 'first answer', 0], [1, 'An answer to: q1', 0]]);
    assert.deepEqual(after.siblings?.map((t) => t.answer), ['second answer']);
  });

  it('a deleted conversation with siblings comes back whole on undo, and a rebuilt catalog finds them', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Undo');
    await store.appendTurn(turn(c.id, 'q0', 'a'));
    await store.appendSibling(turn(c.id, 'q0', 'b'), 0);
    await store.appendSibling(turn(c.id, 'q0', 'c'), 0);
    await store.showSibling(c.id, 0, 1);
    const before = (await store.get(c.id))!;
    const deleted = (await store.delete(c.id))!;
    await store.restore(deleted);
    assert.deepEqual(await store.get(c.id), before);
    await store.close();

    fs.writeFileSync(dbFile(dir), '{ damaged');
    const { store: rebuilt, warnings } = await open(dir);
    assert.match(warnings[0], /rebuilt from the turn files/);
    const record = (await rebuilt.get(c.id))!;
    assert.deepEqual([record.turns[0].answer, record.turns[0].siblingCount], ['c', 3], 'rebuilt, the latest answer is shown');
    assert.deepEqual(record.siblings!.map((t) => t.answer).sort(), ['a', 'b']);
  });
});

describe('conversation store migrations', () => {
  it('splits a version-0 single-file store into a catalog and shards', async () => {
    const dir = tempDir();
    const SQL = await sqlJs();
    const empty = new SQL.Database();
    empty.exec('CREATE TABLE leftover (x)'); // a file from before the first migration
    fs.writeFileSync(legacyFile(dir), empty.export());
    empty.close();
    const store = await openStore(dir);
    const c = await store.create('Migrated');
    await store.close();
    const catalog = JSON.parse(fs.readFileSync(dbFile(dir), 'utf8'));
    assert.equal(catalog.format, 1);
    assert.deepEqual(catalog.conversations.map((x: { title: string }) => x.title), ['Migrated']);
    assert.equal(c.title, 'Migrated');
    assert.ok(fs.existsSync(`${legacyFile(dir)}.migrated`), 'the old file is kept, renamed');
    assert.equal(fs.existsSync(legacyFile(dir)), false);
  });

  it('runs the migrations newer than the file, in order, keeping the data', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Old');
    await store.appendTurn(turn(c.id, 'kept'));
    await store.close();
    const SQL = await sqlJs();
    const db = new SQL.Database(fs.readFileSync(shardPath(dir, c.id)));
    const current = schemaVersion(db);
    const ran: number[] = [];
    migrate(db, shardPath(dir, c.id), [
      ...SHARD_MIGRATIONS,
      { version: current + 1, up: (d) => { ran.push(current + 1); d.exec('ALTER TABLE turn ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0'); } },
      { version: current + 2, up: (d) => { ran.push(current + 2); d.exec('UPDATE turn SET pinned = 1'); } },
    ]);
    assert.deepEqual(ran, [current + 1, current + 2]);
    assert.equal(schemaVersion(db), current + 2);
    assert.deepEqual(db.exec('SELECT question, pinned FROM turn')[0].values, [['kept', 1]]);
    db.close();
  });

  it('splits a schema-1 single file (before tool steps): its turns load with no steps, and new turns keep theirs', async () => {
    const dir = tempDir();
    const SQL = await sqlJs();
    const v1 = new SQL.Database();
    migrate(v1, legacyFile(dir), LEGACY_MIGRATIONS.filter((m) => m.version === 1));
    v1.exec(`INSERT INTO conversation VALUES ('c1', 'Old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', NULL)`);
    v1.exec(`INSERT INTO turn VALUES ('c1', 0, 'old q', 'old a', '{"pages":[],"offline":false}', 'm', 1, 2, '2026-01-01T00:00:00Z', NULL)`);
    fs.writeFileSync(legacyFile(dir), v1.export());
    v1.close();
    const store = await openStore(dir);
    const [old] = (await store.get('c1'))!.turns;
    assert.equal(old.question, 'old q');
    assert.equal(old.steps, undefined);
    assert.equal((await store.list())[0].turnCount, 1);
    const steps = [{ tool: 'search_wiki', input: { query: 'x' }, label: 'Searched the wiki for "x"', ok: true, summary: '0 pages', output: '' }];
    await store.appendTurn({ ...turn('c1', 'new q'), steps });
    await store.close();
    const db = new SQL.Database(fs.readFileSync(shardPath(dir, 'c1')));
    assert.equal(schemaVersion(db), SHARD_MIGRATIONS.at(-1)!.version);
    assert.deepEqual(db.exec('SELECT steps FROM turn ORDER BY turn_index')[0].values, [['[]'], [JSON.stringify(steps)]]);
    db.close();
  });

  it('keeps the journal position of a single-file store it splits: changes folded into it are not replayed', async () => {
    const dir = tempDir();
    const SQL = await sqlJs();
    const v5 = new SQL.Database();
    migrate(v5, legacyFile(dir), LEGACY_MIGRATIONS);
    v5.exec(`INSERT INTO conversation (id, title, created, updated) VALUES ('c1', 'Old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`);
    v5.exec(`INSERT INTO turn VALUES ('c1', 0, 'folded', 'a', '{"pages":[],"offline":false}', 'm', 1, 2, '2026-01-01T00:00:00Z', 'e1', '[]')`);
    v5.exec(`INSERT INTO meta VALUES ('folded_segment', '1')`);
    fs.writeFileSync(legacyFile(dir), v5.export());
    v5.close();
    // Segment 1 was folded into the file (an entry left behind by a crash before its deletion); segment 2 was not.
    const entry = (id: string, question: string) => `\n${JSON.stringify({ v: 1, id, op: 'turn', turn: { ...turn('c1', question) } })}\n`;
    fs.writeFileSync(segmentPath(dir, 1), entry('e0', 'already folded'));
    fs.writeFileSync(segmentPath(dir, 2), entry('e2', 'from the journal'));
    const store = await openStore(dir);
    assert.deepEqual((await store.get('c1'))!.turns.map((t) => t.question), ['folded', 'from the journal']);
  });

  it('refuses a catalog or a shard from a newer version, saying what to do, and leaves every file untouched', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('From the future');
    await store.appendTurn(turn(c.id, 'q'));
    await store.close();
    const catalog = fs.readFileSync(dbFile(dir), 'utf8');
    fs.writeFileSync(dbFile(dir), JSON.stringify({ ...JSON.parse(catalog), format: 99 }));
    const bytes = fs.readFileSync(dbFile(dir));
    const before = files(dir);
    const error = await rejectsWith(openConversationStore(dir), 'newer-database');
    assert.match(error.userMessage, /newer version of Repo Wiki.*format 99.*Update the Repo Wiki extension/);
    assert.deepEqual(fs.readFileSync(dbFile(dir)), bytes);
    assert.deepEqual(files(dir), before);

    fs.writeFileSync(dbFile(dir), catalog);
    const SQL = await sqlJs();
    const shard = new SQL.Database(fs.readFileSync(shardPath(dir, c.id)));
    shard.exec('PRAGMA user_version = 99');
    fs.writeFileSync(shardPath(dir, c.id), shard.export());
    shard.close();
    const shardBytes = fs.readFileSync(shardPath(dir, c.id));
    const reopened = await openStore(dir);
    const shardError = await rejectsWith(reopened.get(c.id), 'newer-database');
    assert.match(shardError.userMessage, /newer version of Repo Wiki.*schema 99/);
    assert.deepEqual(fs.readFileSync(shardPath(dir, c.id)), shardBytes);
  });

  it('refuses journal entries from a newer version instead of dropping them', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await store.create('Now');
    await store.close();
    const segment = segmentPath(dir, listSegments(dir).at(-1)!);
    fs.appendFileSync(segment, `\n${JSON.stringify({ v: 99, id: 'x', op: 'pin', conversationId: 'c' })}\n`);
    const journal = fs.readFileSync(segment);
    await rejectsWith(openConversationStore(dir), 'newer-database');
    assert.deepEqual(fs.readFileSync(segment), journal);
  });
});

describe('conversation store damage and crashes', () => {
  it('ignores a torn last journal line, and later entries still count', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Torn');
    await store.appendTurn(turn(c.id, 'acknowledged'));
    fs.appendFileSync(segmentPath(dir, 1), '\n{"v":1,"id":"torn","op":"turn","turn":{"conversationId":"'); // a crash mid-write
    const reopened = await openStore(dir);
    assert.deepEqual((await reopened.get(c.id))!.turns.map((t) => t.question), ['acknowledged']);
    await reopened.appendTurn(turn(c.id, 'after the tear'));
    const third = await openStore(dir);
    assert.deepEqual((await third.get(c.id))!.turns.map((t) => t.question), ['acknowledged', 'after the tear']);
  });

  it('moves a garbage catalog aside, says where, and rebuilds it from the shards and the journal', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const c = await store.create('Before the damage');
    await store.appendTurn(turn(c.id, 'folded into the shard'));
    await store.compact();
    await store.appendTurn(turn(c.id, 'still in the journal'));
    const garbage = Buffer.from('this is not a database '.repeat(500));
    fs.writeFileSync(dbFile(dir), garbage);

    const { store: recovered, warnings } = await open(dir);
    assert.equal(warnings.length, 1);
    const aside = files(dir).find((name) => name.startsWith(`${CATALOG_FILE}.corrupt-`));
    assert.ok(aside, 'the damaged file was moved aside');
    assert.deepEqual(fs.readFileSync(path.join(dir, aside)), garbage, 'and kept byte for byte');
    assert.match(warnings[0], new RegExp(`could not be read .*moved to ${path.join(dir, aside).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} and kept; 1 conversation\\(s\\) were rebuilt from the turn files, titled after their first question\\. 1 more change\\(s\\) were replayed from the journal\\.`));
    // Both turns survive; the conversation's row was lost with the file, so it is titled after its first question.
    const record = (await recovered.get(c.id))!;
    assert.deepEqual(record.turns.map((t) => t.question), ['folded into the shard', 'still in the journal']);
    assert.equal(record.conversation.title, 'folded into the shard');
    assert.equal(record.conversation.turnCount, 2);
    assert.ok(fs.existsSync(dbFile(dir)), 'a new database was written');
    await recovered.close();
    const { warnings: later } = await open(dir);
    assert.deepEqual(later, [], 'the new database opens cleanly');
  });

  it('salvages the readable turns of a damaged shard when it is first loaded, and keeps the totals true', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    // 60 conversations in one shard, as a busy shard of a large history; 4 in another.
    const inShard = Array.from({ length: 2000 }, (_, i) => `damaged-${i}`).filter((id) => shardOf(id) === 0).slice(0, 60);
    const elsewhere = Array.from({ length: 100 }, (_, i) => `other-${i}`).filter((id) => shardOf(id) === 1).slice(0, 4);
    for (const id of [...inShard, ...elsewhere]) {
      await store.create(`Conversation ${id}`, id);
      await store.appendTurn(turn(id, `question ${id}`, `answer ${id} `.repeat(400)));
    }
    await store.close();
    const damaged = path.join(dir, shardFile(0));
    const image = fs.readFileSync(damaged);
    fs.writeFileSync(damaged, image.subarray(0, Math.floor(image.length * 0.7))); // a truncated file

    const { store: recovered, warnings } = await open(dir);
    assert.deepEqual(warnings, [], 'the catalog opens cleanly; the shard is read only when needed');
    assert.equal((await recovered.list()).length, 64);
    const kept = (await Promise.all(inShard.map((id) => recovered.get(id)))).reduce((sum, record) => sum + record!.turns.length, 0);
    const warning = laterWarnings.splice(0).join('\n');
    const match = /could not be read .* It was moved to .*\.corrupt-.* and kept; (\d+) turn\(s\) were recovered from it\./.exec(warning);
    assert.ok(match, warning);
    assert.equal(Number(match[1]), kept);
    assert.ok(kept > 0 && kept < inShard.length, `some turns were readable (${kept} of ${inShard.length})`);
    const totals = (await recovered.list()).filter((c) => inShard.includes(c.id)).reduce((sum, c) => sum + c.turnCount, 0);
    assert.equal(totals, kept, 'the history counts the turns that are left');
    for (const id of elsewhere) assert.equal((await recovered.get(id))!.turns.length, 1, 'other shards are untouched');
    assert.ok(files(dir).some((name) => name.startsWith(`${shardFile(0)}.corrupt-`)));
  });
});

describe('conversation store with two windows', () => {
  it('each window sees the other\'s changes, before and after compaction', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const b = await openStore(dir);
    const c = await a.create('Shared');
    await b.appendTurn(turn(c.id, 'from b'));
    await a.appendTurn(turn(c.id, 'from a'));
    assert.deepEqual((await b.get(c.id))!.turns.map((t) => t.question), ['from b', 'from a']);
    assert.equal(await b.compact(), true);
    await a.rename(c.id, 'Renamed by a');
    await b.appendTurn(turn(c.id, 'from b again'));
    assert.equal(await a.compact(), true);
    for (const store of [a, b]) {
      const record = (await store.get(c.id))!;
      assert.equal(record.conversation.title, 'Renamed by a');
      assert.deepEqual(record.turns.map((t) => t.question), ['from b', 'from a', 'from b again']);
    }
  });

  it('a window catches up after another window folded segments it had not read, and writes where they continue', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const b = await openStore(dir);
    const c = await b.create('Folded behind a\'s back');
    for (let i = 0; i < 3; i++) await b.appendTurn(turn(c.id, `b${i}`));
    await b.compact();
    await b.appendTurn(turn(c.id, 'b3'));
    await b.compact(); // segments 1 and 2 are gone; a never read them
    assert.deepEqual(listSegments(dir), [3]);
    assert.deepEqual((await a.get(c.id))!.turns.map((t) => t.question), ['b0', 'b1', 'b2', 'b3']);
    await a.appendTurn(turn(c.id, 'a4')); // a's open segment 1 is gone: the entry is written again to segment 3
    assert.deepEqual(listSegments(dir), [3]);
    assert.equal((await b.get(c.id))!.turns.at(-1)!.question, 'a4');
    await b.close();
    assert.equal((await (await openStore(dir)).get(c.id))!.turns.at(-1)!.question, 'a4');
  });

  it('refuses a turn for a conversation another window deleted', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const b = await openStore(dir);
    const c = await a.create('Deleted elsewhere');
    await b.delete(c.id);
    await rejectsWith(a.appendTurn(turn(c.id, 'too late')), 'conversation-not-found');
    assert.deepEqual(await a.list(), []);
  });

  it('two windows appending at once lose nothing, with compactions racing them', async () => {
    const dir = tempDir();
    const a = await openStore(dir, { compactAfterChanges: 7, compactAfterMs: 5 });
    const b = await openStore(dir, { compactAfterChanges: 5, compactAfterMs: 5 });
    const ca = await a.create('A');
    const cb = await b.create('B');
    const sent: string[] = [];
    await Promise.all([a, b].map(async (store, w) => {
      for (let i = 0; i < 40; i++) {
        const question = `window ${w} turn ${i}`;
        await store.appendTurn(turn(i % 2 ? ca.id : cb.id, question));
        sent.push(question);
        if (i % 13 === 0) await store.compact();
      }
    }));
    const everything = async (store: SqlJsConversationStore) => [...(await store.get(ca.id))!.turns, ...(await store.get(cb.id))!.turns].map((t) => t.question).sort();
    assert.deepEqual(await everything(a), [...sent].sort());
    assert.deepEqual(await everything(b), [...sent].sort());
    for (const id of [ca.id, cb.id]) {
      const { turns } = (await a.get(id))!;
      assert.deepEqual(turns.map((t) => t.index), turns.map((_, i) => i), 'indexes stay dense');
    }
    await a.close();
    await b.close();
    assert.deepEqual(await everything(await openStore(dir)), [...sent].sort());
  });
});

describe('conversation store compaction lock', () => {
  async function storeWithChange(options: ConversationStoreOptions = {}) {
    const dir = tempDir();
    const store = await openStore(dir, options);
    const c = await store.create('Locked');
    await store.appendTurn(turn(c.id, 'q'));
    return { dir, store, c };
  }

  const writeLock = (dir: string, owner: object) => fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(owner));

  it('waits while another live window holds the lock, losing nothing', async () => {
    const { dir, store, c } = await storeWithChange();
    writeLock(dir, { pid: process.pid, host: os.hostname(), acquired: new Date().toISOString(), nonce: 'other' });
    assert.equal(await store.compact(), false);
    assert.equal(fs.existsSync(dbFile(dir)), false);
    assert.equal((await (await openStore(dir)).get(c.id))!.turns.length, 1);
    fs.rmSync(path.join(dir, LOCK_FILE));
    assert.equal(await store.compact(), true);
  });

  it('takes over a lock whose owner has exited', async () => {
    const { dir, store } = await storeWithChange();
    const gone = execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim();
    writeLock(dir, { pid: Number(gone), host: os.hostname(), acquired: new Date().toISOString(), nonce: 'dead' });
    assert.equal(await store.compact(), true);
    assert.equal(fs.existsSync(path.join(dir, LOCK_FILE)), false, 'released after use');
  });

  it('reports a journal segment it cannot look at, rather than taking it for empty', async () => {
    const { dir, store } = await storeWithChange();
    assert.equal(await store.compact(), true);
    const [segment] = listSegments(dir);
    const file = segmentPath(dir, segment);
    // As root, permissions stop no stat: a link to itself (ELOOP) does.
    fs.rmSync(file);
    fs.symlinkSync(file, file);
    await assert.rejects(store.compact(), (error: NodeJS.ErrnoException) => error.code === 'ELOOP');
    fs.rmSync(file);
    fs.writeFileSync(file, '');
    assert.equal(await store.compact(), false, 'an empty segment is nothing to fold');
  });

  it('takes over a lock held too long', async () => {
    const { dir, store } = await storeWithChange({ lockStaleMs: 1_000 });
    writeLock(dir, { pid: process.pid, host: 'another-host', acquired: new Date(Date.now() - 5_000).toISOString(), nonce: 'hung' });
    assert.equal(await store.compact(), true);
  });
});
