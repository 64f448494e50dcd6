import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { forkForEdit } from '../../../../src/core/chat/lineage';
import { LEGACY_DATABASE_FILE } from '../../../../src/adapters/store/legacyStore';
import { LEGACY_MIGRATIONS, migrate } from '../../../../src/adapters/store/migrations';
import { CATALOG_FILE, openConversationStore, type SqlJsConversationStore } from '../../../../src/adapters/store/sqlJsConversationStore';

const dirs: string[] = [];
const stores: SqlJsConversationStore[] = [];
let clock = Date.parse('2026-02-01T10:00:00Z');
const tick = () => new Date((clock += 1000)).toISOString();

async function openStore(dir: string): Promise<SqlJsConversationStore> {
  const { store } = await openConversationStore(dir, { compactAfterMs: 60_000, compactAfterChanges: 10_000, now: () => new Date(tick()), onWarning: (m) => assert.fail(m) });
  stores.push(store);
  return store;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-titles-'));
  dirs.push(dir);
  return dir;
}

const turn = (conversationId: string, question: string) => ({
  conversationId, question, answer: `About ${question}`, model: 'claude-test', inputTokens: 1, outputTokens: 2, created: tick(), context: { pages: [], offline: false },
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('conversation titles in the store (schema 5)', () => {
  it('a new conversation\'s title is a placeholder a proposed title replaces, once', async () => {
    const store = await openStore(tempDir());
    const c = await store.create('how does auth work');
    assert.equal(c.titleSource, 'question');
    assert.equal(await store.proposeTitle(c.id, 'Auth flow', 'model'), true);
    assert.deepEqual(pick((await store.get(c.id))!.conversation), { title: 'Auth flow', titleSource: 'model' });
    assert.equal(await store.proposeTitle(c.id, 'Something else', 'model'), false, 'a proposed title is not replaced by the next one');
    assert.equal((await store.get(c.id))!.conversation.title, 'Auth flow');
  });

  it('a title the user renamed is never replaced, across a reopen and a compaction', async () => {
    const dir = tempDir();
    let store = await openStore(dir);
    const c = await store.create('how does auth work');
    await store.rename(c.id, 'My auth notes');
    assert.equal(await store.proposeTitle(c.id, 'Auth flow', 'model'), false);
    await store.close();
    store = await openStore(dir);
    assert.deepEqual(pick((await store.get(c.id))!.conversation), { title: 'My auth notes', titleSource: 'user' });
    assert.equal(await store.proposeTitle(c.id, 'Auth flow', 'model'), false);
  });

  it('a fork keeps its placeholder source and gets its own title; the parent keeps its own', async () => {
    const store = await openStore(tempDir());
    const parent = await store.create('q1');
    await store.rename(parent.id, 'Auth flow');
    await store.appendTurn(turn(parent.id, 'q1'));
    await store.appendTurn(turn(parent.id, 'q2'));
    const fork = forkForEdit((await store.get(parent.id))!, 1, 'fork-1', tick());
    const added = await store.addRecord(fork);
    assert.deepEqual([added.titleSource, added.parentConversationId, added.forkedAtTurn, added.turnCount], ['fork', parent.id, 1, 1]);
    assert.equal(await store.proposeTitle('fork-1', 'Token refresh', 'model'), true);
    assert.equal((await store.get('fork-1'))!.conversation.title, 'Token refresh');
    assert.deepEqual(pick((await store.get(parent.id))!.conversation), { title: 'Auth flow', titleSource: 'user' });
  });

  it('splits a schema-4 single file keeping everything: its rows and lineage stay, and their titles (source unknown) are never replaced', async () => {
    const dir = tempDir();
    const SQL = await initSqlJs({ locateFile: () => require.resolve('sql.js/dist/sql-wasm.wasm') });
    const v4 = new SQL.Database();
    migrate(v4, path.join(dir, LEGACY_DATABASE_FILE), LEGACY_MIGRATIONS.filter((m) => m.version <= 4));
    v4.exec(`INSERT INTO conversation (id, title, created, updated, filed_page, tags, prior_summary, parent_conversation_id, forked_at_turn)
      VALUES ('old', 'Renamed long ago', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'old-page', '["auth"]', NULL, 'root', 2)`);
    v4.exec(`INSERT INTO turn VALUES ('old', 0, 'q', 'a', '{"pages":[],"offline":false}', 'm', 1, 2, '2026-01-01T00:00:00Z', NULL, '[]')`);
    fs.writeFileSync(path.join(dir, LEGACY_DATABASE_FILE), v4.export());
    v4.close();
    const store = await openStore(dir);
    const old = (await store.get('old'))!.conversation;
    assert.deepEqual([old.title, old.filedPage, old.tags, old.parentConversationId, old.forkedAtTurn, old.titleSource], ['Renamed long ago', 'old-page', ['auth'], 'root', 2, undefined]);
    assert.equal(await store.proposeTitle('old', 'Auth flow', 'model'), false);
    await store.close();
    const { conversations } = JSON.parse(fs.readFileSync(path.join(dir, CATALOG_FILE), 'utf8'));
    assert.deepEqual(conversations.map((c: { id: string; title: string; titleSource?: string }) => [c.id, c.title, c.titleSource]), [['old', 'Renamed long ago', undefined]]);
  });
});

const pick = ({ title, titleSource }: { title: string; titleSource?: string }) => ({ title, titleSource });
