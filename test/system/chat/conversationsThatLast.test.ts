import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { AnthropicModel } from '../../../src/adapters/llm/anthropicModel';
import { LEGACY_DATABASE_FILE } from '../../../src/adapters/store/legacyStore';
import { LEGACY_MIGRATIONS, migrate } from '../../../src/adapters/store/migrations';
import { CATALOG_FILE, openConversationStore, type SqlJsConversationStore } from '../../../src/adapters/store/sqlJsConversationStore';
import { ChatService, type ChatSettings, type ModelChoice } from '../../../src/core/chat/chatService';
import type { ConversationRecord, ConversationStore, Turn } from '../../../src/core/chat/conversation';
import { conversationToJson, conversationToMarkdown } from '../../../src/core/chat/export';
import { ImportError, parseConversationExport } from '../../../src/core/chat/import';
import { deleteExpired, selectExpired } from '../../../src/core/chat/retention';
import { LlmError, messageText, type CompletionRequest, type LanguageModel, type StreamCallbacks } from '../../../src/core/llm/languageModel';
import type { WikiPage } from '../../../src/core/model';
import { Wiki } from '../../../src/core/wiki/wiki';
import { parseWebviewMessage } from '../../../src/shared/protocol';
import { normaliseTag } from '../../../src/shared/tags';
import { fixedClock, MemoryConversationStore, MemoryFileSystem, pageText } from '../../support/fakes';

// The real SDK against the local mock of the Messages API.
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../test/harness/mockAnthropic.cjs'));
interface RecordedRequest { body: { system: { text: string }[]; messages: { role: string; content: string | { text?: string }[] }[] } }
interface Mock { url: string; requests: RecordedRequest[]; script(...replies: unknown[]): void; close(): Promise<void> }

/** A conversation with every field an export carries: tags, a summary, a filed page, a selection, tool steps, notes. */
const RICH: ConversationRecord = {
  conversation: {
    id: 'c0ffee00-1111-4222-8333-444455556666', title: 'How do errors become responses?', created: '2026-10-01T09:00:00.000Z', updated: '2026-10-01T09:30:00.000Z',
    filedPage: 'how-do-errors-become-responses', turnCount: 2, inputTokens: 1234, outputTokens: 210, tags: ['errors', 'http'],
    priorSummary: { text: 'Earlier: errors are thrown as HttpError.', turns: 1, model: 'claude-test-1', created: '2026-10-01T09:20:00.000Z' },
  },
  turns: [
    {
      conversationId: 'c0ffee00-1111-4222-8333-444455556666', index: 0, question: 'How do errors\nbecome responses?',
      answer: 'They are thrown as [[error-handling]].\n\n## Not a question\n\nSee `src/errors.ts:HttpError`. An HTML end --> and <!-- repo-wiki-conversation v9 --> inside.',
      context: {
        pages: [{ slug: 'error-handling', title: 'Errors', score: 2.5, stale: false }, { slug: 'old-routing', title: 'Old', score: 1, stale: true }], offline: false,
        selection: { path: 'src/errors.ts', startLine: 3, endLine: 5, language: 'typescript', text: 'throw new HttpError(404);\n````\nnot the end', truncated: true },
        unverified: ['src/gone.ts:Nope'], promptTokens: 900,
      },
      model: 'claude-test-1', inputTokens: 1000, outputTokens: 200, created: '2026-10-01T09:05:00.000Z',
      steps: [{ tool: 'read_code', input: { citation: 'src/errors.ts:HttpError' }, label: 'Read src/errors.ts:HttpError', ok: true, summary: 'lines 1–9', output: 'class HttpError {}' }],
    },
    {
      conversationId: 'c0ffee00-1111-4222-8333-444455556666', index: 1, question: 'and offline?', answer: '**Offline answer** — no model was used.',
      context: { pages: [], offline: true, noMatch: true, summarisedPriorTurns: 1, unsummarisedPriorTurns: { count: 2, reason: 'offline' } },
      model: 'offline', inputTokens: 234, outputTokens: 10, created: '2026-10-01T09:30:00.000Z',
    },
  ],
};

