import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AnthropicModel } from '../../../../src/adapters/llm/anthropicModel';
import { OllamaModel, listOllamaModels } from '../../../../src/adapters/llm/ollamaModel';
import { OpenAiModel } from '../../../../src/adapters/llm/openAiModel';
import { providerAdapter } from '../../../../src/adapters/llm/providers';
import { assembleChain } from '../../../../src/core/llm/modelChain';
import { checkOllamaHost } from '../../../../src/core/llm/providerSettings';
import { LlmError, type CompletionRequest, type LanguageModel, type LlmErrorKind } from '../../../../src/core/llm/languageModel';

// The real SDKs (openai, ollama, @anthropic-ai/sdk) against local mocks of each wire protocol.
const harness = (name: string) => require(path.resolve(__dirname, `../../../../../test/harness/${name}.cjs`));
const { startMockOpenAi, toolResults: openAiToolResults } = harness('mockOpenAi');
const { startMockOllama } = harness('mockOllama');
const { startMockAnthropic } = harness('mockAnthropic');

interface Recorded { body: Record<string, any>; apiKey?: string; deployment?: string; apiVersion?: string; numCtx?: number; path?: string }
interface Mock { url: string; requests: Recorded[]; script(...replies: unknown[]): void; close(): Promise<void> }

const REQUEST: CompletionRequest = {
  model: 'ignored-by-the-chain',
  maxTokens: 300,
  system: [{ text: 'You are the librarian.' }],
  messages: [{ role: 'user', content: 'Question: why?' }],
};
const TOOLS = [{ name: 'read_code', description: 'Reads code.', inputSchema: { type: 'object', properties: { citation: { type: 'string' } } } }];
const ignore = { onText: () => {} };

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  return promise.then(() => assert.fail('expected a rejection'), (error: unknown) => {
    assert.ok(error instanceof LlmError, String(error));
    return error;
  });
}

