import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as path from 'node:path';
import { AnthropicModel } from '../../src/adapters/llm/anthropicModel';
import { LlmError, type CompletionRequest } from '../../src/core/llm';

// The real SDK against the local mock of the Messages API.
const { startMockAnthropic } = require(path.resolve(__dirname, '../../../test/harness/mockAnthropic.cjs'));

interface Mock { url: string; requests: { headers: Record<string, string>; body: Record<string, unknown>; apiKey?: string }[]; script(...replies: unknown[]): void; close(): Promise<void> }

const KEY = 'sk-ant-unit-key-0001';
const REQUEST: CompletionRequest = {
  model: 'claude-test',
  maxTokens: 300,
  system: [{ text: 'You are the librarian.' }, { text: 'Catalog: [[a]]', cache: true }],
  messages: [{ role: 'user', content: 'Q1' }, { role: 'assistant', content: 'A1' }, { role: 'user', content: 'Question: why?' }],
};

describe('AnthropicModel (real SDK, mock Messages API)', function () {
  this.timeout(10000);
  let mock: Mock;
  const delays: number[] = [];
  const model = (options: Partial<ConstructorParameters<typeof AnthropicModel>[0]> = {}) =>
    new AnthropicModel({ apiKey: KEY, baseURL: mock.url, sleep: async (ms) => void delays.push(ms), ...options });

  before(async () => {
    mock = await startMockAnthropic({ validKey: KEY });
  });
  after(() => mock.close());
  beforeEach(() => (delays.length = 0));

  it('streams deltas in order and reports the text, model and usage', async () => {
    mock.script({ text: 'Hello from the mock model.', chunks: 5, model: 'claude-test-20261122', inputTokens: 42 });
    const deltas: string[] = [];
    const result = await model().complete(REQUEST, { onText: (d) => deltas.push(d) });
    assert.ok(deltas.length >= 4);
    assert.equal(deltas.join(''), 'Hello from the mock model.');
    assert.deepEqual(result, { text: 'Hello from the mock model.', model: 'claude-test-20261122', inputTokens: 42, outputTokens: 5, stopReason: 'end_turn' });
  });

  it('sends the key, the model, the messages and cache_control on the cached prefix', async () => {
    mock.script({ text: 'ok' });
    await model().complete(REQUEST, { onText: () => {} });
    const { headers, body, apiKey } = mock.requests.at(-1)!;
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
    const error = await model({ apiKey: 'sk-ant-bad-key-9999' }).complete(REQUEST, { onText: () => {} }).catch((e) => e);
    assert.ok(error instanceof LlmError);
    assert.equal(error.kind, 'auth');
    assert.match(error.message, /Set API key/);
    assert.doesNotMatch(error.message, /sk-ant-bad-key-9999/);
  });

  it('retries a 429 after retry-after, telling the caller, then succeeds', async () => {
    mock.script({ status: 429, retryAfter: 2 }, { text: 'after the wait' });
    const retries: unknown[] = [];
    const result = await model().complete(REQUEST, { onText: () => {}, onRetry: (info) => retries.push(info) });
    assert.equal(result.text, 'after the wait');
    assert.deepEqual(retries, [{ attempt: 1, delayMs: 2000, status: 429 }]);
    assert.deepEqual(delays, [2000]);
  });

  it('gives up on 529 after its retries with an overloaded error', async () => {
    mock.script({ status: 529 }, { status: 529 }, { status: 529 });
    const error = await model({ maxRetries: 2 }).complete(REQUEST, { onText: () => {} }).catch((e) => e);
    assert.equal(error.kind, 'overloaded');
    assert.equal(delays.length, 2);
    assert.ok(delays[1] > delays[0] * 1.2, `backoff grows: ${delays.join(', ')}`);
  });

  it('a stream cut mid-answer is a network error and is not retried', async () => {
    mock.script({ text: 'one two three four five six', chunks: 6, cutAfterChunks: 2 });
    const deltas: string[] = [];
    const before = mock.requests.length;
    const error = await model().complete(REQUEST, { onText: (d) => deltas.push(d) }).catch((e) => e);
    assert.equal(error.kind, 'network');
    assert.equal(deltas.length, 2);
    assert.equal(mock.requests.length, before + 1, 'no retry after text streamed');
  });

  it('aborting mid-stream cancels quickly', async () => {
    mock.script({ text: 'first words then nothing', hang: true });
    const controller = new AbortController();
    const started = Date.now();
    const error = await model().complete(REQUEST, { onText: () => controller.abort() }, controller.signal).catch((e) => e);
    assert.equal(error.kind, 'cancelled');
    assert.ok(Date.now() - started < 2000);
  });

  it('an unreachable endpoint is a network error naming the base URL', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const error = await model({ baseURL: `http://127.0.0.1:${closed}` }).complete(REQUEST, { onText: () => {} }).catch((e) => e);
    assert.equal(error.kind, 'network');
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${closed}`));
  });

  it('a prompt that is too long is context-too-long', async () => {
    mock.script({ status: 400 });
    const error = await model().complete(REQUEST, { onText: () => {} }).catch((e) => e);
    assert.equal(error.kind, 'context-too-long');
  });
});