/** What the version-1 exporter wrote (before tags, summaries and the hidden record). */
const V1_MARKDOWN = `# How are errors handled?

_2026-11-22 · 2 questions_

## How are errors handled?

About \`src/errors.ts\` lines 3–5:

\`\`\`\`typescript
throw new HttpError(404);
\`\`\`\`

Looked up:

- Read src/errors.ts:HttpError: lines 1–9

They are thrown as [[error-handling]].

## A heading inside the answer

_Unverified citations (not read, and not found in the code): src/gone.ts:Nope_

_Pages used: [[error-handling]], [[old-routing]] (stale) · claude-test-1_

## And offline?

**Offline answer** — no model was used.

_Pages used: none · offline answer_
`;

const V1_JSON = JSON.stringify({
  format: 'repo-wiki-conversation', version: 1,
  conversation: { id: 'old-1', title: 'Old', created: '2026-01-01T00:00:00.000Z', updated: '2026-01-02T00:00:00.000Z', turnCount: 1, inputTokens: 3, outputTokens: 4 },
  turns: [{ conversationId: 'old-1', index: 0, question: 'q', answer: 'a', context: { pages: [], offline: false }, model: 'm', inputTokens: 3, outputTokens: 4, created: '2026-01-02T00:00:00.000Z' }],
});

