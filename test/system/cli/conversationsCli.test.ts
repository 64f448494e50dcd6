import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { storeDirFor } from '../../../src/adapters/store/dataHome';
import { CLI, type CliRun } from '../../support/cliProcess';
import { tempDir } from '../../support/tempDirs';

/**
 * `repo-wiki query --conversation` and `repo-wiki conversations`, run as a user runs them: real
 * processes, the real SDK against the local mock of the Messages API, and the store in a temporary
 * REPO_WIKI_DATA_DIR (never the real home).
 */

const DEMO = path.resolve(__dirname, '../../../../demo');
const KEY = 'sk-ant-conversations';
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));

interface Mock {
  url: string;
  requests: { body: { messages: { role: string; content: unknown }[] } }[];
  script(...replies: object[]): void;
  close(): Promise<void>;
}

/** A copy of the demo workspace and a data folder of its own. */
function workspace(): { ws: string; data: string } {
  const ws = path.join(tempDir('rw-conv-ws-'), 'app');
  fs.cpSync(DEMO, ws, { recursive: true });
  return { ws: fs.realpathSync(ws), data: tempDir('rw-conv-data-') };
}

/** Runs the CLI; `stdin` is written and closed when given, else stdin is /dev/null. */
function cli(args: string[], env: Record<string, string | undefined>, stdin?: string): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const text = (content: unknown): string => (typeof content === 'string' ? content : (content as { text?: string }[]).map((block) => block.text ?? '').join('\n'));

/** Every file under `dir` with its size, for a before/after comparison. */
function snapshot(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).sort().map((name) => {
    const stat = fs.lstatSync(path.join(dir, name));
    return stat.isDirectory() ? `${name}/` : `${name} ${stat.size}`;
  });
}

