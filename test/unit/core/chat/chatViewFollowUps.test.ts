import * as assert from 'node:assert/strict';
import { ChatService, type ChatSettings, type ModelChoice } from '../../../../src/core/chat/chatService';
import type { ConversationRecord, Turn } from '../../../../src/core/chat/conversation';
import { conversationToJson, conversationToMarkdown } from '../../../../src/core/chat/export';
import { fileBackTurns } from '../../../../src/core/chat/fileBack';
import { parseConversationExport } from '../../../../src/core/chat/import';
import { forkForEdit, rangeOfTurnIndexes } from '../../../../src/core/chat/lineage';
import { cleanTitle, TITLE_PROMPT } from '../../../../src/core/chat/title';
import { WikiError } from '../../../../src/core/errors';
import { LlmError } from '../../../../src/core/llm/languageModel';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { parseWebviewMessage } from '../../../../src/shared/protocol';
import { fixedClock, MemoryConversationStore, MemoryFileSystem, pageText, ScriptedModel } from '../../../support/fakes';

const ROOT = '/ws';
const SETTINGS: ChatSettings = { model: 'claude-test', maxTokens: 1000, maxPriorTurns: 5, priorAnswerChars: 500, pagesPerTurn: 3, maxToolRounds: 0, toolTokenBudget: 100_000 };

async function setUp(choice: ModelChoice) {
  const fs = new MemoryFileSystem();
  // Every question of these tests matches this page well, so the model (not the no-match answer) answers.
  fs.write(`${ROOT}/.wiki/pages/auth.md`, pageText('Auth flow', 'Tokens are refreshed by the session middleware before a token expires; what happens when it expires: tokens are revoked. Where sessions are stored: the middleware.\n'));
  fs.write(`${ROOT}/.wiki/log.jsonl`, '');
  const wiki = new Wiki(ROOT, fs, fixedClock());
  const pages = await wiki.loadPages();
  const store = new MemoryConversationStore();
  const titleFailures: unknown[] = [];
  const chat = new ChatService({
    store, pages: async () => pages, chooseModel: async () => choice, settings: () => SETTINGS, now: () => new Date('2026-11-22T10:00:00Z'),
    onTitleFailed: (error) => titleFailures.push(error),
  });
  return { fs, wiki, store, chat, titleFailures };
}

const quiet = { onText: () => undefined };

/** A conversation of `n` stored turns asked through the service, as the chat view asks them. */
async function conversationOf(chat: ChatService, questions: string[]): Promise<string> {
  let id: string | undefined;
  for (const question of questions) id = (await chat.ask({ conversationId: id, question }, quiet)).conversation.id;
  return id!;
}