const dirs: string[] = [];
const stores: SqlJsConversationStore[] = [];
async function openStore(dir?: string) {
  const folder = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-last-'));
  if (!dir) dirs.push(folder);
  const { store } = await openConversationStore(folder, { compactAfterMs: 60_000, compactAfterChanges: 10_000 });
  stores.push(store);
  return { store, dir: folder };
}
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('conversation import', function () {
  this.timeout(20_000); // the store fsyncs every change: slow on a loaded machine
  it('round-trips JSON with nothing lost', () => {
    assert.deepEqual(parseConversationExport(conversationToJson(RICH)), RICH);
  });

  it('round-trips Markdown with nothing lost, and the Markdown still reads as a conversation', () => {
    const markdown = conversationToMarkdown(RICH);
    assert.match(markdown, /^# How do errors become responses\?\n\n_2026-10-01 · 2 questions · tags: errors, http_/);
    const record = markdown.slice(markdown.lastIndexOf('<!-- repo-wiki-conversation '));
    assert.equal(record.match(/-->/g)?.length, 1, 'nothing inside the hidden record can close its comment early');
    assert.deepEqual(parseConversationExport(markdown), RICH);
    assert.deepEqual(parseConversationExport(`\uFEFF${markdown.replace(/\n/g, '\r\n')}`), RICH, 'a BOM and Windows line ends are fine');
  });

  it('reads version-1 exports: JSON whole, Markdown from its text', () => {
    const json = parseConversationExport(V1_JSON);
    assert.deepEqual(json.conversation.tags, []);
    assert.equal(json.turns[0].answer, 'a');
    const md = parseConversationExport(V1_MARKDOWN);
    assert.equal(md.conversation.title, 'How are errors handled?');
    assert.equal(md.conversation.created, '2026-11-22T00:00:00.000Z');
    assert.deepEqual(md.turns.map((t) => [t.question, t.model, t.context.offline]), [['How are errors handled?', 'claude-test-1', false], ['And offline?', 'offline', true]]);
    assert.equal(md.turns[0].answer, 'They are thrown as [[error-handling]].\n\n## A heading inside the answer');
    assert.deepEqual(md.turns[0].context.pages.map((p) => [p.slug, p.stale]), [['error-handling', false], ['old-routing', true]]);
    assert.deepEqual(md.turns[0].context.selection, { path: 'src/errors.ts', startLine: 3, endLine: 5, language: 'typescript', text: 'throw new HttpError(404);', truncated: false });
    assert.deepEqual(md.turns[0].context.unverified, ['src/gone.ts:Nope']);
  });

  it('says what is wrong with a malformed file', () => {
    const wrong = (text: string, message: RegExp) => assert.throws(() => parseConversationExport(text), (e: unknown) => e instanceof ImportError && message.test(e.message));
    wrong('{"format": "repo-wiki-conversation", ', /^not valid JSON/);
    wrong('{"format": "something-else", "version": 1}', /not a Repo Wiki conversation export/);
    wrong(JSON.stringify({ ...JSON.parse(V1_JSON), version: 9 }), /newer version of Repo Wiki \(format version 9/);
    const noDate = JSON.parse(conversationToJson(RICH));
    delete noDate.turns[1].created;
    wrong(JSON.stringify(noDate), /^turns\[1\]\.created is missing$/);
    const badTag = JSON.parse(conversationToJson(RICH));
    badTag.conversation.tags = ['ok', 'not ok!'];
    wrong(JSON.stringify(badTag), /^conversation\.tags is not a list of tags$/);
    wrong(conversationToMarkdown(RICH).replace(/\n-->\n$/, '\n'), /record at the end of the Markdown is cut off/);
    wrong('Just some notes\n', /does not start with a "# title" line/);
    wrong('# T\n\n_2026-11-22 · 1 question_\n\n## Q\n\nAn answer with no footer\n', /line 5 starts a question whose "_Pages used: …_" line is missing/);
  });

  // Red-team pass, issue 36: 320,000 turns (11 MB) took 130 s, and one 1 MB "_Pages used:" line 88 s,
  // on the extension host's thread. Time-bounded probes assert a ceiling, not a typical time.
  it('reads a 320,000-turn old-style Markdown export (11 MB) in one pass, in under the ceiling', function () {
    this.timeout(60_000);
    const turns = 320_000;
    const parts = ['# Big\n\n_2026-11-22 · 320000 questions_\n'];
    for (let i = 0; i < turns; i++) parts.push(`## Q${i}?\n\nA${i}.\n\n_Pages used: [[p${i % 7}]] · m_\n`);
    const markdown = parts.join('\n');
    assert.ok(markdown.length > 11_000_000, `${markdown.length} characters`);
    const start = Date.now();
    const record = parseConversationExport(markdown);
    const ms = Date.now() - start;
    // About 3.5 s here, linear in the file (splitting 1.9 million lines and making 320,000 turns is most of it).
    assert.ok(ms < 10_000, `took ${ms} ms`);
    assert.equal(record.turns.length, turns);
    assert.deepEqual([record.turns[turns - 1].question, record.turns[turns - 1].answer, record.turns[turns - 1].context.pages.map((p) => p.slug), record.turns[turns - 1].model], [`Q${turns - 1}?`, `A${turns - 1}.`, [`p${(turns - 1) % 7}`], 'm']);
  });

  it('reads a 1 MB "_Pages used:" line in under the ceiling, whether it is a footer or not, and the store takes it', async () => {
    const imported: ConversationRecord[] = [];
    const head = '# T\n\n_2026-11-22 · 1 question_\n\n## Q\n\nAn answer.\n\n';
    const probes: [string, (text: string) => void][] = [
      // Many separators and no closing "_": not a footer, so the question has none.
      [`${head}_Pages used: ${' · x'.repeat(250_000)}\n`, (text) => assert.throws(() => parseConversationExport(text), /line 5 starts a question whose "_Pages used: …_" line is missing/)],
      // A footer of 1 MB: many pages, brackets that never close, the model after the last separator.
      [`${head}_Pages used: ${'[[a-page]], '.repeat(40_000)}${'[['.repeat(270_000)} · x · claude-test_\n`, (text) => {
        const record = parseConversationExport(text);
        assert.equal(record.turns[0].model, 'claude-test');
        assert.equal(record.turns[0].context.pages.length, 40_000);
        imported.push(record);
      }],
      // An "_Unverified citations" line of 1 MB with many ": " and no closing "_".
      [`${head.replace('An answer.', `An answer.\n\n_Unverified citations${': x'.repeat(350_000)}`)}_Pages used: none · m_\n`, (text) => {
        assert.equal(parseConversationExport(text).turns[0].context.unverified, undefined);
      }],
    ];
    for (const [text, check] of probes) {
      assert.ok(text.length > 1_000_000);
      const start = Date.now();
      check(text);
      assert.ok(Date.now() - start < 1000, `took ${Date.now() - start} ms`);
    }
    const { store } = await openStore();
    const { id } = await store.importRecord(imported[0]);
    assert.equal((await store.get(id))!.turns[0].context.pages.length, 40_000);
  });

  it('reads a footer as the old pattern did: the last " · " ends the pages, and a line with a carriage return is no footer', () => {
    const one = (footer: string) => parseConversationExport(`# T\n\n_2026-11-22 · 1 question_\n\n## Q\n\nA.\n\n${footer}\n`).turns[0];
    assert.deepEqual([one('_Pages used: [[a]] · [[b]] (stale) · model-x_').model, one('_Pages used: [[a]] · [[b]] (stale) · model-x_').context.pages.map((p) => [p.slug, p.stale])], ['model-x', [['a', false], ['b', true]]]);
    assert.equal(one('_Pages used:  · m_').model, 'm');
    assert.equal(one('_Pages used: none · offline answer_').context.offline, true);
    assert.throws(() => one('_Pages used: [[a]] · m\r_'), /"_Pages used: …_" line is missing/);
    assert.throws(() => one('_Pages used: [[a]] · _'), /"_Pages used: …_" line is missing/);
  });

  it('never overwrites: a taken id gets a new one, and the import survives a reopen', async () => {
    const { store, dir } = await openStore();
    const first = await store.importRecord(RICH);
    assert.equal(first.id, RICH.conversation.id);
    await store.appendTurn({ ...RICH.turns[1], conversationId: first.id, question: 'a later turn' });
    const second = await store.importRecord(RICH);
    assert.notEqual(second.id, RICH.conversation.id);
    const fromMarkdown = await store.importRecord(parseConversationExport(V1_MARKDOWN));
    assert.match(fromMarkdown.id, /^[0-9a-f-]{36}$/, 'an old Markdown export has no id: it gets one');
    assert.equal((await store.get(first.id))!.turns.length, 3, 'the first copy is untouched');
    await store.close();
    const { store: again } = await openStore(dir);
    const copy = (await again.get(second.id))!;
    assert.deepEqual(copy, { conversation: { ...RICH.conversation, id: second.id }, turns: RICH.turns.map((t) => ({ ...t, conversationId: second.id })) });
  });
});

describe('conversation tags', function () {
  this.timeout(20_000);
  it('normalises what a person types', () => {
    assert.equal(normaliseTag('  #Release Notes '), 'release-notes');
    assert.equal(normaliseTag('--x'), 'x');
    assert.equal(normaliseTag('!!!'), undefined);
    assert.equal(normaliseTag('a'.repeat(60))?.length, 40);
  });

  it('the chat view may only send normalised tags', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'addTag', conversationId: 'c1', tag: 'release-notes' }), { type: 'addTag', conversationId: 'c1', tag: 'release-notes' });
    assert.ok(parseWebviewMessage({ type: 'removeTag', conversationId: 'c1', tag: 'v1.2_x' }));
    for (const tag of ['Release', 'two words', '', '-x', 'a'.repeat(41), 42, '<img>']) {
      assert.equal(parseWebviewMessage({ type: 'addTag', conversationId: 'c1', tag }), undefined, String(tag));
    }
    assert.equal(parseWebviewMessage({ type: 'addTag', conversationId: '../x', tag: 'ok' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'addTag', conversationId: 'c1', tag: 'ok', extra: 1 }), undefined);
  });

  it('adds and removes tags, keeps them across a reopen, and search matches them', async () => {
    const { store, dir } = await openStore();
    const a = await store.create('Deploys');
    const b = await store.create('Routing');
    await store.appendTurn(turn(b.id, 'How is a route matched?', 'Segment by segment.'));
    await store.setTags(a.id, ['infra', 'release']);
    await store.setTags(b.id, ['http']);
    assert.deepEqual((await store.list()).map((c) => [c.title, c.tags]), [['Routing', ['http']], ['Deploys', ['infra', 'release']]]);
    const hits = await store.search('rel');
    assert.deepEqual(hits.map((h) => [h.conversationId, h.tags]), [[a.id, ['infra', 'release']]]);
    assert.deepEqual((await store.search('infra release')).map((h) => h.conversationId), [a.id], 'every term matches a tag');
    assert.deepEqual((await store.search('segment')).map((h) => h.conversationId), [b.id], 'turn text is still searched');
    await store.setTags(a.id, ['infra']);
    assert.deepEqual(await store.search('release'), []);
    await store.close();
    const { store: again } = await openStore(dir);
    assert.deepEqual((await again.get(a.id))!.conversation.tags, ['infra']);
  });
});

