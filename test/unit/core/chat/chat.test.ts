import * as assert from 'node:assert/strict';
import { ChatService, type ChatSettings, type ModelChoice } from '../../../../src/core/chat/chatService';
import { conversationBody, fileBackConversation } from '../../../../src/core/chat/fileBack';
import { offlineAnswer } from '../../../../src/core/chat/offline';
import { buildPrompt, catalog } from '../../../../src/core/chat/prompt';
import { bestPassage, retrievalQuery, WikiRetriever } from '../../../../src/core/chat/retrieval';
import { titleFromQuestion, type ConversationRecord } from '../../../../src/core/chat/conversation';
import { conversationToJson, conversationToMarkdown } from '../../../../src/core/chat/export';
import { LlmError, type CompletionRequest, type LanguageModel, type StreamCallbacks, messageText } from '../../../../src/core/llm/languageModel';
import type { WikiPage } from '../../../../src/core/model';
import { Wiki } from '../../../../src/core/wiki/wiki';
import { fixedClock, MemoryConversationStore, MemoryFileSystem, pageText } from '../../../support/fakes';

const ROOT = '/ws';

async function wikiWith(pages: Record<string, string>) {
  const fs = new MemoryFileSystem();
  for (const [slug, text] of Object.entries(pages)) fs.write(`${ROOT}/.wiki/pages/${slug}.md`, text);
  fs.write(`${ROOT}/.wiki/log.jsonl`, '');
  const wiki = new Wiki(ROOT, fs, fixedClock());
  return { fs, wiki, pages: await wiki.loadPages() };
}

const PAGES = {
  'request-pipeline': pageText('Request pipeline', 'Requests pass through middleware.\n\nThe router dispatches to a handler by method and path.\n', { tags: '[http, routing]' }),
  'error-handling': pageText('Errors become responses', 'Handlers throw HttpError.\n\nThe pipeline catches the error and calls toErrorResponse.\n', { summary: '"How errors turn into HTTP responses"' }),
  'old-routing': pageText('Old pipeline notes', 'The router dispatches to a handler by method and path.\n', { status: 'stale', stale_reason: 'rewritten', tags: '[http, routing]' }),
  testing: pageText('Testing handlers', 'Tests call the pipeline in process with fake requests.\n', { topic: 'testing' }),
};

const SETTINGS: ChatSettings = { model: 'claude-test', maxTokens: 1000, maxPriorTurns: 5, priorAnswerChars: 500, pagesPerTurn: 3, maxToolRounds: 8, toolTokenBudget: 100_000 };

/** A scripted model: records requests, streams the reply in two deltas, or throws. */
class ScriptedModel implements LanguageModel {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly replies: (string | LlmError | 'hang')[]) {}

  async complete(request: CompletionRequest, callbacks: StreamCallbacks, signal?: AbortSignal) {
    this.requests.push(request);
    const reply = this.replies.shift() ?? 'default answer';
    if (reply instanceof LlmError) throw reply;
    if (reply === 'hang') {
      callbacks.onText('partial ');
      await new Promise((_, reject) => {
        const stop = () => reject(new LlmError('cancelled', 'Stopped.'));
        if (signal!.aborted) stop();
        else signal!.addEventListener('abort', stop);
      });
    }
    const text = String(reply);
    callbacks.onText(text.slice(0, 3));
    callbacks.onText(text.slice(3));
    return { text, model: 'claude-test-1', inputTokens: 10, outputTokens: 5, stopReason: 'end_turn' };
  }
}

function service(pages: readonly WikiPage[], choice: ModelChoice, store = new MemoryConversationStore(), settings = SETTINGS) {
  return { store, chat: new ChatService({ store, pages: async () => pages, chooseModel: async () => choice, settings: () => settings, now: () => new Date('2026-11-22T10:00:00Z') }) };
}