describe('chat view: editing a question forks the conversation', () => {
  it('the fork holds turns 1..k-1 and the edited question as turn k; the original is untouched', async () => {
    const { store, chat } = await setUp({ offline: 'no-key' });
    const original = await conversationOf(chat, ['How are tokens refreshed?', 'Where is the session middleware?', 'What happens when a token expires?']);
    const before = structuredClone(await store.get(original));
    const result = await chat.edit({ conversationId: original, turnIndex: 2, question: 'What happens when a refresh token expires?' }, quiet);

    assert.deepEqual(await store.get(original), before, 'the original conversation is exactly as it was');
    const fork = (await store.get(result.conversation.id))!;
    assert.notEqual(fork.conversation.id, original);
    assert.deepEqual(fork.turns.map((t) => [t.index, t.question]), [[0, 'How are tokens refreshed?'], [1, 'Where is the session middleware?'], [2, 'What happens when a refresh token expires?']]);
    assert.deepEqual(fork.turns.slice(0, 2).map((t) => t.answer), before!.turns.slice(0, 2).map((t) => t.answer), 'the shared turns are copied whole');
    assert.equal(fork.conversation.parentConversationId, original);
    assert.equal(fork.conversation.forkedAtTurn, 2, 'forked after turn 2: it shares turns 1..2');
    assert.equal(result.turn.index, 2);
  });

  it('editing the first question forks with no shared turns', async () => {
    const { store, chat } = await setUp({ offline: 'no-key' });
    const original = await conversationOf(chat, ['How are tokens refreshed?', 'And revoked?']);
    const result = await chat.edit({ conversationId: original, turnIndex: 0, question: 'How are sessions stored?' }, quiet);
    const fork = (await store.get(result.conversation.id))!;
    assert.deepEqual(fork.turns.map((t) => t.question), ['How are sessions stored?']);
    assert.equal(fork.conversation.forkedAtTurn, 0);
    assert.equal((await store.get(original))!.turns.length, 2);
  });

  it('keeps the selection the edited question was asked about', async () => {
    const { store, chat } = await setUp({ offline: 'no-key' });
    const selection = { path: 'src/auth.ts', startLine: 1, endLine: 3, language: 'typescript', text: 'refresh()', truncated: false };
    const first = await chat.ask({ question: 'What does this do?', selection }, quiet);
    const result = await chat.edit({ conversationId: first.conversation.id, turnIndex: 0, question: 'When is this called?' }, quiet);
    assert.deepEqual((await store.get(result.conversation.id))!.turns[0].context.selection, selection);
  });

  it('a failed edit leaves no fork behind and the original as it was', async () => {
    const model = new ScriptedModel(['Refreshed by the middleware.', 'Auth flow', new LlmError('overloaded', 'The model is overloaded.')]);
    const { store, chat } = await setUp({ model });
    const original = await conversationOf(chat, ['How are tokens refreshed?']);
    await chat.proposeTitle(original);
    const before = structuredClone(await store.list());
    await assert.rejects(chat.edit({ conversationId: original, turnIndex: 0, question: 'How are tokens revoked?' }, quiet), /overloaded/);
    assert.deepEqual(await store.list(), before);
  });

  it('refuses a question the conversation does not have, and a conversation that is gone', async () => {
    const { chat } = await setUp({ offline: 'no-key' });
    const original = await conversationOf(chat, ['How are tokens refreshed?']);
    await assert.rejects(chat.edit({ conversationId: original, turnIndex: 1, question: 'x' }, quiet), (e: unknown) => e instanceof WikiError && e.code === 'invalid-turns');
    await assert.rejects(chat.edit({ conversationId: 'gone', turnIndex: 0, question: 'x' }, quiet), (e: unknown) => e instanceof WikiError && e.code === 'conversation-not-found');
  });
});

