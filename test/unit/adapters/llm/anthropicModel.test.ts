import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { AnthropicModel, type AnthropicModelOptions } from '../../../../src/adapters/llm/anthropicModel';
import { LlmError, type CompletionRequest } from '../../../../src/core/llm/languageModel';

// The real SDK against the local mock of the Messages API.
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../../../test/harness/mockAnthropic.cjs'));

interface RecordedRequest { headers: Record<string, string>; body: Record<string, unknown>; apiKey?: string; outcome?: string }
interface Mock { url: string; requests: RecordedRequest[]; script(...replies: unknown[]): void; settled(): Promise<void>; close(): Promise<void> }

const KEY = 'sk-ant-unit-key-0001';
const REQUEST: CompletionRequest = {
  model: 'claude-test',
  maxTokens: 300,
  system: [{ text: 'You are the librarian.' }, { text: 'Catalog: [[a]]', cache: true }],
  messages: [{ role: 'user', content: 'Q1' }, { role: 'assistant', content: 'A1' }, { role: 'user', content: 'Question: why?' }],
};
const ignoreText = { onText: () => {} };

describe('AnthropicModel (real SDK, mock Messages API)', function () {
  this.timeout(5000);
  let mock: Mock;
  const delays: number[] = [];
  const model = (options: Partial<AnthropicModelOptions> = {}) =>
    new AnthropicModel({ apiKey: KEY, baseURL: mock.url, sleep: async (ms) => void delays.push(ms), ...options });
  const failure = (promise: Promise<unknown>) => promise.then(() => assert.fail('expected a rejection'), (error: unknown) => {
    assert.ok(error instanceof LlmError, String(error));
    return error;
  });

  before(async () => {
    mock = await startMockAnthropic({ validKey: KEY });
  });
  after(() => mock.close());
  beforeEach(() => (delays.length = 0));

  it('streams the deltas in order and reports the text, model, usage and stop reason', async () => {
    mock.script({ text: 'Hello from the mock model.', chunks: 5, model: 'claude-test-20261122', usage: { input_tokens: 40, cache_creation_input_tokens: 100, cache_read_input_tokens: 2, output_tokens: 7 } });
    const deltas: string[] = [];
    const result = await model().complete(REQUEST, { onText: (d) => deltas.push(d) });
    assert.equal(deltas.length, 5);
    assert.equal(deltas.join(''), 'Hello from the mock model.');
    assert.deepEqual(result, { text: 'Hello from the mock model.', toolCalls: [], model: 'claude-test-20261122', inputTokens: 142, cacheReadTokens: 2, outputTokens: 7, stopReason: 'end_turn' });
  });

  it('streams tool calls: their inputs arrive as JSON fragments and are parsed when each block ends', async () => {
    mock.script({ text: 'Let me read it.', toolUses: [{ id: 'toolu_1', name: 'read_code', input: { citation: 'src/a.ts:Foo' } }, { id: 'toolu_2', name: 'search_wiki', input: { query: 'retry "policy"', limit: 3 } }] });
    const started: string[] = [];
    const result = await model().complete(REQUEST, { onText: () => {}, onToolCall: (call) => started.push(call.name) });
    assert.equal(result.text, 'Let me read it.');
    assert.equal(result.stopReason, 'tool_use');
    assert.deepEqual(started, ['read_code', 'search_wiki']);
    assert.deepEqual(result.toolCalls, [
      { id: 'toolu_1', name: 'read_code', input: { citation: 'src/a.ts:Foo' } },
      { id: 'toolu_2', name: 'search_wiki', input: { query: 'retry "policy"', limit: 3 } },
    ]);
  });

  it('sends tools with cache_control on the last, tool_choice, tool_use and tool_result blocks (is_error on a failure), and a cache breakpoint on the marked message', async () => {
    mock.script({ text: 'answer' });
    const tools = [
      { name: 'search_wiki', description: 'Search.', inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
      { name: 'read_code', description: 'Read.', inputSchema: { type: 'object', properties: { citation: { type: 'string' } } } },
    ];
    await model().complete({
      ...REQUEST,
      tools,
      toolChoice: 'none',
      messages: [
        { role: 'user', content: 'Question: why?' },
        { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_9', name: 'read_code', input: { citation: '../x' } }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_9', content: 'refused', isError: true }], cache: true },
      ],
    }, ignoreText);
    const { body } = mock.requests.at(-1)!;
    assert.deepEqual(body.tools, [
      { name: 'search_wiki', description: 'Search.', input_schema: tools[0].inputSchema },
      { name: 'read_code', description: 'Read.', input_schema: tools[1].inputSchema, cache_control: { type: 'ephemeral' } },
    ]);
    assert.deepEqual(body.tool_choice, { type: 'none' });
    assert.deepEqual(body.messages, [
      { role: 'user', content: 'Question: why?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_9', name: 'read_code', input: { citation: '../x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'refused', is_error: true, cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('a tool input that is not valid JSON reaches the tool as the raw text, for it to refuse', async () => {
    mock.script({ toolUses: [{ name: 'read_code', rawInput: '{"citation": "src/a' }] });
    const result = await model().complete(REQUEST, ignoreText);
    assert.deepEqual(result.toolCalls?.map((call) => call.input), ['{"citation": "src/a']);
  });

  it('sends the key, the model, max_tokens, the messages and cache_control on the cached system block', async () => {
    mock.script({ text: 'ok' });
    await model().complete(REQUEST, ignoreText);
    const { headers, body, apiKey } = mock.requests.at(-1)!;
    // SDK 1.x sends the key as `Authorization: Bearer`; the mock reads either that or x-api-key.
    assert.equal(apiKey, KEY);
    assert.ok(headers['anthropic-version']);
    assert.equal(body.model, 'claude-test');
    assert.equal(body.max_tokens, 300);
    assert.equal(body.stream, true);
    assert.deepEqual(body.system, [
      { type: 'text', text: 'You are the librarian.' },
      { type: 'text', text: 'Catalog: [[a]]', cache_control: { type: 'ephemeral' } },
    ]);
    assert.deepEqual(body.messages, REQUEST.messages);
  });

  it('a rejected key is an auth error that says what to do and never contains the key', async () => {
    const error = await failure(model({ apiKey: 'sk-ant-bad-key-9999' }).complete(REQUEST, ignoreText));
    assert.equal(error.kind, 'auth');
    assert.equal(error.status, 401);
    assert.match(error.message, /Set up a model/);
    assert.doesNotMatch(error.message + error.stack, /sk-ant-bad-key-9999/);
    assert.deepEqual(delays, [], 'not retried');
  });

  it('retries a 429 after its retry-after, telling the caller first, then succeeds', async () => {
    mock.script({ status: 429, retryAfter: 1 }, { text: 'after the wait' });
    const retries: unknown[] = [];
    const result = await model().complete(REQUEST, { onText: () => {}, onRetry: (info) => retries.push({ ...info, waitedYet: delays.length > 0 }) });
    assert.equal(result.text, 'after the wait');
    assert.deepEqual(retries, [{ attempt: 1, delayMs: 1000, status: 429, waitedYet: false }]);
    assert.deepEqual(delays, [1000]);
  });

  it('backs off on 529 with growing, jittered waits, then gives up as overloaded after maxRetries', async () => {
    mock.script({ status: 529 }, { status: 529 }, { status: 529 });
    const before = mock.requests.length;
    const error = await failure(model({ maxRetries: 2 }).complete(REQUEST, ignoreText));
    assert.equal(error.kind, 'overloaded');
    assert.equal(error.status, 529);
    assert.equal(mock.requests.length, before + 3);
    assert.equal(delays.length, 2);
    assert.ok(delays[0] >= 750 && delays[0] <= 1250 && delays[1] >= 1500 && delays[1] <= 2500, `delays ${delays.join(', ')}`);
  });

  it('a stream cut mid-answer is a network error carrying the partial text, and is not retried', async () => {
    mock.script({ text: 'one two three four five six', chunks: 6, cutAfterChunks: 2 });
    const deltas: string[] = [];
    const before = mock.requests.length;
    const error = await failure(model().complete(REQUEST, { onText: (d) => deltas.push(d) }));
    assert.equal(error.kind, 'network');
    assert.match(error.message, /cut off/);
    assert.equal(deltas.length, 2);
    assert.equal(error.partialText, deltas.join(''));
    assert.equal(mock.requests.length, before + 1, 'no retry after text streamed');
    assert.equal(mock.requests.at(-1)!.outcome, 'cut');
  });

  it('an overloaded error event inside the stream is retried before any text, never after', async () => {
    mock.script({ streamError: 'overloaded_error' }, { text: 'second try' });
    const retries: { status: number }[] = [];
    const result = await model().complete(REQUEST, { onText: () => {}, onRetry: (info) => retries.push(info) });
    assert.equal(result.text, 'second try');
    assert.equal(retries[0].status, 529);

    mock.script({ text: 'half an answer', chunks: 2, streamError: 'overloaded_error', afterChunks: 1 });
    const error = await failure(model().complete(REQUEST, ignoreText));
    assert.equal(error.kind, 'overloaded');
    assert.equal(error.partialText, 'half an');
    assert.equal(delays.length, 1, 'only the first request was retried');
  });

  it('aborting mid-stream cancels at once, keeps the partial text and closes the connection', async () => {
    mock.script({ text: 'first words then nothing', hang: true });
    const controller = new AbortController();
    const started = Date.now();
    const error = await failure(model().complete(REQUEST, { onText: () => controller.abort() }, controller.signal));
    assert.equal(error.kind, 'cancelled');
    assert.equal(error.partialText, 'first ');
    assert.ok(Date.now() - started < 1000);
    await mock.settled();
    assert.equal(mock.requests.at(-1)!.outcome, 'client-closed');
  });

  it('aborting during a retry wait cancels without waiting it out', async () => {
    mock.script({ status: 429, retryAfter: 30 });
    const controller = new AbortController();
    const started = Date.now();
    const error = await failure(model({ sleep: undefined }).complete(REQUEST, { onText: () => {}, onRetry: () => setTimeout(() => controller.abort(), 20) }, controller.signal));
    assert.equal(error.kind, 'cancelled');
    assert.ok(Date.now() - started < 1000);
  });

  it('an unreachable endpoint is retried once, then is a network error naming the base URL', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const retries: { status: number }[] = [];
    const error = await failure(model({ baseURL: `http://127.0.0.1:${closedPort}` }).complete(REQUEST, { onText: () => {}, onRetry: (info) => retries.push(info) }));
    assert.equal(error.kind, 'network');
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${closedPort}.*repoWiki\\.llm\\.baseUrl`));
    assert.deepEqual(retries.map((r) => r.status), [0]);
  });

  it('a prompt that is too long is context-too-long, not retried', async () => {
    mock.script({ status: 400 });
    const error = await failure(model().complete(REQUEST, ignoreText));
    assert.equal(error.kind, 'context-too-long');
    assert.match(error.message, /prompt is too long/);
    assert.deepEqual(delays, []);
  });

  it('constructing the model does not load the SDK', () => {
    const adapter = path.resolve(__dirname, '../../../../src/adapters/llm/anthropicModel.js');
    const script = `const { AnthropicModel } = require(${JSON.stringify(adapter)}); new AnthropicModel({ apiKey: 'k' });
      process.stdout.write(String(Object.keys(require.cache).some((file) => file.includes('@anthropic-ai'))));`;
    assert.equal(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }), 'false');
  });
});
