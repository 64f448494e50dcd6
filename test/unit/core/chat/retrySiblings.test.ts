import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openConversationStore, type SqlJsConversationStore } from '../../../../src/adapters/store/sqlJsConversationStore';
import { ChatService, type ChatSettings } from '../../../../src/core/chat/chatService';
import { LlmError, messageText, type CompletionRequest, type LanguageModel } from '../../../../src/core/llm/languageModel';
import { WikiError } from '../../../../src/core/errors';
import type { WikiPage } from '../../../../src/core/model';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryFileSystem, pageText, ScriptedModel } from '../../../support/fakes';

const SETTINGS: ChatSettings = { model: 'claude-test', maxTokens: 1000, maxPriorTurns: 5, priorAnswerChars: 500, pagesPerTurn: 3, maxToolRounds: 8, toolTokenBudget: 100_000 };

describe('Retry keeps both answers as siblings (real store)', () => {
  let dir: string;
  let store: SqlJsConversationStore;
  let pages: WikiPage[];
  beforeEach(async () => {
    const files = new MemoryFileSystem();
    files.write('/ws/.wiki/pages/router.md', pageText('Router', 'The router dispatches a request to its handler by method and path.\n', { tags: '[routing]' }));
    files.write('/ws/.wiki/pages/errors.md', pageText('Errors become responses', 'Handlers throw HttpError; the pipeline catches it.\n'));
    files.write('/ws/.wiki/pages/testing.md', pageText('Testing handlers', 'Tests call the pipeline in process with fake requests.\n'));
    files.write('/ws/.wiki/log.jsonl', '');
    pages = await new Wiki('/ws', files, fixedClock()).loadPages();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-retry-'));
    store = (await openConversationStore(dir)).store;
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const chatWith = (model: LanguageModel) => new ChatService({ store, pages: async () => pages, chooseModel: async () => ({ model }), settings: () => SETTINGS, now: () => new Date('2026-11-28T10:00:00Z') });
  const contents = (request: CompletionRequest) => request.messages.map((message) => messageText(message));

  it('asks the last question again without its first answer, shows the new one, and the next turn continues from the one shown', async () => {
    const model = new ScriptedModel(['first answer', 'second answer', 'third answer', 'after the switch']);
    const chat = chatWith(model);
    const first = await chat.ask({ question: 'How does the router dispatch a request?' }, { onText: () => {} });
    assert.equal(first.turn.answer, 'first answer');
    const retried = await chat.retry(first.conversation.id, { onText: () => {} });
    assert.deepEqual([retried.turn.index, retried.turn.sibling, retried.turn.siblingCount], [0, 1, 2]);
    assert.deepEqual(contents(model.requests[1]).slice(0, -1), [], 'the retry carries no earlier turn: the first answer is not shown to the model');
    assert.match(contents(model.requests[1]).at(-1)!, /How does the router dispatch a request\?/);

    const followUp = await chat.ask({ conversationId: first.conversation.id, question: 'And the handlers?' }, { onText: () => {} });
    assert.equal(followUp.turn.index, 1);
    assert.deepEqual(contents(model.requests[2]).slice(0, 2), ['How does the router dispatch a request?', 'second answer'], 'continues from the answer shown');

    await store.showSibling(first.conversation.id, 0, 0);
    await chat.ask({ conversationId: first.conversation.id, question: 'How does the router pick a handler by path?' }, { onText: () => {} });
    assert.deepEqual(contents(model.requests[3]).slice(0, 2), ['How does the router dispatch a request?', 'first answer'], 'switching back changes what the next turn continues from');
    const record = (await store.get(first.conversation.id))!;
    assert.deepEqual(record.turns.map((turn) => [turn.index, turn.answer]), [[0, 'first answer'], [1, 'third answer'], [2, 'after the switch']]);
    assert.deepEqual(record.siblings?.map((turn) => turn.answer), ['second answer']);
  });

  it('keeps the first answer when the retry fails, and refuses an empty conversation', async () => {
    const chat = chatWith(new ScriptedModel(['only answer', new LlmError('overloaded', 'busy')]));
    const first = await chat.ask({ question: 'How does the router dispatch a request?' }, { onText: () => {} });
    await assert.rejects(chat.retry(first.conversation.id, { onText: () => {} }), (error: LlmError) => error.kind === 'overloaded');
    const record = (await store.get(first.conversation.id))!;
    assert.deepEqual([record.turns.map((turn) => turn.answer), record.siblings], [['only answer'], undefined]);
    const empty = await store.create('Empty');
    await assert.rejects(chat.retry(empty.id, { onText: () => {} }), (error: WikiError) => error.code === 'turn-not-found');
  });
});