describe('chat view: titles', () => {
  it('after the first answer the model proposes a short title in one small call; later answers keep it', async () => {
    const model = new ScriptedModel(['Refreshed by the middleware.', '"Token refresh flow."', 'It expires.']);
    const { store, chat } = await setUp({ model });
    const id = await conversationOf(chat, ['How are tokens refreshed?']);
    const titled = await chat.proposeTitle(id);
    assert.deepEqual([titled?.title, titled?.titleSource], ['Token refresh flow', 'model']);
    const call = model.requests[1];
    assert.equal(call.maxTokens, 16);
    assert.equal(call.system?.[0].text, TITLE_PROMPT);
    assert.match(JSON.stringify(call.messages), /How are tokens refreshed\?/);

    await chat.ask({ conversationId: id, question: 'And when it expires?' }, quiet);
    assert.equal(await chat.proposeTitle(id), undefined);
    assert.equal(model.requests.length, 3, 'no second title call');
    assert.equal((await store.get(id))!.conversation.title, 'Token refresh flow');
  });

  it('a proposed title that equals the question still settles it: no second title call', async () => {
    const model = new ScriptedModel(['Refreshed by the middleware.', 'How are tokens refreshed?', 'It expires.']);
    const { store, chat } = await setUp({ model });
    const id = await conversationOf(chat, ['How are tokens refreshed?']);
    assert.equal((await chat.proposeTitle(id))?.titleSource, 'model');
    await chat.ask({ conversationId: id, question: 'And when it expires?' }, quiet);
    assert.equal(await chat.proposeTitle(id), undefined);
    assert.equal(model.requests.length, 3);
    assert.equal((await store.get(id))!.conversation.title, 'How are tokens refreshed?');
  });

  it('never replaces a title the user renamed, and does not even ask the model', async () => {
    const model = new ScriptedModel(['Refreshed by the middleware.']);
    const { store, chat } = await setUp({ model });
    const id = await conversationOf(chat, ['How are tokens refreshed?']);
    await store.rename(id, 'My notes on tokens');
    assert.equal(await chat.proposeTitle(id), undefined);
    assert.equal(model.requests.length, 1);
    assert.equal((await store.get(id))!.conversation.title, 'My notes on tokens');
  });

  it('never replaces a title from before titles had a source (it may have been renamed)', async () => {
    const model = new ScriptedModel(['Auth flow']);
    const { store, chat } = await setUp({ model });
    const record: ConversationRecord = { conversation: { id: 'legacy', title: 'Legacy title', created: 'x', updated: 'x', turnCount: 1, inputTokens: 0, outputTokens: 0, tags: [] }, turns: [storedTurn('legacy', 0)] };
    await store.restore(record);
    assert.equal(await chat.proposeTitle('legacy'), undefined);
    assert.equal(model.requests.length, 0);
  });

  it('offline, a conversation keeps its title from the question, and a fork gets one from the question it went on with', async () => {
    const { store, chat } = await setUp({ offline: 'no-key' });
    const id = await conversationOf(chat, ['How are tokens refreshed?']);
    assert.equal(await chat.proposeTitle(id), undefined);
    assert.equal((await store.get(id))!.conversation.title, 'How are tokens refreshed?');
    const fork = await chat.edit({ conversationId: id, turnIndex: 0, question: 'How are tokens revoked?' }, quiet);
    assert.equal(fork.conversation.title, 'How are tokens refreshed? (fork)');
    const titled = await chat.proposeTitle(fork.conversation.id);
    assert.deepEqual([titled?.title, titled?.titleSource], ['How are tokens revoked?', 'question']);
  });

  it('a fork gets its own model title; a failed title call is reported and the title stays', async () => {
    const model = new ScriptedModel(['Refreshed by the middleware.', 'Token refresh', 'Revoked by the API.', 'Token revocation', 'x', new LlmError('network', 'The stream was cut.')]);
    const { store, chat, titleFailures } = await setUp({ model });
    const id = await conversationOf(chat, ['How are tokens refreshed?']);
    await chat.proposeTitle(id);
    const fork = await chat.edit({ conversationId: id, turnIndex: 0, question: 'How are tokens revoked?' }, quiet);
    assert.equal((await chat.proposeTitle(fork.conversation.id))?.title, 'Token revocation');
    assert.equal((await store.get(id))!.conversation.title, 'Token refresh', 'the original keeps its own');

    const other = await conversationOf(chat, ['Where are sessions stored?']);
    assert.equal(await chat.proposeTitle(other), undefined);
    assert.equal(titleFailures.length, 1);
    assert.equal((await store.get(other))!.conversation.title, 'Where are sessions stored?');
  });

  it('cleans what the model returns into one title line', () => {
    assert.equal(cleanTitle('Title: "Auth flow."\nExtra words'), 'Auth flow');
    assert.equal(cleanTitle('**Session storage**'), 'Session storage');
    assert.equal(cleanTitle('  '), '');
    assert.ok(cleanTitle('word '.repeat(40)).length <= 80);
  });
});