describe('conversation retention', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const conversation = (id: string, updated: string, filedPage?: string) => ({ id, title: id, created: updated, updated, turnCount: 1, inputTokens: 0, outputTokens: 0, tags: [], ...(filedPage ? { filedPage } : {}) });
  const list = [
    conversation('fresh', '2026-11-20T00:00:00.000Z'),
    conversation('old', '2026-08-01T00:00:00.000Z'),
    conversation('older', '2026-05-01T00:00:00.000Z'),
    conversation('old-filed', '2026-06-01T00:00:00.000Z', 'a-page'),
  ];

  it('selects what is older than the policy, oldest first, keeping filed conversations unless told', () => {
    const kept = selectExpired(list, { olderThanDays: 30, includeFiled: false }, now);
    assert.deepEqual(kept.expired.map((c) => c.id), ['older', 'old']);
    assert.deepEqual(kept.keptFiled.map((c) => c.id), ['old-filed']);
    const all = selectExpired(list, { olderThanDays: 30, includeFiled: true }, now);
    assert.deepEqual(all.expired.map((c) => c.id), ['older', 'old-filed', 'old']);
    assert.deepEqual(selectExpired(list, { olderThanDays: 0, includeFiled: true }, now), { expired: [], keptFiled: [] }, '0 is off');
  });

  it('deletes only what is still as selected: a conversation continued meanwhile stays', async () => {
    const store = new MemoryConversationStore();
    const a = await store.importRecord({ conversation: conversation('a', '2026-01-01T00:00:00.000Z'), turns: [] });
    const b = await store.importRecord({ conversation: conversation('b', '2026-01-01T00:00:00.000Z'), turns: [] });
    const { expired } = selectExpired(await store.list(), { olderThanDays: 30, includeFiled: false }, now);
    await store.appendTurn(turn(b.id, 'still going'));
    const deleted = await deleteExpired(store, expired);
    assert.deepEqual(deleted.map((c) => c.id), [a.id]);
    assert.deepEqual((await store.list()).map((c) => c.id), [b.id]);
  });
});