describe('repo-wiki conversations from the terminal', function () {
  this.timeout(120_000);
  let mock: Mock;

  before(async () => {
    mock = await startMockAnthropic({ validKey: KEY });
  });

  after(async () => {
    await mock.close();
  });

  const withModel = (data: string) => ({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url, REPO_WIKI_DATA_DIR: data });

  it('the second query --conversation sends the first turn as prior context, and nothing is written in the repository', async () => {
    const { ws, data } = workspace();
    const before = snapshot(ws);
    mock.script({ text: 'Errors are turned into responses at the edge, see [[errors-become-responses-at-the-edge]].' }, { text: 'Yes: the status comes from the HttpError.' });
    const sent = mock.requests.length;
    const first = await cli(['query', 'How do errors become HTTP responses?', '--conversation', 'pr-42', '--workspace', ws, '--format', 'json'], withModel(data));
    assert.equal(first.code, 0, first.stderr);
    const firstJson = JSON.parse(first.stdout);
    assert.deepEqual([firstJson.conversation, firstJson.turn, firstJson.conversationUsage.turns], ['pr-42', 1, 1]);
    const second = await cli(['query', 'And which status code does it get?', '--conversation', 'pr-42', '--workspace', ws, '--format', 'json'], withModel(data));
    assert.equal(second.code, 0, second.stderr);
    const secondJson = JSON.parse(second.stdout);
    assert.deepEqual([secondJson.conversation, secondJson.turn, secondJson.conversationUsage.turns], ['pr-42', 2, 2]);
    assert.equal(secondJson.conversationUsage.inputTokens, firstJson.usage.inputTokens + secondJson.usage.inputTokens, 'running totals');

    const [request1, request2] = mock.requests.slice(sent).map((request) => request.body.messages);
    assert.equal(request1.length, 1, 'a first turn carries no prior turns');
    assert.deepEqual(request2.slice(0, 2).map((m) => [m.role, text(m.content)]), [
      ['user', 'How do errors become HTTP responses?'],
      ['assistant', 'Errors are turned into responses at the edge, see [[errors-become-responses-at-the-edge]].'],
    ]);
    assert.match(text(request2.at(-1)!.content), /Question: And which status code does it get\?/);
    assert.deepEqual(snapshot(ws), before, 'the repository is unchanged');
    assert.ok(fs.readdirSync(path.join(data, 'workspaces')).some((name) => name.startsWith('app-')), 'the store is in REPO_WIKI_DATA_DIR');
  });

  it('--new starts conv-<8 hex> and prints its id on stderr; an id that is not one is refused and nothing is written', async () => {
    const { ws, data } = workspace();
    const started = await cli(['query', 'How do errors become HTTP responses?', '--new', '--workspace', ws], { REPO_WIKI_DATA_DIR: data });
    assert.equal(started.code, 0, started.stderr);
    const id = /Started conversation (conv-[0-9a-f]{8})/.exec(started.stderr)?.[1];
    assert.ok(id, started.stderr);
    assert.doesNotMatch(started.stdout, /conv-/, 'stdout holds the answer alone');
    const json = await cli(['query', 'What is the request pipeline?', '--new', '--workspace', ws, '--format', 'json'], { REPO_WIKI_DATA_DIR: data });
    assert.match(JSON.parse(json.stdout).conversation, /^conv-[0-9a-f]{8}$/);
    assert.notEqual(JSON.parse(json.stdout).conversation, id);

    const fresh = tempDir('rw-conv-data-');
    for (const bad of ['has space', '../escape', 'x'.repeat(65), 'semi;colon']) {
      const refused = await cli(['query', 'anything', '--conversation', bad, '--workspace', ws], { REPO_WIKI_DATA_DIR: fresh });
      assert.equal(refused.code, 2, bad);
      assert.match(refused.stderr, /is not a conversation id\. Use 1 to 64 letters, digits, "-" or "_"/);
    }
    const both = await cli(['query', 'anything', '--conversation', 'a', '--new', '--workspace', ws], { REPO_WIKI_DATA_DIR: fresh });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Give --conversation ID or --new, not both/);
    assert.deepEqual(fs.readdirSync(fresh), [], 'a refused query writes nothing');
  });

  it('reads stdin: piped text is added to the question, and "-" asks stdin alone', async () => {
    const { ws, data } = workspace();
    const diff = 'diff --git a/src/errors.ts b/src/errors.ts\n+export const teapot = 418;\n';
    const sent = mock.requests.length;
    const piped = await cli(['query', 'review this', '--conversation', 'pr-7', '--workspace', ws], withModel(data), diff);
    assert.equal(piped.code, 0, piped.stderr);
    const question = text(mock.requests[sent].body.messages.at(-1)!.content);
    assert.match(question, /Question: review this\n\ndiff --git a\/src\/errors\.ts b\/src\/errors\.ts\n\+export const teapot = 418;/);
    const only = await cli(['query', '-', '--conversation', 'pr-7', '--workspace', ws, '--format', 'json'], withModel(data), 'What did I ask before?\n');
    assert.equal(only.code, 0, only.stderr);
    assert.match(text(mock.requests[sent + 1].body.messages.at(-1)!.content), /Question: What did I ask before\?$/);
    assert.equal(JSON.parse(only.stdout).turn, 2);
    const nothing = await cli(['query', '-', '--workspace', ws], { REPO_WIKI_DATA_DIR: data }, '');
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /Nothing came on stdin/);
  });

  it('a query in the terminal and appends from another process at the same time: no turn is lost', async () => {
    const { ws, data } = workspace();
    await cli(['query', 'Start', '--conversation', 'shared', '--workspace', ws], { REPO_WIKI_DATA_DIR: data });
    // The other writer (the editor's store, as the extension opens it), compacting often to race the CLI's close.
    const writer = path.join(tempDir('rw-conv-writer-'), 'writer.js');
    const storeModule = path.resolve(__dirname, '../../../src/adapters/store/workspaceStore.js');
    fs.writeFileSync(writer, `
      const { openWorkspaceConversationStore } = require(${JSON.stringify(storeModule)});
      (async () => {
        const { store } = await openWorkspaceConversationStore({ folder: ${JSON.stringify(ws)}, dataHome: ${JSON.stringify(data)}, adopt: async () => false, compactAfterChanges: 3, compactAfterMs: 5 });
        for (let i = 0; i < 30; i++) {
          await store.appendTurn({ conversationId: 'shared', question: 'editor ' + i, answer: 'a', context: { pages: [], offline: false }, model: 'm', inputTokens: 1, outputTokens: 1, created: new Date().toISOString() });
          await new Promise((resolve) => setTimeout(resolve, 15));
        }
        await store.close();
      })().catch((error) => { console.error(error); process.exit(1); });
    `);
    mock.script({ text: 'slow one', delayMs: 150, chunks: 6 }, { text: 'slow two', delayMs: 150, chunks: 6 });
    const editor = new Promise<CliRun>((resolve) => {
      const child = spawn(process.execPath, [writer], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout: '', stderr }));
    });
    const [terminal1, terminal2, other] = await Promise.all([
      cli(['query', 'terminal one', '--conversation', 'shared', '--workspace', ws], withModel(data)),
      cli(['query', 'terminal two', '--conversation', 'shared', '--workspace', ws], withModel(data)),
      editor,
    ]);
    for (const run of [terminal1, terminal2, other]) assert.equal(run.code, 0, run.stderr);
    const shown = await cli(['conversations', 'show', 'shared', '--workspace', ws, '--format', 'json'], { REPO_WIKI_DATA_DIR: data });
    const questions = (JSON.parse(shown.stdout).turns as { question: string; index: number }[]).map((t) => t.question);
    assert.equal(questions.length, 33, questions.join(', '));
    for (const q of ['Start', 'terminal one', 'terminal two', ...Array.from({ length: 30 }, (_, i) => `editor ${i}`)]) assert.ok(questions.includes(q), q);
    assert.deepEqual(JSON.parse(shown.stdout).turns.map((t: { index: number }) => t.index), questions.map((_, i) => i));
  });

  it('a repository moved to another folder finds its conversations again, and says so on stderr', async () => {
    const { ws, data } = workspace();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd: ws, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    const first = await cli(['query', 'How do errors become HTTP responses?', '--conversation', 'travels', '--workspace', ws], { REPO_WIKI_DATA_DIR: data });
    assert.equal(first.code, 0, first.stderr);
    const moved = path.join(path.dirname(ws), 'app-moved');
    fs.renameSync(ws, moved);
    const after = await cli(['query', 'And then?', '--conversation', 'travels', '--workspace', moved, '--format', 'json'], { REPO_WIKI_DATA_DIR: data });
    assert.equal(after.code, 0, after.stderr);
    assert.match(after.stderr, new RegExp(`Adopted the conversations of ${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(that folder no longer exists; this one is the same repository\\)`));
    assert.equal(JSON.parse(after.stdout).turn, 2, 'the first turn came along');
    const again = await cli(['conversations', 'list', '--workspace', moved], { REPO_WIKI_DATA_DIR: data });
    assert.doesNotMatch(again.stderr, /Adopted/, 'adopted once');
  });

  it('a hostile store file is set aside with a clear message, and a fresh store starts', async () => {
    const { ws, data } = workspace();
    const dir = storeDirFor(data, ws);
    fs.mkdirSync(dir, { recursive: true });
    const junk = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(5000, 0xff)]);
    fs.writeFileSync(path.join(dir, 'catalog.json'), junk);
    const run = await cli(['query', 'How do errors become HTTP responses?', '--conversation', 'after-damage', '--workspace', ws], { REPO_WIKI_DATA_DIR: data });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /warning: The chat history catalog .*catalog\.json could not be read .* It was moved to .*catalog\.json\.corrupt-[^ ]+ and kept/);
    const aside = fs.readdirSync(dir).find((name) => name.startsWith('catalog.json.corrupt-'))!;
    assert.deepEqual(fs.readFileSync(path.join(dir, aside)), junk, 'kept byte for byte');
    const list = await cli(['conversations', 'list', '--workspace', ws, '--format', 'json'], { REPO_WIKI_DATA_DIR: data });
    assert.deepEqual(JSON.parse(list.stdout).map((c: { id: string }) => c.id), ['after-damage']);
  });

  it('conversations list, show, fork, export, import, save and delete', async () => {
    const { ws, data } = workspace();
    const env = { REPO_WIKI_DATA_DIR: data };
    mock.script({ text: 'One.', usage: { input_tokens: 100, output_tokens: 10 } }, { text: 'Two.', usage: { input_tokens: 170_000, output_tokens: 20 } });
    await cli(['query', 'How do errors become HTTP responses?', '--conversation', 'main', '--workspace', ws], withModel(data));
    const nearLimit = await cli(['query', 'What is the request pipeline?', '--conversation', 'main', '--workspace', ws, '--format', 'json'], withModel(data));
    assert.match(JSON.parse(nearLimit.stdout).contextWarning, /near the model's context limit \(85% used\)\. Start a new one with --new/);
    const text2 = await cli(['query', 'Offline now', '--conversation', 'main', '--workspace', ws, '--offline'], withModel(data));
    assert.match(text2.stderr, /Conversation main · turn 3 · so far 3 turns, 170,100 in, 30 out tokens/);

    const list = JSON.parse((await cli(['conversations', 'list', '--workspace', ws, '--format', 'json'], env)).stdout);
    assert.deepEqual(list.map((c: { id: string; title: string; turns: number; inputTokens: number; outputTokens: number; tags: string[] }) => [c.id, c.title, c.turns, c.inputTokens, c.outputTokens, c.tags]), [
      ['main', 'How do errors become HTTP responses?', 3, 170_100, 30, []],
    ]);
    const listed = await cli(['conversations', 'list', '--workspace', ws], env);
    assert.match(listed.stdout, /^main {2}How do errors become HTTP responses\?\n {4}3 turns · 170,100 in, 30 out tokens/);

    const forked = await cli(['conversations', 'fork', 'main', '--at', '2', '--id', 'main-b', '--workspace', ws, '--format', 'json'], env);
    assert.equal(forked.code, 0, forked.stderr);
    assert.deepEqual(JSON.parse(forked.stdout), { id: 'main-b', title: 'How do errors become HTTP responses? (fork)', turns: 2, parentConversationId: 'main', forkedAtTurn: 2 });
    const taken = await cli(['conversations', 'fork', 'main', '--at', '1', '--id', 'main-b', '--workspace', ws], env);
    assert.equal(taken.code, 2);
    assert.match(taken.stderr, /There is already a conversation main-b/);
    const outOfRange = await cli(['conversations', 'fork', 'main', '--at', '4', '--workspace', ws], env);
    assert.match(outOfRange.stderr, /Give --at between 1 and 3/);

    const exported = await cli(['conversations', 'export', 'main-b', '--format', 'json', '--workspace', ws], env);
    const json = JSON.parse(exported.stdout);
    assert.deepEqual([json.version, json.conversation.parentConversationId, json.conversation.forkedAtTurn], [3, 'main', 2]);
    const markdown = await cli(['conversations', 'export', 'main-b', '--workspace', ws], env);
    assert.match(markdown.stdout, /^# How do errors become HTTP responses\? \(fork\)/);
    const file = path.join(tempDir('rw-conv-export-'), 'main-b.md');
    fs.writeFileSync(file, markdown.stdout);
    const imported = await cli(['conversations', 'import', file, '--workspace', ws, '--format', 'json'], env);
    assert.equal(imported.code, 0, imported.stderr);
    const importedJson = JSON.parse(imported.stdout);
    assert.equal(importedJson.originalId, 'main-b', 'a taken id gets a new one');
    const notAnExport = path.join(path.dirname(file), 'notes.md');
    fs.writeFileSync(notAnExport, 'Just some notes.\n');
    const refusedImport = await cli(['conversations', 'import', notAnExport, '--workspace', ws], env);
    assert.equal(refusedImport.code, 2);
    assert.match(refusedImport.stderr, /notes\.md cannot be imported: the Markdown does not start with a "# title" line/);
    const shown = JSON.parse((await cli(['conversations', 'show', importedJson.id, '--workspace', ws, '--format', 'json'], env)).stdout);
    assert.deepEqual([shown.conversation.parentConversationId, shown.conversation.forkedAtTurn, shown.turns.length], ['main', 2, 2]);

    const saved = await cli(['conversations', 'save', 'main', '--turns', '1-2', '--workspace', ws, '--format', 'json'], env);
    assert.equal(saved.code, 0, saved.stderr);
    const savedJson = JSON.parse(saved.stdout);
    assert.deepEqual([savedJson.slug, savedJson.created], ['how-do-errors-become-http-responses-turns-1-2', true]);
    const page = fs.readFileSync(path.join(ws, savedJson.path), 'utf8');
    assert.match(page, /## How do errors become HTTP responses\?/);
    assert.doesNotMatch(page, /Offline now/);
    const again = JSON.parse((await cli(['conversations', 'save', 'main', '--turns', '1-2', '--workspace', ws, '--format', 'json'], env)).stdout);
    assert.deepEqual([again.slug, again.created], [savedJson.slug, false]);
    const whole = JSON.parse((await cli(['conversations', 'save', 'main', '--workspace', ws, '--format', 'json'], env)).stdout);
    assert.equal(whole.slug, 'how-do-errors-become-http-responses');
    const lint = await cli(['lint', '--workspace', ws], env);
    assert.match(lint.stdout, /8 pages checked/);
    assert.doesNotMatch(lint.stdout, /turns-1-2/, 'the partial page passes lint (the demo has issues of its own)');

    const declined = await cli(['conversations', 'delete', 'main-b', '--workspace', ws], env);
    assert.equal(declined.code, 1);
    assert.match(declined.stderr, /Not deleted: pass --yes/);
    const deleted = await cli(['conversations', 'delete', 'main-b', '--yes', '--workspace', ws], env);
    assert.equal(deleted.code, 0, deleted.stderr);
    const missing = await cli(['conversations', 'show', 'main-b', '--workspace', ws], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /There is no conversation "main-b" in this workspace\. List them with: repo-wiki conversations list/);
  });
});