describe('chat view: saving selected turns', () => {
  it('the view\'s checked turns become a range, and saving them again updates the same page', async () => {
    const { fs, wiki, store, chat } = await setUp({ offline: 'no-key' });
    const id = await conversationOf(chat, ['How are tokens refreshed?', 'Where is the middleware?', 'What about revocation?']);
    const record = (await store.get(id))!;
    const range = rangeOfTurnIndexes([1, 2], record.turns.length);
    assert.deepEqual(range, { from: 2, to: 3 });
    const first = await fileBackTurns(wiki, record, range, '2026-11-22');
    assert.ok(first.created);
    const text = fs.text(`${ROOT}/.wiki/pages/${first.slug}.md`)!;
    assert.match(text, /## Where is the middleware\?/);
    assert.doesNotMatch(text, /## How are tokens refreshed\?/);
    await store.rename(id, 'Renamed');
    const again = await fileBackTurns(wiki, (await store.get(id))!, rangeOfTurnIndexes([1, 2], 3), '2026-11-23');
    assert.deepEqual([again.slug, again.created], [first.slug, false]);
    assert.equal((await store.get(id))!.conversation.filedPage, undefined, 'the whole conversation\'s page is not this one');
  });

  it('refuses turns that are not one run, or not in the conversation, saying what to select', () => {
    assert.match(refusal(() => rangeOfTurnIndexes([0, 2], 3)).userMessage, /not one run of turns\. Select turns next to each other/);
    assert.match(refusal(() => rangeOfTurnIndexes([], 3)).userMessage, /not one run/);
    assert.match(refusal(() => rangeOfTurnIndexes([2, 3], 3)).userMessage, /Turns 3-4 are not in this conversation/);
    assert.deepEqual(rangeOfTurnIndexes([0], 1), { from: 1, to: 1 });
  });
});

describe('chat view: the new webview messages', () => {
  it('editQuestion needs an id, a non-negative integer turn index and a non-empty capped question', () => {
    const ok = { type: 'editQuestion', requestId: 'r1', conversationId: 'c1', turnIndex: 2, question: 'Why?' };
    assert.deepEqual(parseWebviewMessage(ok), ok);
    assert.ok(parseWebviewMessage({ ...ok, turnIndex: 0 }));
    for (const turnIndex of [-1, 1.5, '2', Number.NaN, Infinity, 10_000, null]) assert.equal(parseWebviewMessage({ ...ok, turnIndex }), undefined, String(turnIndex));
    for (const question of ['', '   ', 'x'.repeat(20_001), 42]) assert.equal(parseWebviewMessage({ ...ok, question }), undefined);
    assert.equal(parseWebviewMessage({ ...ok, conversationId: '../x' }), undefined);
    assert.equal(parseWebviewMessage({ ...ok, requestId: undefined }), undefined);
    assert.equal(parseWebviewMessage({ ...ok, selectionId: 's1' }), undefined, 'no extra keys');
    const { turnIndex: _index, ...missing } = ok;
    assert.equal(parseWebviewMessage(missing), undefined);
  });

  it('saveTurns needs one ascending run of turn indexes', () => {
    const ok = { type: 'saveTurns', conversationId: 'c1', turnIndexes: [1, 2, 3] };
    assert.deepEqual(parseWebviewMessage(ok), ok);
    assert.ok(parseWebviewMessage({ ...ok, turnIndexes: [0] }));
    for (const turnIndexes of [[], [2, 1], [1, 3], [1, 1], [-1, 0], [0.5], ['1'], 'x', null, { 0: 1 }, Array.from({ length: 10_001 }, (_, i) => i)]) {
      assert.equal(parseWebviewMessage({ ...ok, turnIndexes }), undefined, JSON.stringify(turnIndexes).slice(0, 40));
    }
    assert.equal(parseWebviewMessage({ ...ok, conversationId: 'a b' }), undefined);
    assert.equal(parseWebviewMessage({ ...ok, extra: true }), undefined);
  });
});

describe('export format 3 and the title source', () => {
  it('round-trips a fork at turn 0 and its title source through JSON and Markdown', () => {
    const parent: ConversationRecord = {
      conversation: { id: 'parent', title: 'Auth flow', titleSource: 'user', created: '2026-11-22T10:00:00.000Z', updated: '2026-11-22T10:00:00.000Z', turnCount: 1, inputTokens: 1, outputTokens: 2, tags: [] },
      turns: [storedTurn('parent', 0)],
    };
    assert.deepEqual(parseConversationExport(conversationToJson(parent)), parent);
    const fork = forkForEdit(parent, 0, 'child', '2026-11-23T08:00:00.000Z');
    const withTurn = { ...fork, conversation: { ...fork.conversation, turnCount: 1, inputTokens: 1, outputTokens: 2 }, turns: [storedTurn('child', 0)] };
    assert.deepEqual(parseConversationExport(conversationToJson(withTurn)), withTurn);
    assert.deepEqual(parseConversationExport(conversationToMarkdown(withTurn)), withTurn);
    assert.throws(() => parseConversationExport(JSON.stringify({ ...JSON.parse(conversationToJson(parent)), conversation: { ...parent.conversation, titleSource: 'admin' } })), /conversation\.titleSource is not question, fork, model or user/);
  });
});

function storedTurn(conversationId: string, index: number): Turn {
  return { conversationId, index, question: 'How are tokens refreshed?', answer: 'By the middleware.', context: { pages: [], offline: true }, model: 'offline', inputTokens: 1, outputTokens: 2, created: '2026-11-22T10:00:00.000Z' };
}

function refusal(run: () => unknown): WikiError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof WikiError, String(error));
    return error;
  }
  return assert.fail('expected a refusal');
}
