import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HostToWebview } from '../../../src/shared/protocol';
import type { ChatHooks } from '../../../src/vscode/chat/chatView';
import { chatWithMockModel, textOf, waitFor, type MockAnthropic } from '../helpers';

const API_KEY = 'sk-ant-follow-ups-1234';

// The chat view's follow-ups, driven through the host side as the webview drives it: Edit forks a
// conversation, selected turns are saved as a page, and the model titles a conversation.
describe('Chat view follow-ups in a real VS Code extension host', () => {
  let root: string;
  let chat: ChatHooks;
  let mock: MockAnthropic;
  let close: () => Promise<void>;
  const posted: HostToWebview[] = [];
  const last = <T extends HostToWebview['type']>(type: T) => [...posted].reverse().find((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
  const listed = () => last('conversations')?.items ?? [];

  before(async () => {
    ({ root, chat, mock, close } = await chatWithMockModel(API_KEY));
    process.env.ANTHROPIC_API_KEY = API_KEY;
    chat.onDidPost((message) => posted.push(message));
  });

  after(async () => {
    mock.setTitleReply(undefined);
    await close();
  });

  /** A conversation of these questions, each answered by the scripted text. */
  async function conversation(turns: [question: string, answer: string][]): Promise<string> {
    let id: string | undefined;
    for (const [question, answer] of turns) {
      mock.script({ text: answer });
      const requestId = `f${Math.random().toString(36).slice(2)}`;
      await chat.send({ type: 'ask', requestId, question, ...(id ? { conversationId: id } : {}) });
      const done = posted.find((m): m is Extract<HostToWebview, { type: 'turnDone' }> => m.type === 'turnDone' && m.requestId === requestId);
      assert.ok(done, `"${question}" was answered: ${JSON.stringify(posted.filter((m) => 'requestId' in m && m.requestId === requestId).at(-1))}`);
      id = done.conversation.id;
    }
    return id!;
  }

  /** Sends an edit as the view does and returns what the host posted for it. */
  async function edit(conversationId: string, turnIndex: number, question: string) {
    const requestId = `e${Math.random().toString(36).slice(2)}`;
    await chat.send({ type: 'editQuestion', requestId, conversationId, turnIndex, question });
    const of = <T extends HostToWebview['type']>(type: T) => posted.filter((m): m is Extract<HostToWebview, { type: T }> => m.type === type && 'requestId' in m && m.requestId === requestId);
    return { started: of('turnStarted')[0], done: of('turnDone')[0], failed: of('turnFailed')[0] };
  }

  async function opened(conversationId: string) {
    await chat.send({ type: 'openConversation', conversationId });
    const message = last('conversation')!;
    assert.equal(message.conversation?.id, conversationId);
    return message;
  }

  it('editing a question forks the conversation at that turn and leaves the original untouched', async () => {
    const original = await conversation([
      ['How does the pipeline order middleware?', 'In registration order.'],
      ['Where are errors caught?', 'At the edge.'],
      ['What does the router match on?', 'Method and path.'],
    ]);
    const before = await opened(original);

    mock.script({ text: 'In the error middleware, first.' });
    const { started, done, failed } = await edit(original, 1, 'Where are validation errors caught?');
    assert.ok(done, JSON.stringify(failed));
    const fork = done.conversation.id;
    assert.notEqual(fork, original);
    assert.equal(started.conversationId, fork, 'the view follows the fork from the start');
    assert.equal(done.turn.index, 1, 'the edited question is turn 2 of the fork');
    assert.deepEqual([done.conversation.parentConversationId, done.conversation.forkedAtTurn], [original, 1]);

    // The edited question was asked with turn 1 only as its history.
    const messages = mock.requests.at(-1)!.body.messages;
    assert.equal(textOf(messages[0].content), 'How does the pipeline order middleware?');
    assert.doesNotMatch(JSON.stringify(messages), /Where are errors caught\?|What does the router match on\?/);

    assert.deepEqual((await opened(original)).turns, before.turns, 'the original is exactly as it was');
    const forked = await opened(fork);
    assert.deepEqual(forked.turns.map((t) => [t.question, t.answer]), [
      ['How does the pipeline order middleware?', 'In registration order.'],
      ['Where are validation errors caught?', 'In the error middleware, first.'],
    ]);
    const item = await waitFor('the fork in the history, with its lineage', () => listed().find((c) => c.id === fork));
    assert.deepEqual([item.parentConversationId, item.forkedAtTurn], [original, 1]);
    assert.equal(listed().find((c) => c.id === original)?.turnCount, 3);
  });

  it('an edit of a question the conversation does not have is refused, and makes no fork', async () => {
    const original = await conversation([['What is a route table?', 'A list of routes.']]);
    const count = listed().length;
    const { done, failed } = await edit(original, 5, 'What is a route?');
    assert.equal(done, undefined);
    assert.match(failed.message, /Cannot edit question 6/);
    assert.equal(listed().length, count);
  });

  it('saves the selected turns as a page of their own, and saving them again updates that page', async () => {
    const id = await conversation([
      ['How are requests logged?', 'One line per request.'],
      ['Where does the logger live?', 'In `src/pipeline.ts`.'],
      ['Can logging be turned off?', 'With a setting.'],
    ]);
    await chat.send({ type: 'saveTurns', conversationId: id, turnIndexes: [1, 2] });
    const saved = /^Saved turns 2–3 as \[\[([a-z0-9-]+)\]\]\.$/.exec(last('notice')?.message ?? '');
    assert.ok(saved, last('notice')?.message);
    const slug = saved[1];
    assert.match(slug, /-turns-2-3$/);
    const file = path.join(root, '.wiki', 'pages', `${slug}.md`);
    const page = fs.readFileSync(file, 'utf8');
    assert.match(page, /## Where does the logger live\?/);
    assert.match(page, /## Can logging be turned off\?/);
    assert.doesNotMatch(page, /## How are requests logged\?/);
    assert.match(page, new RegExp(`conversation:${id}#turns-2-3`));
    assert.equal(listed().find((c) => c.id === id)?.filedPage, undefined, 'the whole conversation was not filed');

    await chat.send({ type: 'rename', conversationId: id, title: 'Logging, renamed' });
    await chat.send({ type: 'saveTurns', conversationId: id, turnIndexes: [1, 2] });
    assert.equal(last('notice')?.message, `Updated turns 2–3 as [[${slug}]].`);
    assert.equal(fs.readdirSync(path.dirname(file)).filter((name) => name.endsWith('-turns-2-3.md')).length, 1, 'the same page, updated in place');
  });

  it('proposes a title after the first answer; never replaces a renamed one; a fork gets its own', async () => {
    const titleCalls = mock.titleRequests.length;
    mock.setTitleReply({ text: '"Middleware and auth."' });
    try {
      const id = await conversation([['Which middleware runs before the auth check?', 'The logger and the body parser.']]);
      const titled = await waitFor('the proposed title in the history', () => listed().find((c) => c.id === id && c.title === 'Middleware and auth'));
      assert.ok(titled);
      assert.equal(mock.titleRequests.length, titleCalls + 1, 'one title call');
      const call = mock.titleRequests.at(-1)!.body;
      assert.equal(call.max_tokens, 16);
      assert.match(JSON.stringify(call.messages), /Which middleware runs before the auth check\?/);

      mock.script({ text: 'Yes, always.' });
      await chat.send({ type: 'ask', requestId: `r${Date.now()}`, conversationId: id, question: 'Always in that order?' });
      assert.equal(mock.titleRequests.length, titleCalls + 1, 'a later answer keeps the title');

      await chat.send({ type: 'rename', conversationId: id, title: 'My middleware notes' });
      mock.setTitleReply({ text: 'Body parser limits' });
      mock.script({ text: 'A 1 MB limit.' });
      const { done } = await edit(id, 1, 'What limits does the body parser have?');
      assert.ok(done);
      const fork = await waitFor('the fork\'s own title', () => listed().find((c) => c.id === done.conversation.id && c.title === 'Body parser limits'));
      assert.ok(fork);
      assert.equal(listed().find((c) => c.id === id)?.title, 'My middleware notes', 'the renamed original keeps its title');
    } finally {
      mock.setTitleReply(undefined);
    }
  });
  it('Retry keeps both answers as siblings, "1 / 2" switches between them, and the next turn continues from the one shown', async () => {
    const id = await conversation([
      ['How does the router match a request?', 'By method, then path.'],
      ['What happens when nothing matches?', 'A 404 from the fallback handler.'],
    ]);
    mock.script({ text: 'The not-found middleware answers 404.' });
    const requestId = `s${Math.random().toString(36).slice(2)}`;
    await chat.send({ type: 'retry', requestId, conversationId: id });
    const done = posted.find((m): m is Extract<HostToWebview, { type: 'turnDone' }> => m.type === 'turnDone' && m.requestId === requestId);
    assert.ok(done, JSON.stringify(posted.filter((m) => 'requestId' in m && m.requestId === requestId).at(-1)));
    assert.deepEqual([done.turn.index, done.turn.sibling, done.turn.siblingCount, done.turn.answer], [1, 1, 2, 'The not-found middleware answers 404.']);
    // The retry was asked with turn 1 as its history, and never saw the answer it replaces.
    const retried = mock.requests.at(-1)!.body.messages.map((m: { content: unknown }) => textOf(m.content));
    assert.deepEqual(retried.slice(0, 2), ['How does the router match a request?', 'By method, then path.']);
    assert.ok(!retried.some((text: string) => text.includes('fallback handler')), 'the first answer is not shown to the model');

    let shown = await opened(id);
    assert.deepEqual(shown.turns.map((t) => [t.index, t.sibling, t.siblingCount, t.answer]), [[0, undefined, undefined, 'By method, then path.'], [1, 1, 2, 'The not-found middleware answers 404.']]);
    await chat.send({ type: 'showSibling', conversationId: id, turnIndex: 1, sibling: 0 });
    shown = last('conversation')!;
    assert.deepEqual(shown.turns.map((t) => [t.sibling, t.answer]).at(-1), [0, 'A 404 from the fallback handler.']);

    mock.script({ text: 'It logs the path first.' });
    await chat.send({ type: 'ask', requestId: `n${Date.now()}`, conversationId: id, question: 'Does the fallback log anything?' });
    const next = mock.requests.at(-1)!.body.messages.map((m: { content: unknown }) => textOf(m.content));
    assert.deepEqual(next.slice(2, 4), ['What happens when nothing matches?', 'A 404 from the fallback handler.'], 'the next turn continues from the answer shown');

    await chat.send({ type: 'showSibling', conversationId: id, turnIndex: 1, sibling: 7 });
    assert.match(last('notice')!.message, /has no answer 8/);
  });
  it('a conversation started in the terminal appears in the editor\'s history, and continues there', async () => {
    // The real CLI, on the same per-user store the extension host uses (REPO_WIKI_DATA_DIR is set for it).
    const cli = path.resolve(__dirname, '../../../../dist/cli.js');
    const run = spawnSync(process.execPath, [cli, 'query', 'What does the router match on?', '--conversation', 'from-terminal', '--workspace', root, '--offline'], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /Conversation from-terminal · turn 1/);

    await chat.send({ type: 'listConversations' }); // the history panel asks for this when shown
    assert.ok(listed().some((c) => c.id === 'from-terminal' && c.turnCount === 1), JSON.stringify(listed().map((c) => c.id)));
    const opened = await chat.send({ type: 'openConversation', conversationId: 'from-terminal' }).then(() => last('conversation')!);
    assert.equal(opened.turns[0].question, 'What does the router match on?');

    mock.script({ text: 'Method first, then the path segments.' });
    await chat.send({ type: 'ask', requestId: `t${Date.now()}`, conversationId: 'from-terminal', question: 'And in which order?' });
    const sent = mock.requests.at(-1)!.body.messages.map((m: { content: unknown }) => textOf(m.content));
    assert.equal(sent[0], 'What does the router match on?', 'the terminal\'s turn is the editor\'s prior context');
  });
});