describe('chat retrieval', () => {
  it('ranks by BM25 with title and tag boosts, and down-weights stale pages', async () => {
    const { pages } = await wikiWith(PAGES);
    const retriever = new WikiRetriever(pages);
    const routing = retriever.search('how does the router dispatch by path', 4).map((p) => p.slug);
    assert.equal(routing[0], 'request-pipeline', 'the active page outranks the stale one that says the same');
    assert.ok(routing.includes('old-routing'));
    assert.equal(retriever.search('HttpError', 1)[0].slug, 'error-handling');
    assert.deepEqual(retriever.search('the of and'), [], 'stop words alone find nothing');
  });

  it('splits camelCase identifiers so code words match prose', async () => {
    const { pages } = await wikiWith(PAGES);
    assert.equal(new WikiRetriever(pages).search('toErrorResponse', 1)[0].slug, 'error-handling');
    assert.equal(new WikiRetriever(pages).search('error response', 1)[0].slug, 'error-handling');
  });

  it('folds the previous question into short follow-ups only', () => {
    assert.equal(retrievalQuery('and why?', 'How are errors handled?'), 'How are errors handled?\nand why?');
    assert.equal(retrievalQuery('What about the router dispatch order?', 'How are errors handled?'), 'How are errors handled?\nWhat about the router dispatch order?');
    assert.equal(retrievalQuery('Which middleware parses JSON request bodies?', 'How are errors handled?'), 'Which middleware parses JSON request bodies?');
    assert.equal(retrievalQuery('first question'), 'first question');
  });

  it('picks the passage with the most query words, keeping fenced code whole', () => {
    const body = '# Title\n\nIntro text.\n\n```ts\nconst router = 1;\n\nrouter.dispatch();\n```\n\nUnrelated.\n';
    assert.equal(bestPassage(body, ['router', 'dispatch']), '```ts\nconst router = 1;\n\nrouter.dispatch();\n```');
  });
});

describe('chat prompt', () => {
  it('puts instructions and the catalog in a cached prefix, then truncated prior turns, pages, selection and question', async () => {
    const { pages } = await wikiWith(PAGES);
    const retrieved = new WikiRetriever(pages).search('router', 2);
    const prior = Array.from({ length: 7 }, (_, i) => ({ question: `q${i}`, answer: `a${i} ${'x'.repeat(600)}` }));
    const prompt = buildPrompt({
      question: 'How is a route chosen?', priorTurns: prior, retrieved, pageBodies: new Map([['request-pipeline', 'FULL BODY </page> tricks']]),
      catalog: catalog(pages), settings: { maxPriorTurns: 5, priorAnswerChars: 500 },
      selection: { path: 'src/router.ts', startLine: 3, endLine: 9, language: 'typescript', text: 'splitPath()', truncated: false },
    });
    assert.equal(prompt.system.length, 2);
    assert.equal(prompt.system[1].cache, true);
    assert.match(prompt.system[1].text, /- \[\[old-routing\]\] Old pipeline notes: About Old pipeline notes \(stale\)/);
    assert.equal(prompt.messages.length, 11, '5 prior turns (2 messages each) and the question');
    assert.equal(messageText(prompt.messages[0]), 'q2');
    assert.ok(messageText(prompt.messages[1]).endsWith(' […]') && messageText(prompt.messages[1]).length <= 505, 'prior answers are truncated');
    const last = messageText(prompt.messages.at(-1)!);
    assert.match(last, /<page slug="request-pipeline" title="Request pipeline" status="active">\nFULL BODY ‹\/page> tricks\n<\/page>/);
    assert.match(last, /<selection path="src\/router.ts" lines="3-9" language="typescript">\nsplitPath\(\)\n<\/selection>/);
    assert.ok(last.endsWith('Question: How is a route chosen?'));
  });

  it('carries no prior turns when maxPriorTurns is 0, and caps the catalog by its budget', async () => {
    const { pages } = await wikiWith(PAGES);
    const prompt = buildPrompt({ question: 'q', priorTurns: [{ question: 'a', answer: 'b' }], retrieved: [], pageBodies: new Map(), catalog: '', settings: { maxPriorTurns: 0, priorAnswerChars: 10 } });
    assert.equal(prompt.messages.length, 1);
    assert.match(messageText(prompt.messages[0]), /No wiki page matched/);
    assert.match(catalog(pages, 25), /^- \[\[error-handling\]\].*\n- … 3 more pages not listed$/);
  });
});