describe('conversation store schema 3', function () {
  this.timeout(20_000);
  it('migrates a schema-2 database: its conversations load with no tags or summary, and take them from then on', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-last-'));
    dirs.push(dir);
    const SQL = await initSqlJs({ locateFile: () => require.resolve('sql.js/dist/sql-wasm.wasm') });
    const v2 = new SQL.Database();
    migrate(v2, path.join(dir, LEGACY_DATABASE_FILE), LEGACY_MIGRATIONS.filter((m) => m.version <= 2));
    v2.exec(`INSERT INTO conversation VALUES ('c1', 'Old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'old-page')`);
    v2.exec(`INSERT INTO turn VALUES ('c1', 0, 'old q', 'old a', '{"pages":[],"offline":false}', 'm', 1, 2, '2026-01-01T00:00:00Z', NULL, '[]')`);
    fs.writeFileSync(path.join(dir, LEGACY_DATABASE_FILE), v2.export());
    v2.close();
    const { store } = await openStore(dir);
    const old = (await store.get('c1'))!;
    assert.deepEqual({ tags: old.conversation.tags, summary: old.conversation.priorSummary, filed: old.conversation.filedPage, q: old.turns[0].question }, { tags: [], summary: undefined, filed: 'old-page', q: 'old q' });
    await store.setTags('c1', ['legacy']);
    await store.setPriorSummary('c1', { text: 'S', turns: 1, model: 'm', created: '2026-11-24T00:00:00.000Z' });
    await store.close();
    const { conversations } = JSON.parse(fs.readFileSync(path.join(dir, CATALOG_FILE), 'utf8'));
    assert.deepEqual(conversations.map((c: { tags: string[]; priorSummary?: object }) => [c.tags, c.priorSummary]), [[['legacy'], { text: 'S', turns: 1, model: 'm', created: '2026-11-24T00:00:00.000Z' }]]);
  });
});

function turn(conversationId: string, question: string, answer = `An answer to: ${question}`): Omit<Turn, 'index'> {
  return { conversationId, question, answer, model: 'claude-test', inputTokens: 1, outputTokens: 1, created: new Date().toISOString(), context: { pages: [], offline: false } };
}

const SETTINGS: ChatSettings = { model: 'claude-test', maxTokens: 1000, maxPriorTurns: 2, priorAnswerChars: 500, pagesPerTurn: 3, maxToolRounds: 0, toolTokenBudget: 100_000 };
const PAGES = { 'error-handling': pageText('Errors become responses', 'Handlers throw HttpError.\n\nThe pipeline catches the error and calls toErrorResponse.\n') };

