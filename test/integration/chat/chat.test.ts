import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostToWebview } from '../../../src/shared/protocol';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import { activateExtension, textOf, waitFor, workspaceRoot } from '../helpers';

// The mock Messages API is plain CommonJS shared with the e2e tests and the harness.
interface RecordedRequest { apiKey?: string; headers: Record<string, string>; body: { model: string; system: { text: string; cache_control?: unknown }[]; messages: { role: string; content: string }[] } }
interface MockAnthropic { url: string; requests: RecordedRequest[]; script(...replies: unknown[]): void; close(): Promise<void> }
function findHarness(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'harness', 'mockAnthropic.cjs');
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error('mockAnthropic.cjs not found');
}
const { startMockAnthropic } = require(findHarness()) as { startMockAnthropic(options?: object): Promise<MockAnthropic> };

const API_KEY = 'sk-ant-test-key-123456';


/** Sends one question the way the chat view does and collects what the host posts back until the turn ends. */
async function ask(chat: ChatHooks, question: string, conversationId?: string, options: { selectionId?: string; onPost?: (m: HostToWebview, stop: () => void) => void } = {}) {
  const requestId = `r${Math.random().toString(36).slice(2)}`;
  const posted: HostToWebview[] = [];
  const subscription = chat.onDidPost((message) => {
    if ('requestId' in message && message.requestId !== requestId) return;
    posted.push(message);
    options.onPost?.(message, () => void chat.send({ type: 'stop', requestId }));
  });
  try {
    await chat.send({ type: 'ask', requestId, question, ...(conversationId ? { conversationId } : {}), ...(options.selectionId ? { selectionId: options.selectionId } : {}) });
  } finally {
    subscription.dispose();
  }
  const of = <T extends HostToWebview['type']>(type: T) => posted.filter((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
  return { posted, of, done: of('turnDone')[0], failed: of('turnFailed')[0], text: of('delta').map((d) => d.text).join('') };
}

describe('Chat in a real VS Code extension host', () => {
  let root: string;
  let chat: ChatHooks;
  let mock: MockAnthropic;
  const llm = () => vscode.workspace.getConfiguration('repoWiki.llm');

  before(async () => {
    root = workspaceRoot();
    const api = await activateExtension();
    chat = api.hooks.chat as ChatHooks;
    mock = await startMockAnthropic({ validKey: API_KEY });
    await llm().update('baseUrl', mock.url, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    delete process.env.ANTHROPIC_API_KEY;
    await llm().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await mock?.close();
  });

  it('answers offline from retrieval when there is no API key, labelled and with page links', async () => {
    delete process.env.ANTHROPIC_API_KEY;
    const turn = await ask(chat, 'How do errors become HTTP responses?');
    assert.ok(turn.done, JSON.stringify(turn.failed));
    assert.equal(turn.done.turn.offline, true);
    assert.match(turn.done.turn.answer, /^\*\*Offline answer\*\*/);
    assert.match(turn.done.turn.answer, /\[\[errors-become-responses-at-the-edge\]\]/);
    assert.equal(turn.done.turn.pages[0].slug, 'errors-become-responses-at-the-edge');
    assert.equal(mock.requests.length, 0, 'nothing was sent to a model');
  });

  it('streams a model answer through the real SDK and persists the turn', async () => {
    process.env.ANTHROPIC_API_KEY = API_KEY;
    mock.script({ text: 'Handlers throw [[errors-become-responses-at-the-edge]] style `src/errors.ts:HttpError`.', chunks: 6 });
    const turn = await ask(chat, 'How do errors become HTTP responses?');
    assert.ok(turn.done, JSON.stringify(turn.failed));
    assert.ok(turn.of('delta').length >= 3, 'the answer arrived in several deltas');
    assert.equal(turn.text, turn.done.turn.answer);
    assert.equal(turn.done.turn.offline, false);
    const request = mock.requests.at(-1)!;
    assert.equal(request.apiKey, API_KEY);
    assert.equal(request.body.model, 'claude-sonnet-5-5');
    assert.deepEqual(request.body.system.map((block) => !!block.cache_control), [false, true], 'the catalog prefix is cached');
    assert.match(request.body.system[1].text, /\[\[request-pipeline\]\] Request pipeline/);
    assert.match(textOf(request.body.messages.at(-1)!.content), /<page slug="errors-become-responses-at-the-edge"/);
    assert.deepEqual((request.body as { tool_choice?: unknown }).tool_choice, { type: 'auto' }, 'the model may read the code');
    const history = await waitFor('the conversation in the history', async () => {
      const list = await conversations();
      return list.find((c) => c.id === turn.done.conversation.id);
    });
    assert.equal(history.title, 'How do errors become HTTP responses?');
  });

  it('carries prior turns with truncated answers, and folds a short follow-up into retrieval', async () => {
    process.env.ANTHROPIC_API_KEY = API_KEY;
    await vscode.workspace.getConfiguration('repoWiki.chat').update('priorAnswerChars', 40, vscode.ConfigurationTarget.Workspace);
    try {
      mock.script({ text: `Middleware runs in order. ${'detail '.repeat(50)}` }, { text: 'Because the pipeline composes them.' });
      const first = await ask(chat, 'In what order does middleware run?');
      const second = await ask(chat, 'and why?', first.done.conversation.id);
      assert.ok(second.done, JSON.stringify(second.failed));
      const messages = mock.requests.at(-1)!.body.messages;
      assert.deepEqual(messages.slice(0, 2).map((m) => m.role), ['user', 'assistant']);
      assert.equal(messages[0].content, 'In what order does middleware run?');
      assert.ok(messages[1].content.length <= 45 && messages[1].content.endsWith('[…]'), messages[1].content);
      assert.ok(second.done.turn.pages.some((p) => p.slug === 'middleware-conventions'), 'the follow-up still retrieved the middleware page');
      const stored = await waitFor('both turns stored', async () => {
        await chat.send({ type: 'openConversation', conversationId: first.done.conversation.id });
        return lastPosted('conversation');
      });
      assert.equal(stored.turns.length, 2);
      assert.ok(stored.turns[0].answer.length > 300, 'full answers are kept');
    } finally {
      await vscode.workspace.getConfiguration('repoWiki.chat').update('priorAnswerChars', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('a rejected key fails the turn with "Set up a model" as the next step, and never shows the key', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-wrong-key-999';
    const turn = await ask(chat, 'How are routes matched?');
    assert.ok(turn.failed);
    assert.equal(turn.failed.action, 'setUpModel');
    assert.match(turn.failed.message, /Set up a model/);
    assert.doesNotMatch(turn.failed.message, /sk-ant-wrong-key-999/);
    process.env.ANTHROPIC_API_KEY = API_KEY;
  });

  it('retries a 429 after retry-after and tells the user', async () => {
    process.env.ANTHROPIC_API_KEY = API_KEY;
    mock.script({ status: 429, retryAfter: 1 }, { text: 'Routes are matched segment by segment.' });
    const turn = await ask(chat, 'How are routes matched?');
    assert.ok(turn.done, JSON.stringify(turn.failed));
    const [retrying] = turn.of('retrying');
    assert.equal(retrying.status, 429);
    assert.ok(retrying.delayMs >= 1000, `waited ${retrying.delayMs} ms`);
  });

  it('Stop aborts the stream and keeps what arrived', async () => {
    process.env.ANTHROPIC_API_KEY = API_KEY;
    mock.script({ hang: true, text: 'The first words' });
    const turn = await ask(chat, 'Explain the router', undefined, { onPost: (m, stop) => m.type === 'delta' && stop() });
    assert.ok(turn.done, JSON.stringify(turn.failed));
    assert.equal(turn.done.stopped, true);
    assert.match(turn.done.turn.answer, /_\(stopped\)_$/);
  });

  it("ignores a repository's .vscode/settings.json that points the API elsewhere, so the key cannot leave", async () => {
    const settingsFile = path.join(root, '.vscode', 'settings.json');
    const before = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : undefined;
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, JSON.stringify({ 'repoWiki.llm.baseUrl': 'http://127.0.0.1:9/attacker', 'repoWiki.chat.maxPriorTurns': 4 }));
    try {
      // The other setting in the same file shows the file was read.
      await waitFor('the workspace settings are read', () => vscode.workspace.getConfiguration('repoWiki.chat').get('maxPriorTurns') === 4);
      assert.equal(llm().get('baseUrl'), mock.url, 'the user setting stands');
      assert.equal(llm().inspect('baseUrl')?.workspaceValue, undefined);
      process.env.ANTHROPIC_API_KEY = API_KEY;
      const sent = mock.requests.length;
      const turn = await ask(chat, 'How do errors become HTTP responses?');
      assert.ok(turn.done, JSON.stringify(turn.failed));
      assert.equal(mock.requests.length, sent + 1, 'the request went to the configured API');
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      if (before === undefined) fs.rmSync(settingsFile);
      else fs.writeFileSync(settingsFile, before);
      await waitFor('the workspace settings are restored', () => vscode.workspace.getConfiguration('repoWiki.chat').get('maxPriorTurns') !== 4);
    }
  });

  it('searches, renames, deletes with undo', async () => {
    process.env.ANTHROPIC_API_KEY = API_KEY;
    mock.script({ text: 'Header names are lower-cased by the pipeline: a zebra-unique-word.' });
    const turn = await ask(chat, 'Are header names case sensitive?');
    const id = turn.done.conversation.id;
    await chat.send({ type: 'search', query: 'zebra-unique-word' });
    const results = lastPosted('searchResults');
    assert.deepEqual(results?.hits.map((h) => h.conversationId), [id]);
    await chat.send({ type: 'rename', conversationId: id, title: 'Header casing' });
    assert.equal((await conversations()).find((c) => c.id === id)?.title, 'Header casing');
    await chat.send({ type: 'delete', conversationId: id });
    assert.equal(lastPosted('deleted')?.conversationId, id);
    assert.equal((await conversations()).some((c) => c.id === id), false);
    await chat.send({ type: 'undoDelete', conversationId: id });
    const restored = (await conversations()).find((c) => c.id === id);
    assert.equal(restored?.title, 'Header casing');
    assert.equal(restored?.turnCount, 1);
  });

  it('the loop: a conversation saved to the wiki is found and cited by the next conversation', async () => {
    process.env.ANTHROPIC_API_KEY = API_KEY;
    mock.script({ text: 'Deploys go through the blue-green switch in `src/pipeline.ts`; rollbacks flip it back.' });
    const a = await ask(chat, 'How do blue-green deploys and rollbacks work?');
    await chat.send({ type: 'saveToWiki', conversationId: a.done.conversation.id });
    const filed = lastPosted('filed');
    assert.equal(filed?.slug, 'how-do-blue-green-deploys-and-rollbacks-work');
    const pageFile = path.join(root, '.wiki', 'pages', `${filed!.slug}.md`);
    const page = fs.readFileSync(pageFile, 'utf8');
    assert.match(page, /^topic: conversations$/m);
    assert.match(page, new RegExp(`sources:.*conversation:${a.done.conversation.id}`));
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'index.json'), 'utf8'), /how-do-blue-green-deploys-and-rollbacks-work/);
    assert.match(fs.readFileSync(path.join(root, '.wiki', 'log.jsonl'), 'utf8'), /"op":"file-back"/);

    // Conversation B: the model cites whatever page the prompt put first.
    mock.script((body: RecordedRequest['body']) => ({ text: `See [[${/<page slug="([^"]+)"/.exec(textOf(body.messages.at(-1)!.content))?.[1]}]].` }));
    const b = await waitFor('the filed page to be indexed for retrieval', async () => {
      const turn = await ask(chat, 'What happens on a blue-green rollback?');
      return turn.done?.turn.pages[0]?.slug === filed!.slug ? turn : undefined;
    });
    assert.notEqual(b.done.conversation.id, a.done.conversation.id);
    assert.equal(b.done.turn.answer, `See [[${filed!.slug}]].`);

    // Saving A again overwrites the same page in place.
    await chat.send({ type: 'saveToWiki', conversationId: a.done.conversation.id });
    assert.equal(lastPosted('filed')?.slug, filed!.slug);
    assert.equal(fs.readdirSync(path.join(root, '.wiki', 'pages')).filter((f) => f.startsWith('how-do-blue-green')).length, 1);
  });

  it('"Ask about selection" attaches the code and the pages citing it', async () => {
    const uri = vscode.Uri.file(path.join(root, 'src', 'errors.ts'));
    const editor = await vscode.window.showTextDocument(uri);
    const line = editor.document.getText().split('\n').findIndex((l) => l.startsWith('export function toErrorResponse'));
    editor.selection = new vscode.Selection(line, 0, line + 3, 0);
    const posted = new Promise<Extract<HostToWebview, { type: 'selection' }>>((resolve) => {
      const subscription = chat.onDidPost((m) => m.type === 'selection' && (subscription.dispose(), resolve(m)));
    });
    await vscode.commands.executeCommand('repoWiki.askAboutSelection');
    const { chip, question } = await posted;
    assert.equal(question, 'Explain this in the context of the wiki');
    assert.deepEqual({ path: chip.path, start: chip.startLine, end: chip.endLine, language: chip.language }, { path: 'src/errors.ts', start: line + 1, end: line + 4, language: 'typescript' });
    assert.match(chip.preview, /export function toErrorResponse/);
    assert.ok(chip.pages.some((p) => p.slug === 'errors-become-responses-at-the-edge'), JSON.stringify(chip.pages));

    delete process.env.ANTHROPIC_API_KEY;
    const turn = await ask(chat, 'Explain this in the context of the wiki', undefined, { selectionId: chip.id });
    assert.equal(turn.done.turn.pages[0].slug, 'errors-become-responses-at-the-edge', 'pages citing the selection come first');
    assert.deepEqual(turn.done.turn.selection, { path: 'src/errors.ts', startLine: line + 1, endLine: line + 4 });
  });

  /** The latest message of a type the host posted (captured since the suite started). */
  function lastPosted<T extends HostToWebview['type']>(type: T): Extract<HostToWebview, { type: T }> | undefined {
    return [...allPosted].reverse().find((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
  }

  /** The history as the host last posted it (it re-posts after every change). */
  async function conversations() {
    return lastPosted('conversations')?.items ?? [];
  }

  const allPosted: HostToWebview[] = [];
  before(() => {
    chat.onDidPost((m) => allPosted.push(m));
  });
});