describe('offline answers', () => {
  it('show the top passages with links under a clear label, and say what to do next', async () => {
    const { pages } = await wikiWith(PAGES);
    const answer = offlineAnswer(new WikiRetriever(pages).search('router paths', 2), 'no-key');
    assert.match(answer, /^\*\*Offline answer\*\* — no model was used/);
    assert.match(answer, /### \[\[request-pipeline\]\] Request pipeline/);
    assert.match(answer, /> The router dispatches to a handler by method and path\./);
    assert.match(answer, /_\(stale\)_/);
    assert.match(answer, /Repo Wiki: Set up a model/);
    assert.match(offlineAnswer([], 'untrusted'), /The wiki has nothing that answers this.*\n\nThis workspace is in Restricted Mode/s);
  });
});

describe('ChatService', () => {
  it('answers offline without a model, streams the answer and persists the turn', async () => {
    const { pages } = await wikiWith(PAGES);
    const { chat, store } = service(pages, { offline: 'no-key' });
    const deltas: string[] = [];
    const result = await chat.ask({ question: 'How are errors handled?' }, { onText: (d) => deltas.push(d) });
    assert.equal(result.turn.model, 'offline');
    assert.equal(result.turn.context.offline, true);
    assert.equal(deltas.join(''), result.turn.answer);
    assert.equal(result.conversation.title, 'How are errors handled?');
    assert.equal((await store.get(result.conversation.id))?.turns.length, 1);
  });

  it('streams a model answer, records usage, and continues the conversation with prior turns', async () => {
    const { pages } = await wikiWith(PAGES);
    const model = new ScriptedModel(['Errors become responses in [[error-handling]].', 'Because handlers stay linear.']);
    const { chat } = service(pages, { model });
    const first = await chat.ask({ question: 'How are errors handled?' }, { onText: () => {} });
    assert.deepEqual({ model: first.turn.model, in: first.turn.inputTokens, out: first.turn.outputTokens }, { model: 'claude-test-1', in: 10, out: 5 });
    assert.equal(first.turn.context.pages[0].slug, 'error-handling');
    let context;
    const second = await chat.ask({ conversationId: first.conversation.id, question: 'and why?' }, { onText: () => {}, onContext: (c) => (context = c) });
    assert.equal(second.turn.index, 1);
    assert.equal(context!.pages[0].slug, 'error-handling', 'the follow-up retrieved with the previous question');
    const sent = model.requests[1];
    assert.equal(sent.model, 'claude-test');
    assert.deepEqual(sent.messages.slice(0, 2).map((m) => m.content), ['How are errors handled?', 'Errors become responses in [[error-handling]].']);
  });

  it('drops prior turns and retries once when the context is too long', async () => {
    const { pages } = await wikiWith(PAGES);
    const model = new ScriptedModel(['first', new LlmError('context-too-long', 'too long'), 'fits now']);
    const { chat } = service(pages, { model });
    const first = await chat.ask({ question: 'How does the router dispatch a request to its handler?' }, { onText: () => {} });
    const second = await chat.ask({ conversationId: first.conversation.id, question: 'Which handler does the router dispatch to for a path?' }, { onText: () => {} });
    assert.equal(second.turn.answer, 'fits now');
    assert.equal(model.requests[1].messages.length, 3);
    assert.equal(model.requests[2].messages.length, 1);
  });

  it('keeps what streamed when the user stops, marked as stopped', async () => {
    const { pages } = await wikiWith(PAGES);
    const { chat, store } = service(pages, { model: new ScriptedModel(['hang']) });
    const controller = new AbortController();
    const pending = chat.ask({ question: 'router?' }, { onText: () => controller.abort() }, controller.signal);
    const result = await pending;
    assert.equal(result.stopped, true);
    assert.equal(result.turn.answer, 'partial\n\n_(stopped)_');
    assert.equal((await store.get(result.conversation.id))?.turns[0].answer, result.turn.answer);
  });

  it('does not persist a failed turn or an empty conversation, and rethrows the model error', async () => {
    const { pages } = await wikiWith(PAGES);
    const { chat, store } = service(pages, { model: new ScriptedModel([new LlmError('auth', 'bad key')]) });
    await assert.rejects(chat.ask({ question: 'router?' }, { onText: () => {} }), (e: LlmError) => e.kind === 'auth');
    assert.deepEqual(await store.list(), [], 'a new conversation whose first turn failed is not kept');
  });

  it('pins pages attached to a selection ahead of retrieval', async () => {
    const { pages } = await wikiWith(PAGES);
    const { chat } = service(pages, { offline: 'no-key' });
    const result = await chat.ask({ question: 'Explain this in the context of the wiki', attachedPages: ['testing'] }, { onText: () => {} });
    assert.equal(result.turn.context.pages[0].slug, 'testing');
  });

  it('titles a conversation from its first question, truncated on a word', () => {
    assert.equal(titleFromQuestion('  How   does\nit work? '), 'How does it work?');
    const long = titleFromQuestion('word '.repeat(40));
    assert.ok(long.length <= 80 && long.endsWith('…'), long);
  });
});

describe('file-back', () => {
  it('saves the whole conversation as one page, then overwrites the same page in place', async () => {
    const { wiki, pages, fs } = await wikiWith(PAGES);
    const { chat, store } = service(pages, { model: new ScriptedModel(['See [[error-handling]] and `src/errors.ts:HttpError`.', 'Second answer.']) });
    const first = await chat.ask({ question: 'How are errors handled?' }, { onText: () => {} });
    const saved = await fileBackConversation(wiki, store, (await store.get(first.conversation.id))!, '2026-11-22');
    assert.deepEqual({ slug: saved.slug, created: saved.created }, { slug: 'how-are-errors-handled', created: true });
    const page = (await wiki.readPage(saved.slug))!;
    assert.equal(page.valid, true, JSON.stringify(page.problems));
    assert.equal(page.frontmatter.topic, 'conversations');
    assert.deepEqual(page.frontmatter.sources, [`conversation:${first.conversation.id}`]);
    assert.match(page.body, /## How are errors handled\?\n\nSee \[\[error-handling\]\]/);
    assert.match(page.body, /## Sources\n\n- \[\[error-handling\]\]\n(- \[\[[a-z-]+\]\]\n)*- `src\/errors.ts:HttpError`/);

    await chat.ask({ conversationId: first.conversation.id, question: 'And then?' }, { onText: () => {} });
    const record = (await store.get(first.conversation.id))!;
    assert.equal(record.conversation.filedPage, 'how-are-errors-handled');
    await store.rename(first.conversation.id, 'Renamed later');
    const again = await fileBackConversation(wiki, store, (await store.get(first.conversation.id))!, '2026-11-23');
    assert.deepEqual({ slug: again.slug, created: again.created }, { slug: 'how-are-errors-handled', created: false });
    const updated = (await wiki.readPage(again.slug))!;
    assert.equal(updated.frontmatter.created, '2026-11-22');
    assert.equal(updated.frontmatter.updated, '2026-11-23');
    assert.match(updated.body, /## And then\?\n\nSecond answer\./);
    const index = JSON.parse(fs.text(`${ROOT}/.wiki/index.json`)!);
    assert.ok(index.pages.some((p: { slug: string; topic: string }) => p.slug === 'how-are-errors-handled' && p.topic === 'conversations'));
    const log = (await wiki.readLog()).entries.filter((e) => e.op === 'file-back');
    assert.equal(log.length, 2);
    assert.deepEqual(log[1].pages, ['how-are-errors-handled']);
    const lint = await wiki.lint();
    assert.deepEqual(lint.issues.filter((i) => i.page.includes('how-are-errors-handled')).map((i) => i.code), [], 'a filed conversation is not an orphan');
  });
});

describe('conversation export', () => {
  const record: ConversationRecord = {
    conversation: { id: 'c1', title: 'How are errors handled?', created: '2026-11-22T10:00:00.000Z', updated: '2026-11-22T10:05:00.000Z', turnCount: 1, inputTokens: 10, outputTokens: 5, tags: [] },
    turns: [{
      conversationId: 'c1', index: 0, question: 'How are errors handled?', answer: 'They are thrown as [[error-handling]].',
      context: { pages: [{ slug: 'error-handling', title: 'Errors', score: 2.5, stale: false }, { slug: 'old-routing', title: 'Old', score: 1, stale: true }], offline: false,
        selection: { path: 'src/errors.ts', startLine: 3, endLine: 5, language: 'typescript', text: 'throw new HttpError(404);', truncated: false } },
      model: 'claude-test-1', inputTokens: 10, outputTokens: 5, created: '2026-11-22T10:05:00.000Z',
    }],
  };

  it('writes Markdown with the question, the selection, the answer and its sources', () => {
    const markdown = conversationToMarkdown(record);
    assert.match(markdown, /^# How are errors handled\?\n\n_2026-11-22 · 1 question_/);
    assert.match(markdown, /## How are errors handled\?\n\nAbout `src\/errors.ts` lines 3–5:\n\n````typescript\nthrow new HttpError\(404\);\n````/);
    assert.match(markdown, /They are thrown as \[\[error-handling\]\]\.\n\n_Pages used: \[\[error-handling\]\], \[\[old-routing\]\] \(stale\) · claude-test-1_/);
  });

  it('writes JSON with every stored field and a format marker', () => {
    const json = JSON.parse(conversationToJson(record));
    assert.equal(json.format, 'repo-wiki-conversation');
    assert.equal(json.version, 3);
    assert.deepEqual({ conversation: json.conversation, turns: json.turns }, record);
  });

  it('lists tool steps and unverified citations in Markdown, and on a filed page as plain text that cites and links nothing', () => {
    const steps = [
      { tool: 'read_code', input: { citation: 'src/errors.ts:HttpError' }, label: 'Read src/errors.ts:HttpError', ok: true, summary: 'lines 1–9', output: 'class HttpError' },
      { tool: 'search_wiki', input: { query: '`src/evil.ts:X` [[nowhere]]' }, label: 'Searched the wiki for "`src/evil.ts:X` [[nowhere]]"', ok: false, summary: 'invalid input', output: '' },
    ];
    const withSteps: ConversationRecord = { ...record, turns: [{ ...record.turns[0], steps, context: { ...record.turns[0].context, unverified: ['src/gone.ts:Nope'] } }] };
    const markdown = conversationToMarkdown(withSteps);
    assert.match(markdown, /Looked up:\n\n- Read src\/errors\.ts:HttpError: lines 1–9\n- Searched the wiki for "'src\/evil\.ts:X' nowhere": failed, invalid input\n/);
    assert.match(markdown, /_Unverified citations \(not read, and not found in the code\): src\/gone\.ts:Nope_/);
    const body = conversationBody(withSteps, new Set());
    assert.match(body, /Looked up:/);
    assert.doesNotMatch(body, /`src\/evil\.ts:X`|\[\[nowhere\]\]/, 'a model-chosen input is neither a citation nor a link on the page');
  });
});