async function wikiPages(): Promise<readonly WikiPage[]> {
  const files = new MemoryFileSystem();
  for (const [slug, text] of Object.entries(PAGES)) files.write(`/ws/.wiki/pages/${slug}.md`, text);
  files.write('/ws/.wiki/log.jsonl', '');
  return new Wiki('/ws', files, fixedClock()).loadPages();
}

/** A conversation of `count` turns about errors, imported into `store`. */
async function longConversation(store: ConversationStore, count: number) {
  const turns = Array.from({ length: count }, (_, i): Turn => ({
    conversationId: 'long', index: i, question: `Question ${i} about errors?`, answer: `Answer ${i}: errors become responses.`, context: { pages: [], offline: false },
    model: 'claude-test-1', inputTokens: 1, outputTokens: 1, created: `2026-11-0${i + 1}T00:00:00.000Z`,
  }));
  return store.importRecord({ conversation: { id: 'long', title: 'Long', created: turns[0].created, updated: turns.at(-1)!.created, turnCount: count, inputTokens: count, outputTokens: count, tags: [] }, turns });
}

/** Answers summary requests with `summaries` in order, and questions with "answer N". */
class FakeModel implements LanguageModel {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly summaries: (string | LlmError)[]) {}
  async complete(request: CompletionRequest, callbacks: StreamCallbacks) {
    this.requests.push(request);
    const summary = /You summarise/.test(request.system[0].text);
    const reply = summary ? this.summaries.shift() ?? 'unexpected summary request' : `answer ${this.requests.length}`;
    if (reply instanceof LlmError) throw reply;
    if (!summary) callbacks.onText(reply);
    return { text: reply, model: 'claude-test-1', inputTokens: 10, outputTokens: 5, stopReason: 'end_turn' };
  }
}

function chatWith(store: ConversationStore, choice: ModelChoice, failures: unknown[] = []) {
  return new ChatService({ store, pages: wikiPages, chooseModel: async () => choice, settings: () => SETTINGS, onSummaryFailed: (e) => failures.push(e), now: () => new Date('2026-11-24T10:00:00Z') });
}

