import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Ollama, type ChatResponse } from 'ollama';
import OpenAI, { AzureOpenAI, type APIError } from 'openai';

// The mocks of OpenAI / Azure OpenAI and of Ollama, driven by the real SDKs as a user of them would.
const openAiHarness = require(path.resolve(__dirname, '../../../../test/harness/mockOpenAi.cjs'));
const ollamaHarness = require(path.resolve(__dirname, '../../../../test/harness/mockOllama.cjs'));

interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  apiKey?: string;
  deployment?: string;
  apiVersion?: string;
  numCtx?: number;
  outcome?: string;
}
interface Mock { url: string; requests: RecordedRequest[]; script(...replies: unknown[]): void; settled(): Promise<void>; close(): Promise<void> }

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ToolDelta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall;

const KEY = 'sk-test-openai-0123456789abcdef';
const AZURE_KEY = 'azure-key-0123456789';
const MESSAGES: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are the librarian.' }, { role: 'user', content: 'Question: why?' }];
const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_code', description: 'Read.', parameters: { type: 'object', properties: { citation: { type: 'string' } } } } },
];

/** Everything a stream yields: the chunks, the text, the tool-call deltas in order, the finish reason. */
async function collect(stream: AsyncIterable<Chunk>) {
  const chunks: Chunk[] = [];
  const toolDeltas: ToolDelta[] = [];
  let text = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    chunks.push(chunk);
    const choice = chunk.choices[0];
    if (!choice) continue;
    text += choice.delta.content ?? '';
    toolDeltas.push(...(choice.delta.tool_calls ?? []));
    finish = choice.finish_reason ?? finish;
  }
  return { chunks, toolDeltas, text, finish };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(() => assert.fail('expected a rejection'), (error: unknown) => {
    assert.ok(error instanceof Error, String(error));
    return error;
  });
}

