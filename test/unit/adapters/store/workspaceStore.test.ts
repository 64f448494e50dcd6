import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { conversationDataHome, DATA_DIR_VARIABLE, storeDirFor } from '../../../../src/adapters/store/dataHome';
import { CATALOG_FILE, openConversationStore } from '../../../../src/adapters/store/sqlJsConversationStore';
import { openWorkspaceConversationStore, WORKSPACE_FILE, type AdoptCandidate, type WorkspaceStoreOptions } from '../../../../src/adapters/store/workspaceStore';
import type { ConversationStore, Turn } from '../../../../src/core/chat/conversation';
import { forkRecord } from '../../../../src/core/chat/lineage';
import { WikiError } from '../../../../src/core/errors';

const made: string[] = [];
const open: ConversationStore[] = [];

function temp(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

const IDENTITY = { rootCommits: ['a'.repeat(40)], remote: 'git@example.com:team/app.git' };

function turn(conversationId: string, question: string): Omit<Turn, 'index'> {
  return { conversationId, question, answer: `About ${question}`, context: { pages: [], offline: false }, model: 'claude-test', inputTokens: 3, outputTokens: 4, created: new Date().toISOString() };
}

async function openAt(folder: string, home: string, options: Partial<WorkspaceStoreOptions> = {}) {
  const opened = await openWorkspaceConversationStore({ folder, dataHome: home, identity: async () => IDENTITY, adopt: async () => true, compactAfterMs: 60_000, ...options });
  open.push(opened.store);
  return opened;
}

/** Every file under `dir`, relative. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

after(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the workspace conversation store', () => {
  it('lives in REPO_WIKI_DATA_DIR when set, else in the platform data folder, one folder per workspace folder', () => {
    assert.equal(conversationDataHome({ [DATA_DIR_VARIABLE]: '/tmp/rw-data' }), '/tmp/rw-data');
    assert.equal(path.basename(conversationDataHome({})), process.platform === 'win32' ? 'Data' : 'repo-wiki');
    const a = storeDirFor('/home', '/src/My App');
    assert.match(path.basename(a), /^my-app-[0-9a-f]{16}$/);
    assert.equal(path.dirname(a), path.join('/home', 'workspaces'));
    assert.notEqual(storeDirFor('/home', '/other/My App'), a, 'same name, other path: another store');
    assert.equal(storeDirFor('/home', '/src/My App'), a);
  });

  it('keeps conversations out of the workspace folder, and finds them again through a link to the folder', async () => {
    const home = temp('rw-home-');
    const folder = temp('rw-ws-');
    fs.writeFileSync(path.join(folder, 'README.md'), 'x');
    const { store, dir, notices } = await openAt(folder, home);
    const c = await store.create('First', 'pr-42');
    await store.appendTurn(turn(c.id, 'What is it?'));
    await store.close();
    assert.deepEqual(notices, []);
    assert.deepEqual(tree(folder), ['README.md'], 'nothing written inside the workspace');
    assert.ok(dir.startsWith(path.join(home, 'workspaces')));
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, WORKSPACE_FILE), 'utf8')), { path: folder, identity: IDENTITY });
    const link = path.join(temp('rw-link-'), 'ws');
    fs.symlinkSync(folder, link);
    let asked = 0;
    const again = await openAt(link, home, { identity: async () => (asked++, IDENTITY) });
    assert.equal(again.dir, dir);
    assert.equal(asked, 0, 'the identity recorded in workspace.json is reused: git walks no history again');
    assert.equal((await again.store.get('pr-42'))?.turns.length, 1);
  });

  it('creates under a given id once, refuses a taken one, and keeps a fork\'s lineage across a reopen (schema 4)', async () => {
    const home = temp('rw-home-');
    const folder = temp('rw-ws-');
    const { store } = await openAt(folder, home);
    await store.create('One', 'pr-1');
    await assert.rejects(store.create('Again', 'pr-1'), (e: unknown) => e instanceof WikiError && e.code === 'conversation-exists');
    await assert.rejects(store.create('Bad', 'no spaces'), (e: unknown) => e instanceof WikiError && e.code === 'invalid-conversation-id');
    await store.appendTurn(turn('pr-1', 'q1'));
    await store.appendTurn(turn('pr-1', 'q2'));
    const fork = forkRecord((await store.get('pr-1'))!, 1, 'pr-1-b', new Date().toISOString());
    await store.addRecord(fork);
    await assert.rejects(store.addRecord(fork), (e: unknown) => e instanceof WikiError && e.code === 'conversation-exists');
    await store.close();
    const reopened = (await openAt(folder, home)).store;
    const stored = (await reopened.get('pr-1-b'))!;
    assert.deepEqual([stored.conversation.parentConversationId, stored.conversation.forkedAtTurn, stored.turns.length], ['pr-1', 1, 1]);
    assert.equal((await reopened.get('pr-1'))!.conversation.parentConversationId, undefined);
  });

  it('moves the store an older version kept in VS Code\'s storage, keeping the old files renamed *.migrated', async () => {
    const home = temp('rw-home-');
    const folder = temp('rw-ws-');
    const legacy = temp('rw-legacy-');
    const old = (await openConversationStore(legacy, { compactAfterMs: 60_000 })).store;
    const a = await old.create('Compacted');
    await old.appendTurn(turn(a.id, 'old question'));
    await old.compact();
    const b = await old.create('Only in the journal');
    await old.appendTurn(turn(b.id, 'journal question'));
    await old.setTags(b.id, ['kept']);
    // Left open without close: the last changes exist only in the journal, as after a crash.
    const before = fs.readdirSync(legacy).filter((name) => name !== 'conversations.lock').sort();

    const { store, notices } = await openAt(folder, home, { legacyDir: legacy });
    assert.equal(notices.length, 1);
    assert.match(notices[0], /Moved this workspace's chat history from .* the old files were kept, renamed \*\.migrated/);
    assert.deepEqual((await store.list()).map((c) => [c.title, c.turnCount, c.tags]).sort(), [['Compacted', 1, []], ['Only in the journal', 1, ['kept']]]);
    assert.deepEqual(fs.readdirSync(legacy).filter((name) => name.endsWith('.migrated')).sort(), before.map((name) => `${name}.migrated`));
    await old.close().catch(() => undefined); // its files were renamed under it; nothing of it is read again
    await store.close();
    const second = await openAt(folder, home, { legacyDir: legacy });
    assert.deepEqual(second.notices, [], 'migrated once');
    assert.equal((await second.store.list()).length, 2);
  });

  it('brings an old store in record by record when the new one exists already (the CLI ran first)', async () => {
    const home = temp('rw-home-');
    const folder = temp('rw-ws-');
    const legacy = temp('rw-legacy-');
    const first = (await openAt(folder, home)).store;
    await first.create('From the terminal', 'term-1');
    await first.close();
    const old = (await openConversationStore(legacy)).store;
    const c = await old.create('From the editor');
    await old.appendTurn(turn(c.id, 'editor question'));
    await old.close();

    const { store, notices } = await openAt(folder, home, { legacyDir: legacy });
    assert.match(notices.join('\n'), /Brought 1 conversation\(s\) from/);
    assert.deepEqual((await store.list()).map((x) => x.title).sort(), ['From the editor', 'From the terminal']);
    assert.equal((await store.get(c.id))!.turns[0].question, 'editor question', 'its id kept');
    assert.ok(fs.existsSync(path.join(legacy, `${CATALOG_FILE}.migrated`)));
    assert.ok(!fs.existsSync(path.join(legacy, CATALOG_FILE)));
  });

  it('opens all the same when the old history cannot be brought in, says so, and leaves it in place', async () => {
    const home = temp('rw-home-');
    const folder = temp('rw-ws-');
    const legacy = temp('rw-legacy-');
    const first = (await openAt(folder, home)).store;
    await first.create('Here already', 'here-1');
    await first.close();
    const old = (await openConversationStore(legacy)).store;
    await old.create('From a newer build');
    await old.close();
    const catalog = path.join(legacy, CATALOG_FILE);
    fs.writeFileSync(catalog, JSON.stringify({ ...JSON.parse(fs.readFileSync(catalog, 'utf8')), format: 99 }));

    const { store, warnings } = await openAt(folder, home, { legacyDir: legacy });
    assert.match(warnings.join('\n'), /could not be moved to .*newer version of Repo Wiki.*left where it was/);
    assert.deepEqual((await store.list()).map((c) => c.id), ['here-1']);
    assert.ok(fs.existsSync(path.join(legacy, CATALOG_FILE)), 'the old history is untouched');
  });

  it('adopts the store of a moved folder of the same repository when asked to, and only then', async () => {
    const home = temp('rw-home-');
    const parent = temp('rw-move-');
    const before = path.join(parent, 'app');
    const after = path.join(parent, 'app-renamed');
    fs.mkdirSync(before);
    const first = await openAt(before, home);
    await first.store.create('Before the move', 'moved-1');
    await first.store.close();

    // The old folder still exists: nothing to adopt, nothing asked.
    const asked: AdoptCandidate[] = [];
    fs.mkdirSync(after);
    const beside = await openAt(after, home, { adopt: async (candidate) => (asked.push(candidate), true) });
    assert.deepEqual([asked.length, (await beside.store.list()).length], [0, 0]);
    await beside.store.close();
    fs.rmSync(path.join(home, 'workspaces', path.basename(beside.dir)), { recursive: true });
    fs.rmSync(after, { recursive: true });

    fs.renameSync(before, after);
    const declined = await openAt(after, home, { adopt: async (candidate) => (asked.push(candidate), false) });
    assert.deepEqual(asked.map((c) => c.path), [before]);
    assert.deepEqual([(await declined.store.list()).length, declined.notices.length], [0, 0], 'Start fresh: an empty history');
    await declined.store.close();
    fs.rmSync(declined.dir, { recursive: true });

    const otherRepo = await openAt(after, home, { identity: async () => ({ rootCommits: ['b'.repeat(40)] }), adopt: async (candidate) => (asked.push(candidate), true) });
    assert.deepEqual([asked.length, (await otherRepo.store.list()).length], [1, 0], 'another repository is never offered');
    await otherRepo.store.close();
    fs.rmSync(otherRepo.dir, { recursive: true });

    const adopted = await openAt(after, home);
    assert.match(adopted.notices.join('\n'), new RegExp(`Adopted the conversations of ${before.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal((await adopted.store.get('moved-1'))?.conversation.title, 'Before the move');
    assert.equal(JSON.parse(fs.readFileSync(path.join(adopted.dir, WORKSPACE_FILE), 'utf8')).path, after);
  });

  it('sets a damaged database aside at the new location with a clear warning, starts afresh, and deletes nothing', async () => {
    const home = temp('rw-home-');
    const folder = temp('rw-ws-');
    const dir = storeDirFor(home, folder);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, CATALOG_FILE), 'this is not a SQLite database '.repeat(100));
    fs.writeFileSync(path.join(dir, WORKSPACE_FILE), '{ not json');
    const { store, warnings } = await openAt(folder, home);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /could not be read .* It was moved to .*catalog\.json\.corrupt-.* and kept/);
    assert.deepEqual(await store.list(), []);
    await store.create('Fresh', 'fresh-1');
    const names = fs.readdirSync(dir);
    assert.ok(names.some((name) => name.startsWith(`${CATALOG_FILE}.corrupt-`)), names.join());
    assert.ok(names.some((name) => name.startsWith(`${WORKSPACE_FILE}.corrupt-`)), 'an unreadable workspace.json is kept aside too');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, WORKSPACE_FILE), 'utf8')).path, folder);
  });
});