describe('summarising earlier turns', () => {
  it('summarises the turns that fall out once, stores the summary, and extends it when more fall out', async () => {
    const store = new MemoryConversationStore();
    const { id } = await longConversation(store, 4);
    const model = new FakeModel(['SUMMARY OF 1-2', 'SUMMARY OF 1-3']);
    const chat = chatWith(store, { model });
    const first = await chat.ask({ conversationId: id, question: 'How do errors become responses?' }, { onText: () => {} });
    assert.equal(first.turn.context.summarisedPriorTurns, 2);
    assert.deepEqual({ in: first.turn.inputTokens, out: first.turn.outputTokens }, { in: 20, out: 10 }, 'the summary request counts');
    const [summaryRequest, answerRequest] = model.requests;
    assert.match(messageText(summaryRequest.messages[0]), /<turn n="1">[\s\S]*Question 0[\s\S]*<turn n="2">[\s\S]*Question 1[\s\S]*Write the summary of turns 1–2\.$/);
    assert.doesNotMatch(messageText(summaryRequest.messages[0]), /Question 2/);
    const sent = answerRequest.messages.map(messageText);
    assert.match(sent[0], /^A summary of the earlier turns 1–2 of this conversation[\s\S]*SUMMARY OF 1-2[\s\S]*<\/conversation_summary>\n\nQuestion 2 about errors\?$/);
    assert.deepEqual(sent.slice(1, 4), ['Answer 2: errors become responses.', 'Question 3 about errors?', 'Answer 3: errors become responses.']);
    assert.ok(!sent.some((m) => /Question [01] /.test(m)), 'the summarised turns are not repeated');
    assert.deepEqual((await store.get(id))!.conversation.priorSummary, { text: 'SUMMARY OF 1-2', turns: 2, model: 'claude-test-1', created: '2026-11-24T10:00:00.000Z' });

    // One more turn falls out: only it goes with the summary so far.
    await chat.ask({ conversationId: id, question: 'And why?' }, { onText: () => {} });
    const extend = messageText(model.requests[2].messages[0]);
    assert.match(extend, /The summary of turns 1–2:\n<summary>\nSUMMARY OF 1-2\n<\/summary>/);
    assert.match(extend, /<turn n="3">[\s\S]*Question 2/);
    assert.doesNotMatch(extend, /Question [01] /);
    assert.equal((await store.get(id))!.conversation.priorSummary?.turns, 3);
  });

  it('reuses the stored summary while no more turns fall out', async () => {
    const store = new MemoryConversationStore();
    const { id } = await longConversation(store, 4);
    await store.setPriorSummary(id, { text: 'KEPT SUMMARY', turns: 2, model: 'claude-test-1', created: '2026-11-23T00:00:00.000Z' });
    const model = new FakeModel([]);
    const result = await chatWith(store, { model }).ask({ conversationId: id, question: 'How do errors become responses?' }, { onText: () => {} });
    assert.equal(model.requests.length, 1, 'no summary request');
    assert.match(messageText(model.requests[0].messages[0]), /KEPT SUMMARY/);
    assert.equal(result.turn.context.summarisedPriorTurns, 2);
  });

  it('says so when summarising fails, and when the answer is offline, instead of dropping turns silently', async () => {
    const store = new MemoryConversationStore();
    const { id } = await longConversation(store, 4);
    const failures: unknown[] = [];
    const model = new FakeModel([new LlmError('overloaded', 'Overloaded')]);
    const failed = await chatWith(store, { model }, failures).ask({ conversationId: id, question: 'How do errors become responses?' }, { onText: () => {} });
    assert.deepEqual(failed.turn.context.unsummarisedPriorTurns, { count: 2, reason: 'failed' });
    assert.equal(failed.turn.context.summarisedPriorTurns, undefined);
    assert.equal(failures.length, 1);
    assert.equal((await store.get(id))!.conversation.priorSummary, undefined);
    assert.equal(model.requests.at(-1)!.messages.length, 5, 'the answer still came, with the last two turns');

    const offline = await chatWith(store, { offline: 'no-key' }).ask({ conversationId: id, question: 'How do errors become responses?' }, { onText: () => {} });
    assert.deepEqual(offline.turn.context.unsummarisedPriorTurns, { count: 3, reason: 'offline' });
  });

  it('with the real SDK, the Messages API receives the summary and the last turns', async function () {
    this.timeout(10_000);
    const key = 'sk-ant-unit-key-summary';
    const mock: Mock = await startMockAnthropic({ validKey: key });
    try {
      const store = new MemoryConversationStore();
      const { id } = await longConversation(store, 5);
      const text = (content: string | { text?: string }[]) => (typeof content === 'string' ? content : content.map((block) => block.text ?? '').join('\n'));
      const checks: string[] = [];
      mock.script(
        (body: RecordedRequest['body']) => {
          // The summary request: the three turns that fell out, and only those.
          const sent = text(body.messages[0].content);
          if (!/You summarise/.test(body.system[0].text) || !/Question 2/.test(sent) || /Question 3/.test(sent)) checks.push(`bad summary request: ${sent}`);
          return { text: 'THE-SUMMARY: errors are thrown as HttpError.' };
        },
        (body: RecordedRequest['body']) => {
          const sent = body.messages.map((m) => text(m.content));
          if (!sent[0].includes('THE-SUMMARY') || !sent[0].endsWith('Question 3 about errors?')) checks.push(`the summary is not first: ${sent[0]}`);
          if (sent.length !== 5 || sent[2] !== 'Question 4 about errors?' || /Question [0-2] /.test(sent.join('\n'))) checks.push(`not the last two turns: ${JSON.stringify(sent)}`);
          return { text: 'Thrown, then caught at the edge.' };
        },
      );
      const model = new AnthropicModel({ apiKey: key, baseURL: mock.url, sleep: async () => undefined });
      const result = await chatWith(store, { model }).ask({ conversationId: id, question: 'How do errors become responses?' }, { onText: () => {} });
      assert.deepEqual(checks, []);
      assert.equal(mock.requests.length, 2);
      assert.equal(result.turn.answer, 'Thrown, then caught at the edge.');
      assert.equal(result.turn.context.summarisedPriorTurns, 3);
      assert.equal((await store.get(id))!.conversation.priorSummary?.text, 'THE-SUMMARY: errors are thrown as HttpError.');
    } finally {
      await mock.close();
    }
  });
});