describe('mockOpenAi (real openai SDK)', function () {
  this.timeout(3000);
  let mock: Mock;
  const client = (options: { apiKey?: string; baseURL?: string } = {}) => new OpenAI({ apiKey: KEY, baseURL: `${mock.url}/v1`, maxRetries: 0, ...options });
  const stream = (toolChoice = false) => client().chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES, stream: true, stream_options: { include_usage: true }, ...(toolChoice ? { tools: TOOLS } : {}) });

  before(async () => {
    mock = await openAiHarness.startMockOpenAi({ validKey: KEY, models: ['gpt-4.1', 'gpt-4.1-mini'] });
  });
  after(() => mock.close());

  it('streams a text answer as chat.completion.chunks, then the usage chunk with empty choices, and records the request', async () => {
    mock.script({ text: 'Hello from the mock model.', chunks: 5, model: 'gpt-4.1-2025-04-14', usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 32 } } });
    const { chunks, text, finish } = await collect(await stream());
    assert.equal(text, 'Hello from the mock model.');
    assert.equal(finish, 'stop');
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '', refusal: null });
    assert.equal(chunks.filter((c) => c.choices[0]?.delta.content).length, 5);
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4.1-2025-04-14'));
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.prompt_tokens, 40);
    assert.equal(last.usage?.completion_tokens, 5);
    assert.equal(last.usage?.total_tokens, 45);
    assert.equal(last.usage?.prompt_tokens_details?.cached_tokens, 32);
    await mock.settled();
    const request = mock.requests.at(-1)!;
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.apiKey, KEY);
    assert.equal(request.body?.stream, true);
    assert.deepEqual(request.body?.messages, MESSAGES);
    assert.equal(request.outcome, 'complete');
  });

  it('answers without stream as one chat.completion, echoing the last user message by default, also at a base URL without /v1', async () => {
    const completion = await client({ baseURL: mock.url }).chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0].message.content, 'Mock answer to: why?');
    assert.equal(completion.choices[0].finish_reason, 'stop');
    assert.ok(completion.usage && completion.usage.total_tokens === completion.usage.prompt_tokens + completion.usage.completion_tokens);
    assert.equal(mock.requests.at(-1)!.path, '/chat/completions');
  });

  it('lists the configured models', async () => {
    const ids: string[] = [];
    for await (const model of client().models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['gpt-4.1', 'gpt-4.1-mini']);
  });

  it('streams tool calls as OpenAI does: index, id, type and name first, then the arguments in fragments with only the index', async () => {
    mock.script({ text: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } }, { name: 'search_wiki', arguments: '{"query": "retry' }] });
    const { text, toolDeltas, finish } = await collect(await stream(true));
    assert.equal(text, 'Let me look.');
    assert.equal(finish, 'tool_calls');
    const first = toolDeltas.filter((d) => d.index === 0);
    assert.deepEqual(first[0], { index: 0, id: 'call_1', type: 'function', function: { name: 'read_code', arguments: '' } });
    assert.ok(first.length >= 3);
    assert.ok(first.slice(1).every((d) => Object.keys(d).join() === 'index,function' && Object.keys(d.function!).join() === 'arguments'));
    assert.equal(first.map((d) => d.function?.arguments).join(''), '{"citation":"src/a.ts:Foo"}');
    const second = toolDeltas.filter((d) => d.index === 1);
    assert.match(second[0].id!, /^call_mock_/);
    assert.equal(second.map((d) => d.function?.arguments).join(''), '{"query": "retry'); // broken JSON, as given
    assert.equal(toolDeltas.indexOf(second[0]), first.length); // the calls one after the other
  });

  it("quirk 'no-id' (llama.cpp): no id on any fragment", async () => {
    mock.script({ toolCalls: [{ name: 'read_code', arguments: { citation: 'a' } }], quirk: 'no-id' });
    const { text, toolDeltas, finish, chunks } = await collect(await stream(true));
    assert.equal(text, '');
    assert.equal(chunks[0].choices[0].delta.content, null);
    assert.equal(finish, 'tool_calls');
    assert.ok(toolDeltas.length > 1);
    assert.ok(toolDeltas.every((d) => !Object.hasOwn(d, 'id') && d.index === 0));
    assert.equal(toolDeltas[0].function?.name, 'read_code');
  });

  it("quirk 'no-index' (LM Studio): no index on any fragment", async () => {
    mock.script({ toolCalls: [{ id: 'call_x', name: 'read_code', arguments: { citation: 'a' } }, { id: 'call_y', name: 'search_wiki', arguments: { query: 'b' } }], quirk: 'no-index' });
    const { toolDeltas } = await collect(await stream(true));
    assert.ok(toolDeltas.every((d) => !Object.hasOwn(d, 'index')));
    assert.deepEqual(toolDeltas.filter((d) => d.id).map((d) => [d.id, d.function?.name]), [['call_x', 'read_code'], ['call_y', 'search_wiki']]);
  });

  it("quirk 'whole': each call in one fragment with its full arguments", async () => {
    mock.script({ toolCalls: [{ id: 'call_x', name: 'read_code', arguments: { citation: 'a' } }, { id: 'call_y', name: 'search_wiki', arguments: 'not json' }], quirk: 'whole' });
    const { toolDeltas } = await collect(await stream(true));
    assert.deepEqual(toolDeltas, [
      { index: 0, id: 'call_x', type: 'function', function: { name: 'read_code', arguments: '{"citation":"a"}' } },
      { index: 1, id: 'call_y', type: 'function', function: { name: 'search_wiki', arguments: 'not json' } },
    ]);
  });

  it('answers tool calls without stream in message.tool_calls, and lists the tool results sent back', async () => {
    mock.script({ toolCalls: [{ id: 'call_7', name: 'read_code', arguments: { citation: 'a' } }] }, { text: 'Done.' });
    const first = await client().chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES, tools: TOOLS });
    const message = first.choices[0].message;
    assert.equal(first.choices[0].finish_reason, 'tool_calls');
    assert.equal(message.content, null);
    assert.deepEqual(message.tool_calls, [{ id: 'call_7', type: 'function', function: { name: 'read_code', arguments: '{"citation":"a"}' } }]);
    const second = await client().chat.completions.create({ model: 'gpt-4.1', tools: TOOLS, messages: [...MESSAGES, message, { role: 'tool', tool_call_id: 'call_7', content: 'export class Foo {}' }] });
    assert.equal(second.choices[0].message.content, 'Done.');
    assert.deepEqual(openAiHarness.toolResults(mock.requests.at(-1)), [{ tool_call_id: 'call_7', content: 'export class Foo {}' }]);
  });

  it('cutInToolCall: the socket goes in the middle of the arguments', async () => {
    mock.script({ cutInToolCall: true, toolCalls: [{ name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } }] });
    const seen: ToolDelta[] = [];
    await rejection((async () => {
      for await (const chunk of await stream(true)) seen.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    })());
    const args = seen.map((d) => d.function?.arguments ?? '').join('');
    assert.ok(seen.length >= 2 && args.length > 0 && args.length < '{"citation":"src/a.ts:Foo"}'.length, args);
    await mock.settled();
    assert.equal(mock.requests.at(-1)!.outcome, 'cut');
  });

  it('cutAfterChunks: the deltas before the cut arrive, then the stream fails', async () => {
    mock.script({ text: 'abcdefgh', chunks: 4, cutAfterChunks: 2 });
    let text = '';
    await rejection((async () => {
      for await (const chunk of await stream()) text += chunk.choices[0]?.delta.content ?? '';
    })());
    assert.equal(text, 'abcd');
    await mock.settled();
    assert.equal(mock.requests.at(-1)!.outcome, 'cut');
  });

  it('hang: one delta, then nothing until the client aborts', async () => {
    mock.script({ text: 'slow answer', hang: true });
    const controller = new AbortController();
    const deltas: string[] = [];
    const answer = await client().chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES, stream: true }, { signal: controller.signal });
    for await (const chunk of answer) { // an abort ends the SDK's iteration quietly
      if (chunk.choices[0]?.delta.content) {
        deltas.push(chunk.choices[0].delta.content);
        controller.abort();
      }
    }
    assert.equal(deltas.length, 1);
    await mock.settled();
    assert.equal(mock.requests.at(-1)!.outcome, 'client-closed');
  });

  const statuses: Array<[number, new (...args: never[]) => APIError, string | null, RegExp]> = [
    [400, OpenAI.BadRequestError, 'context_length_exceeded', /maximum context length is 4096 tokens\. However, your messages resulted in 9000 tokens/],
    [429, OpenAI.RateLimitError, 'rate_limit_exceeded', /Rate limit reached/],
    [500, OpenAI.InternalServerError, null, /had an error while processing your request/],
    [503, OpenAI.InternalServerError, null, /The server is overloaded or not ready yet\./],
  ];
  for (const [status, errorClass, code, message] of statuses) {
    it(`a scripted ${status} surfaces as ${errorClass.name} with the status, code and message`, async () => {
      mock.script({ status, retryAfter: status === 429 ? 2 : undefined });
      const error = await rejection(stream());
      assert.ok(error instanceof errorClass, String(error));
      assert.equal((error as APIError).status, status);
      assert.equal((error as APIError).code, code);
      assert.match(error.message, message);
      if (status === 429) assert.equal((error as APIError).headers?.get('retry-after'), '2');
    });
  }

  it('a wrong key gets 401 AuthenticationError (invalid_api_key) without the key echoed in full, and consumes no reply', async () => {
    mock.script({ text: 'kept for the next request' });
    const wrongKey = 'sk-wrong-key-abcdefghijklmnop';
    const error = await rejection(client({ apiKey: wrongKey }).chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES }));
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal(error.status, 401);
    assert.equal(error.code, 'invalid_api_key');
    assert.equal(error.type, 'invalid_request_error');
    assert.match(error.message, /^401 Incorrect API key provided: sk-w\*+mnop\./);
    assert.ok(!error.message.includes(wrongKey));
    assert.equal(mock.requests.at(-1)!.apiKey, wrongKey);
    const next = await client().chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES });
    assert.equal(next.choices[0].message.content, 'kept for the next request');
  });

  it('html: a 200 web page, as a misconfigured base URL answers — a string without stream, no chunks with it', async () => {
    mock.script({ html: true }, { html: true });
    const page: unknown = await client().chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES });
    assert.equal(typeof page, 'string');
    assert.match(page as string, /^<!DOCTYPE html>/);
    const { chunks } = await collect(await stream());
    assert.deepEqual(chunks, []);
  });

  it('an unknown path is a 404 NotFoundError', async () => {
    const error = await rejection(client({ baseURL: `${mock.url}/v2` }).chat.completions.create({ model: 'gpt-4.1', messages: MESSAGES }));
    assert.ok(error instanceof OpenAI.NotFoundError, String(error));
    assert.match(error.message, /Invalid URL \(POST \/v2\/chat\/completions\)/);
  });
});