describe('model providers (real SDKs, mock servers on 127.0.0.1)', function () {
  this.timeout(10_000);
  let openai: Mock;
  let ollama: Mock;
  let anthropic: Mock;
  before(async () => {
    openai = await startMockOpenAi({ validKey: 'sk-openai-0001' });
    ollama = await startMockOllama();
    anthropic = await startMockAnthropic({ validKey: 'sk-ant-0001' });
  });
  after(async () => Promise.all([openai.close(), ollama.close(), anthropic.close()]));

  const openAiModel = (options: Partial<ConstructorParameters<typeof OpenAiModel>[0]> = {}) =>
    new OpenAiModel({ provider: 'openai', model: 'gpt-4.1', apiKey: 'sk-openai-0001', baseURL: `${openai.url}/v1`, maxRetries: 0, ...options });
  const azureModel = (options: Partial<ConstructorParameters<typeof OpenAiModel>[0]> = {}) =>
    new OpenAiModel({ provider: 'azure', model: 'gpt4o-prod', apiKey: 'sk-openai-0001', endpoint: openai.url, apiVersion: '2024-10-21', maxRetries: 0, ...options });
  const ollamaModel = (model = 'qwen2.5-coder:7b') => new OllamaModel({ model, host: ollama.url });
  const anthropicModel = () => new AnthropicModel({ apiKey: 'sk-ant-0001', baseURL: anthropic.url, maxRetries: 0, sleep: async () => {} });
  const ask = (model: LanguageModel, name: string, request: Partial<CompletionRequest> = {}) => model.complete({ ...REQUEST, model: name, ...request }, ignore);

  describe('OpenAI Chat Completions', () => {
    it('streams text and reports usage and the model as provider/model', async () => {
      openai.script({ text: 'Hello from OpenAI.', chunks: 4, usage: { prompt_tokens: 30, completion_tokens: 5 } });
      const deltas: string[] = [];
      const result = await openAiModel().complete({ ...REQUEST, model: 'gpt-4.1' }, { onText: (d) => deltas.push(d) });
      assert.equal(deltas.join(''), 'Hello from OpenAI.');
      assert.ok(deltas.length > 1);
      assert.equal(result.model, 'openai/gpt-4.1');
      assert.equal(result.inputTokens, 30);
      assert.equal(result.outputTokens, 5);
      assert.equal(result.stopReason, 'stop');
      const body = openai.requests.at(-1)!.body;
      assert.equal(body.messages[0].role, 'system');
      assert.equal(body.max_tokens, 300, 'a custom server gets max_tokens');
    });

    it('counts tokens itself when the server reports no usage', async () => {
      openai.script({ text: 'An answer of a few tokens.', noUsage: true });
      const result = await ask(openAiModel(), 'gpt-4.1');
      assert.ok(result.inputTokens > 5 && result.inputTokens < 40, String(result.inputTokens));
      assert.ok(result.outputTokens >= 5 && result.outputTokens < 12, String(result.outputTokens));
    });

    for (const quirk of [undefined, 'no-id', 'no-index', 'whole'] as const) {
      it(`assembles streamed tool calls${quirk ? ` (${quirk}, as some servers send them)` : ''}`, async () => {
        openai.script({ toolCalls: [{ name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } }, { name: 'search_wiki', arguments: { query: 'retry' } }], ...(quirk ? { quirk } : {}) });
        const result = await ask(openAiModel(), 'gpt-4.1', { tools: TOOLS });
        assert.deepEqual(result.toolCalls!.map((call) => [call.name, call.input]), [['read_code', { citation: 'src/a.ts:Foo' }], ['search_wiki', { query: 'retry' }]]);
        assert.equal(new Set(result.toolCalls!.map((call) => call.id)).size, 2, 'each call has its own id');
        assert.equal(result.stopReason, 'tool_use');
      });
    }

    it('passes arguments that are not JSON on as text, for the tool to refuse', async () => {
      openai.script({ toolCalls: [{ name: 'read_code', arguments: '{"citation": "src/a.ts' }] });
      const result = await ask(openAiModel(), 'gpt-4.1', { tools: TOOLS });
      assert.equal(result.toolCalls![0].input, '{"citation": "src/a.ts');
    });

    it('sends tool results back paired with their calls', async () => {
      openai.script({ text: 'Done.' });
      await ask(openAiModel(), 'gpt-4.1', {
        tools: TOOLS,
        messages: [
          { role: 'user', content: 'Q' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read_code', input: { citation: 'a' } }] },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_1', content: 'code', isError: false }] },
        ],
      });
      assert.deepEqual(openAiToolResults(openai.requests.at(-1)), [{ tool_call_id: 'call_1', content: 'code' }]);
    });

    it('a stream cut in the middle of a tool call is a network error, never a half call', async () => {
      openai.script({ cutInToolCall: true, toolCalls: [{ name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } }] });
      const error = await failure(ask(openAiModel(), 'gpt-4.1', { tools: TOOLS }));
      assert.equal(error.kind, 'network');
    });

    it('a server that answers HTML says to check the base URL', async () => {
      openai.script({ html: true });
      const error = await failure(ask(openAiModel(), 'gpt-4.1'));
      assert.match(error.message, /web page.*\/v1/);
    });

    it('never puts the key in a message', async () => {
      const error = await failure(ask(openAiModel({ apiKey: 'sk-wrong-key-123456' }), 'gpt-4.1'));
      assert.equal(error.kind, 'auth');
      assert.doesNotMatch(error.message, /sk-wrong-key-123456/);
      assert.match(error.message, /Set up a model/);
    });
  });

  describe('Azure OpenAI', () => {
    it('calls the deployment URL with the api-version and the api-key header', async () => {
      openai.script({ text: 'From Azure.' });
      const result = await ask(azureModel(), 'gpt4o-prod');
      assert.equal(result.text, 'From Azure.');
      const request = openai.requests.at(-1)!;
      assert.equal(request.deployment, 'gpt4o-prod');
      assert.equal(request.apiVersion, '2024-10-21');
      assert.equal(request.apiKey, 'sk-openai-0001');
      assert.equal(request.body.max_completion_tokens, 300);
      assert.equal(result.model, 'azure/gpt4o-prod');
    });

    it('without an api-version, refuses before sending, and says which setting', async () => {
      const before = openai.requests.length;
      const error = await failure(ask(azureModel({ apiVersion: undefined }), 'gpt4o-prod'));
      assert.match(error.message, /api-version.*repoWiki\.llm\.azure\.apiVersion.*OPENAI_API_VERSION/);
      assert.equal(openai.requests.length, before);
    });
  });

  describe('Ollama', () => {
    it('streams NDJSON, sends num_ctx from /api/show, and counts tokens from the usage', async () => {
      ollama.script({ text: 'Hello from Ollama.', chunks: 3, promptEvalCount: 42, evalCount: 6 });
      const model = ollamaModel();
      const traits = await model.describe();
      assert.equal(traits.contextWindow, 32768);
      assert.equal(traits.tools, true);
      const result = await ask(model, 'qwen2.5-coder:7b');
      assert.equal(result.text, 'Hello from Ollama.');
      assert.equal(result.inputTokens, 42);
      assert.equal(result.outputTokens, 6);
      assert.equal(result.model, 'ollama/qwen2.5-coder:7b');
      assert.equal(ollama.requests.at(-1)!.numCtx, 32768);
    });

    it('caps num_ctx at 32,768 for a model trained on more, unless a window is set', async () => {
      assert.equal((await ollamaModel('llama3.2:1b').describe()).contextWindow, 32768);
      assert.equal((await new OllamaModel({ model: 'llama3.2:1b', host: ollama.url, contextWindow: 65536 }).describe()).contextWindow, 65536);
    });

    it('tool calls arrive whole and get ids', async () => {
      ollama.script({ toolCalls: [{ name: 'read_code', arguments: { citation: 'src/a.ts:Foo' } }] });
      const result = await ask(ollamaModel(), 'qwen2.5-coder:7b', { tools: TOOLS });
      assert.deepEqual(result.toolCalls, [{ id: 'call_1', name: 'read_code', input: { citation: 'src/a.ts:Foo' } }]);
    });

    it('a model that cannot call tools is sent none, and answers in one shot', async () => {
      ollama.script({ text: 'One shot.' });
      const model = ollamaModel('llama3.2:1b');
      assert.equal((await model.describe()).tools, false);
      const result = await ask(model, 'llama3.2:1b', { tools: TOOLS });
      assert.equal(result.text, 'One shot.');
      assert.equal(ollama.requests.at(-1)!.body.tools, undefined);
    });

    it('a model the server does not have says to pull it', async () => {
      const error = await failure(ask(ollamaModel('nope:1b'), 'nope:1b'));
      assert.equal(error.kind, 'model-not-found');
      assert.match(error.message, /ollama pull nope:1b/);
    });

    it('a server that is not running says how to start it', async () => {
      const error = await failure(ask(new OllamaModel({ model: 'qwen2.5-coder:7b', host: 'http://127.0.0.1:9' }), 'qwen2.5-coder:7b'));
      assert.equal(error.kind, 'network');
      assert.match(error.message, /ollama serve/);
    });

    it('an error line inside the stream fails the answer with the server\'s words', async () => {
      ollama.script({ streamError: 'runner crashed', afterChunks: 1 });
      const error = await failure(ask(ollamaModel(), 'qwen2.5-coder:7b'));
      assert.match(error.message, /runner crashed/);
    });

    it('lists the models the server has', async () => {
      assert.deepEqual(await listOllamaModels(ollama.url), ['llama3.2:1b', 'qwen2.5-coder:7b']);
    });
  });

  describe('every error kind is classified the same on every provider', () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, LlmErrorKind][] = [
      ['HTTP 401', { status: 401 }, { status: 401 }, { status: 401, error: 'unauthorized' }, 'auth'],
      ['HTTP 404', { status: 404 }, { status: 404 }, { status: 404 }, 'model-not-found'],
      ['HTTP 429', { status: 429 }, { status: 429 }, { status: 429 }, 'rate-limit'],
      ['HTTP 503', { status: 503 }, { status: 503 }, { status: 503 }, 'overloaded'],
      ['HTTP 500', { status: 500 }, { status: 500 }, { status: 500 }, 'other'],
      ['the prompt too long', { status: 400 }, { status: 400 }, { status: 400, error: 'the input length exceeds the context length' }, 'context-too-long'],
    ];
    for (const [what, anthropicReply, openAiReply, ollamaReply, kind] of cases) {
      it(`${what} is ${kind}`, async () => {
        anthropic.script(anthropicReply);
        openai.script(openAiReply);
        ollama.script(ollamaReply);
        const kinds = [
          (await failure(ask(anthropicModel(), 'claude-test'))).kind,
          (await failure(ask(openAiModel(), 'gpt-4.1'))).kind,
          (await failure(ask(ollamaModel(), 'qwen2.5-coder:7b'))).kind,
        ];
        assert.deepEqual(kinds, [kind, kind, kind]);
      });
    }
  });

  describe('a chain of providers', () => {
    it('falls back from an overloaded model to the next, each with its own key', async () => {
      anthropic.script({ status: 529 });
      openai.script({ text: 'The fallback answered.' });
      const settings = { anthropic: { apiKey: 'sk-ant-0001', baseUrl: anthropic.url }, openai: { apiKey: 'sk-openai-0001', baseUrl: `${openai.url}/v1` }, azure: {}, ollama: {} };
      // Anthropic's adapter without its own retries, so the 529 reaches the chain at once.
      const offer = await assembleChain({ models: ['anthropic/claude-test', 'openai/gpt-4.1'] }, async (ref) => (ref.provider === 'anthropic' ? { adapter: anthropicModel() } : providerAdapter(ref, settings)), { allFailed: 'Change the models.' });
      assert.ok('model' in offer);
      const result = await offer.model.complete(REQUEST, ignore);
      assert.equal(result.text, 'The fallback answered.');
      assert.equal(result.model, 'openai/gpt-4.1');
      assert.deepEqual(result.attempts!.map((attempt) => [attempt.model, attempt.kind]), [['anthropic/claude-test', 'overloaded']]);
      assert.equal(openai.requests.at(-1)!.apiKey, 'sk-openai-0001');
      assert.ok(openai.requests.every((request) => request.apiKey !== 'sk-ant-0001'), 'the Anthropic key never reaches the OpenAI endpoint');
      assert.ok(anthropic.requests.every((request) => request.apiKey !== 'sk-openai-0001'), 'the OpenAI key never reaches the Anthropic endpoint');
    });

    it('takes an Ollama host written as OLLAMA_HOST is for Ollama: host:port, host or :port, with no scheme', async () => {
      const port = new URL(ollama.url).port;
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}/`, `:${port}`]) {
        const offer = providerAdapter({ provider: 'ollama', model: 'qwen2.5-coder:7b' }, { anthropic: {}, openai: {}, azure: {}, ollama: { host } });
        assert.ok('adapter' in offer);
        ollama.script({ text: `Answered at ${host}.` });
        assert.equal((await offer.adapter.complete({ ...REQUEST, model: 'qwen2.5-coder:7b' }, ignore)).text, `Answered at ${host}.`);
      }
      assert.equal(checkOllamaHost('gpu-box', 'OLLAMA_HOST'), 'http://gpu-box:11434', 'no port: Ollama\'s own');
      assert.equal(checkOllamaHost('https://ollama.example.com', 'OLLAMA_HOST'), 'https://ollama.example.com', 'a URL stays as it is');
      assert.throws(() => checkOllamaHost('file:///etc/passwd', 'OLLAMA_HOST'), /http or https/);
    });

    it('refuses an endpoint that is not an http(s) URL', () => {
      assert.throws(() => providerAdapter({ provider: 'openai', model: 'x' }, { anthropic: {}, openai: { apiKey: 'k', baseUrl: 'file:///etc/passwd' }, azure: {}, ollama: {} }), /http or https/);
      assert.throws(() => providerAdapter({ provider: 'ollama', model: 'x' }, { anthropic: {}, openai: {}, azure: {}, ollama: { host: 'not a url' } }), /not a URL/);
    });
  });
});