describe('mockOpenAi as Azure OpenAI (real AzureOpenAI client)', function () {
  this.timeout(3000);
  let mock: Mock;
  const azure = (apiKey = AZURE_KEY) => new AzureOpenAI({ apiKey, endpoint: mock.url, apiVersion: '2024-10-21', deployment: 'gpt4o-prod', maxRetries: 0 });

  before(async () => {
    mock = await openAiHarness.startMockOpenAi({ validKey: AZURE_KEY });
  });
  after(() => mock.close());

  it('streams from the deployment route (api-key header), opening with the prompt_filter_results chunk of empty choices', async () => {
    mock.script({ text: 'Azure says hi.', chunks: 3, model: 'gpt-4o-2024-11-20' });
    const answer = await azure().chat.completions.create({ model: 'gpt-4o', messages: MESSAGES, stream: true });
    const { chunks, text, finish } = await collect(answer);
    assert.equal(text, 'Azure says hi.');
    assert.equal(finish, 'stop');
    assert.deepEqual(chunks[0].choices, []);
    assert.ok('prompt_filter_results' in chunks[0]);
    await mock.settled();
    const request = mock.requests.at(-1)!;
    assert.equal(request.path, '/openai/deployments/gpt4o-prod/chat/completions');
    assert.equal(request.deployment, 'gpt4o-prod');
    assert.equal(request.apiVersion, '2024-10-21');
    assert.equal(request.apiKey, AZURE_KEY);
    assert.equal(request.headers['api-key'], AZURE_KEY);
  });

  it('a wrong key gets 401 AuthenticationError in Azure\'s shape', async () => {
    const error = await rejection(azure('wrong-azure-key').chat.completions.create({ model: 'gpt-4o', messages: MESSAGES }));
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal((error as APIError).status, 401);
    assert.match(error.message, /Access denied due to invalid subscription key/);
  });

  it('without api-version the deployment route is 404 Resource not found', async () => {
    const plain = new OpenAI({ apiKey: AZURE_KEY, baseURL: `${mock.url}/openai/deployments/gpt4o-prod`, defaultHeaders: { 'api-key': AZURE_KEY }, maxRetries: 0 });
    const error = await rejection(plain.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES }));
    assert.ok(error instanceof OpenAI.NotFoundError, String(error));
    assert.equal((error as APIError).status, 404);
    assert.equal((error as APIError).code, '404');
    assert.equal(error.message, '404 Resource not found');
    const request = mock.requests.at(-1)!;
    assert.equal(request.deployment, 'gpt4o-prod');
    assert.equal(request.apiVersion, undefined);
  });
});

describe('mockOllama (real ollama SDK)', function () {
  this.timeout(3000);
  let mock: Mock;
  let ollama: Ollama;
  const statusOf = (error: Error) => (error as Error & { status_code?: number }).status_code;

  before(async () => {
    mock = await ollamaHarness.startMockOllama();
    ollama = new Ollama({ host: mock.url });
  });
  after(() => mock.close());

  it('list: the configured models with their details', async () => {
    const { models } = await ollama.list();
    assert.deepEqual(models.map((m) => [m.name, m.model, m.details.family, m.details.parameter_size]), [
      ['qwen2.5-coder:7b', 'qwen2.5-coder:7b', 'qwen2', '7B'],
      ['llama3.2:1b', 'llama3.2:1b', 'llama', '1B'],
    ]);
    assert.match(models[0].digest, /^[0-9a-f]{64}$/);
    assert.ok(models.every((m) => m.size > 0 && typeof m.details.quantization_level === 'string'));
  });

  it('show: model_info with the context length under the architecture, and the capabilities; older clients send name', async () => {
    const shown = await ollama.show({ model: 'qwen2.5-coder:7b' });
    const info = shown.model_info as unknown as Record<string, unknown>;
    assert.equal(info['general.architecture'], 'qwen2');
    assert.equal(info['qwen2.context_length'], 32768);
    assert.deepEqual(shown.capabilities, ['completion', 'tools']);
    assert.equal(shown.details.family, 'qwen2');
    assert.equal(typeof shown.modelfile, 'string');
    const byName = await fetch(`${mock.url}/api/show`, { method: 'POST', body: JSON.stringify({ name: 'llama3.2:1b' }) });
    const llama = await byName.json() as { model_info: Record<string, unknown>; capabilities: string[] };
    assert.equal(llama.model_info['llama.context_length'], 131072);
    assert.deepEqual(llama.capabilities, ['completion']);
  });

  it("show of an unknown model: 404 \"model 'x' not found\"", async () => {
    const error = await rejection(ollama.show({ model: 'mistral:7b' }));
    assert.equal(error.name, 'ResponseError');
    assert.equal(statusOf(error), 404);
    assert.equal(error.message, "model 'mistral:7b' not found");
  });

  it('chat streams NDJSON message lines, then the done line with the counts; num_ctx is recorded', async () => {
    mock.script({ text: 'Hello from Ollama.', chunks: 3, promptEvalCount: 120, evalCount: 9 });
    const parts: ChatResponse[] = [];
    for await (const part of await ollama.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'Question: hi?' }], stream: true, options: { num_ctx: 16384 } })) parts.push(part);
    assert.equal(parts.length, 4);
    assert.equal(parts.slice(0, 3).map((p) => p.message.content).join(''), 'Hello from Ollama.');
    assert.ok(parts.slice(0, 3).every((p) => !p.done && p.message.role === 'assistant' && p.model === 'qwen2.5-coder:7b'));
    const last = parts[3];
    assert.equal(last.done, true);
    assert.equal(last.done_reason, 'stop');
    assert.equal(last.message.content, '');
    assert.equal(last.prompt_eval_count, 120);
    assert.equal(last.eval_count, 9);
    assert.ok(last.total_duration > 0);
    await mock.settled();
    const request = mock.requests.at(-1)!;
    assert.equal(request.numCtx, 16384);
    assert.equal(request.outcome, 'complete');
  });

  it('chat with stream: false answers one object (the default echo)', async () => {
    const answer = await ollama.chat({ model: 'llama3.2:1b', messages: [{ role: 'user', content: 'Question: why?' }] });
    assert.equal(answer.done, true);
    assert.equal(answer.message.content, 'Mock answer to: why?');
    assert.equal(mock.requests.at(-1)!.numCtx, undefined);
  });

  it('chat streams tool calls whole, with object arguments and no id, then the done line', async () => {
    mock.script({ toolCalls: [{ name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } }] });
    const parts: ChatResponse[] = [];
    const tools = [{ type: 'function', function: { name: 'read_code', description: 'Read.', parameters: { type: 'object', properties: { citation: { type: 'string' } } } } }];
    for await (const part of await ollama.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'Read Foo' }], tools, stream: true })) parts.push(part);
    assert.equal(parts.length, 2);
    assert.deepEqual(parts[0].message.tool_calls, [{ function: { name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } } }]);
    assert.equal(parts[1].done, true);
    assert.deepEqual(mock.requests.at(-1)!.body?.tools, tools);
  });

  it('chat: an unknown model is 404, tools to a model without the capability 400', async () => {
    const missing = await rejection(ollama.chat({ model: 'nope', messages: [{ role: 'user', content: 'x' }], stream: true }));
    assert.equal(statusOf(missing), 404);
    assert.equal(missing.message, 'model "nope" not found, try pulling it first');
    const noTools = await rejection(ollama.chat({ model: 'llama3.2:1b', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'read_code' } }] }));
    assert.equal(statusOf(noTools), 400);
    assert.equal(noTools.message, 'registry.ollama.ai/library/llama3.2:1b does not support tools');
  });

  for (const [status, message] of [[500, 'llama runner process has terminated: exit status 2'], [503, 'server busy']] as const) {
    it(`chat: a scripted ${status} surfaces as ResponseError with status_code ${status}`, async () => {
      mock.script({ status });
      const error = await rejection(ollama.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'x' }], stream: true }));
      assert.equal(error.name, 'ResponseError');
      assert.equal(statusOf(error), status);
      assert.equal(error.message, message);
    });
  }

  it('chat: streamError is an {"error"} line mid-stream, which the SDK throws', async () => {
    mock.script({ text: 'partial answer', streamError: 'an error was encountered while running the model', afterChunks: 2 });
    const contents: string[] = [];
    const error = await rejection((async () => {
      for await (const part of await ollama.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'x' }], stream: true })) contents.push(part.message.content);
    })());
    assert.equal(contents.length, 2);
    assert.equal(error.message, 'an error was encountered while running the model');
  });

  it('chat: cutAfterChunks ends the stream early and the SDK fails', async () => {
    mock.script({ text: 'abcdefgh', chunks: 4, cutAfterChunks: 1 });
    const contents: string[] = [];
    await rejection((async () => {
      for await (const part of await ollama.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'x' }], stream: true })) contents.push(part.message.content);
    })());
    assert.deepEqual(contents, ['ab']);
    await mock.settled();
    assert.equal(mock.requests.at(-1)!.outcome, 'cut');
  });
});
