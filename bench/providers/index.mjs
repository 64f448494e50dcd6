// Model providers (src/adapters/llm/, src/core/llm/): what the adapters, the fallback chain and the
// prompt budget add to a turn, each against its baseline in the same run, on local mocks of each
// API (test/harness/mock*.cjs) so only our code and the SDKs are measured.
// 1. Adapter overhead per provider: a streamed answer from the first request byte to the last delta
//    through our adapter, against the raw SDK call on the same mock. Goal: p95 overhead < 2 ms.
// 2. Fallback switch: from the first model's failure (a 503 the SDK does not retry) to the second
//    model's request. Goal: < 20 ms beyond the SDK's own retries.
// 3. Prompt budgeting for a 4,096-token window on a 2,000-page wiki (o200k counts, 20% margin).
//    Goal: p95 < 5 ms.
// Needs out/ (compiled by npm run bench) first.
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const { startMockOpenAi } = require('../../test/harness/mockOpenAi.cjs');
const { startMockOllama } = require('../../test/harness/mockOllama.cjs');
const { startMockAnthropic } = require('../../test/harness/mockAnthropic.cjs');
const { AnthropicModel } = require('../../out/src/adapters/llm/anthropicModel.js');
const { OpenAiModel } = require('../../out/src/adapters/llm/openAiModel.js');
const { OllamaModel } = require('../../out/src/adapters/llm/ollamaModel.js');
const { openAiTokenCounter } = require('../../out/src/adapters/llm/tokenCounter.js');
const { FallbackChain } = require('../../out/src/core/llm/fallbackChain.js');
const { buildPrompt, catalog } = require('../../out/src/core/chat/prompt.js');
const { fitPrompt } = require('../../out/src/core/chat/promptBudget.js');
const Anthropic = require('@anthropic-ai/sdk').default;
const OpenAI = require('openai').default;
const { AzureOpenAI } = require('openai');
const { Ollama } = require('ollama');

const RUNS = sized(500, 10);
const CHUNKS = 20;
const TEXT = 'A streamed answer of about twenty deltas, as a short chat answer arrives from a model. '.repeat(2);
const REQUEST = { model: 'm', maxTokens: 512, system: [{ text: 'You are the librarian.' }], messages: [{ role: 'user', content: 'Question: why?' }] };

const anthropicMock = await startMockAnthropic();
const openAiMock = await startMockOpenAi();
const ollamaMock = await startMockOllama();
const reply = { text: TEXT, chunks: CHUNKS };
const infinite = (mock) => { mock.script(...Array.from({ length: RUNS * 2 + 10 }, () => reply)); };

const providers = [
  {
    name: 'anthropic', mock: anthropicMock,
    adapter: new AnthropicModel({ apiKey: 'k', baseURL: anthropicMock.url, maxRetries: 0 }),
    raw: (() => { const client = new Anthropic({ apiKey: 'k', baseURL: anthropicMock.url, maxRetries: 0 }); return async () => { const stream = await client.messages.create({ model: 'm', max_tokens: 512, system: 'You are the librarian.', messages: [{ role: 'user', content: 'Question: why?' }], stream: true }); for await (const event of stream) void event; }; })(),
  },
  {
    name: 'openai', mock: openAiMock,
    adapter: new OpenAiModel({ provider: 'openai', model: 'gpt-4.1', apiKey: 'k', baseURL: `${openAiMock.url}/v1`, maxRetries: 0 }),
    raw: (() => { const client = new OpenAI({ apiKey: 'k', baseURL: `${openAiMock.url}/v1`, maxRetries: 0 }); return async () => { const stream = await client.chat.completions.create({ model: 'gpt-4.1', max_tokens: 512, messages: [{ role: 'system', content: 'You are the librarian.' }, { role: 'user', content: 'Question: why?' }], stream: true, stream_options: { include_usage: true } }); for await (const chunk of stream) void chunk; }; })(),
  },
  {
    name: 'azure', mock: openAiMock,
    adapter: new OpenAiModel({ provider: 'azure', model: 'gpt4o', apiKey: 'k', endpoint: openAiMock.url, apiVersion: '2024-10-21', maxRetries: 0 }),
    raw: (() => { const client = new AzureOpenAI({ apiKey: 'k', endpoint: openAiMock.url, apiVersion: '2024-10-21', deployment: 'gpt4o', maxRetries: 0 }); return async () => { const stream = await client.chat.completions.create({ model: 'gpt4o', max_completion_tokens: 512, messages: [{ role: 'system', content: 'You are the librarian.' }, { role: 'user', content: 'Question: why?' }], stream: true, stream_options: { include_usage: true } }); for await (const chunk of stream) void chunk; }; })(),
  },
  {
    name: 'ollama', mock: ollamaMock,
    adapter: new OllamaModel({ model: 'qwen2.5-coder:7b', host: ollamaMock.url }),
    raw: (() => { const client = new Ollama({ host: ollamaMock.url }); return async () => { const stream = await client.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'system', content: 'You are the librarian.' }, { role: 'user', content: 'Question: why?' }], stream: true, options: { num_ctx: 32768, num_predict: 512 } }); for await (const chunk of stream) void chunk; }; })(),
  },
];

console.log(`adapter overhead: a streamed answer of ${CHUNKS} deltas, ${RUNS} runs each way, alternating, on local mocks`);
let worst = 0;
for (const provider of providers) {
  infinite(provider.mock);
  const model = provider.name === 'azure' ? 'gpt4o' : provider.name === 'ollama' ? 'qwen2.5-coder:7b' : provider.name === 'openai' ? 'gpt-4.1' : 'm';
  for (let i = 0; i < 5; i++) { await provider.raw(); await provider.adapter.complete({ ...REQUEST, model }, { onText() {} }); } // warm both
  const raw = [];
  const ours = [];
  for (let i = 0; i < RUNS; i++) {
    let at = performance.now();
    await provider.raw();
    raw.push(performance.now() - at);
    at = performance.now();
    await provider.adapter.complete({ ...REQUEST, model }, { onText() {} });
    ours.push(performance.now() - at);
  }
  const r = stats(raw);
  const o = stats(ours);
  const overhead = o.p95 - r.p95;
  worst = Math.max(worst, overhead);
  console.log(`  ${provider.name.padEnd(9)} raw SDK p50 ${ms(r.p50)} p95 ${ms(r.p95)} | adapter p50 ${ms(o.p50)} p95 ${ms(o.p95)} | overhead p50 ${ms(o.p50 - r.p50)} p95 ${ms(overhead)} (p95 ${(o.p95 / r.p95).toFixed(2)}x)`);
}
console.log(`  worst p95 overhead ${ms(worst)}  goal < 2 ms: ${verdict(worst < 2)}`);

// Fallback switch: the first model's 503 leaves the mock, the chain asks the second.
const switches = [];
for (let i = 0; i < sized(100, 5); i++) {
  let failedAt = 0;
  let askedAt = 0;
  openAiMock.script(() => { failedAt = performance.now(); return { status: 503 }; });
  ollamaMock.script(() => { askedAt = performance.now(); return { text: 'ok', chunks: 1 }; });
  const chain = new FallbackChain([
    { name: 'openai/gpt-4.1', model: 'gpt-4.1', adapter: new OpenAiModel({ provider: 'openai', model: 'gpt-4.1', apiKey: 'k', baseURL: `${openAiMock.url}/v1`, maxRetries: 0 }) },
    { name: 'ollama/qwen2.5-coder:7b', model: 'qwen2.5-coder:7b', adapter: new OllamaModel({ model: 'qwen2.5-coder:7b', host: ollamaMock.url }) },
  ], { allFailed: '' });
  await chain.complete(REQUEST, { onText() {} });
  switches.push(askedAt - failedAt);
}
const sw = stats(switches);
console.log(`fallback switch (503 → next model's request, a fresh chain each time, Ollama's /api/show included): p50 ${ms(sw.p50)} p95 ${ms(sw.p95)}  goal < 20 ms: ${verdict(sw.p95 < 20)}`);

// Prompt budgeting for a small window: fitPrompt counts with o200k and shrinks the parts to fit.
const PAGES = sized(2000, 50);
const pages = Array.from({ length: PAGES }, (_, i) => ({
  slug: `page-${i}`, path: `.wiki/pages/page-${i}.md`, readable: true, body: `How module ${i} handles requests, errors and retries. `.repeat(120),
  frontmatter: { title: `Module ${i}`, summary: `What module ${i} does with requests and where its errors go.` },
}));
const catalogText = catalog(pages);
const retrieved = pages.slice(0, 5).map((p) => ({ slug: p.slug, title: p.frontmatter.title, summary: '', status: 'active', score: 1, passage: p.body.slice(0, 300) }));
const bodies = new Map(pages.slice(0, 5).map((p) => [p.slug, p.body]));
const priorTurns = Array.from({ length: 5 }, (_, i) => ({ question: `What does module ${i} do on a timeout?`, answer: `Module ${i} retries twice, then fails with a 504. `.repeat(30) }));
const tools = Array.from({ length: 7 }, (_, i) => ({ name: `tool_${i}`, description: 'A read-only tool the chat offers the model. '.repeat(6), inputSchema: { type: 'object', properties: { query: { type: 'string' } } } }));
const traits = { name: 'ollama/qwen2.5-coder:7b', contextWindow: 4096, tools: true, countTokens: openAiTokenCounter(), tokenMargin: 0.2 };
traits.countTokens('warm the tokenizer');
const build = (maxPriorTurns, budget) => buildPrompt({ question: 'How are retries configured across modules?', priorTurns, retrieved, pageBodies: bodies, catalog: catalogText, settings: { maxPriorTurns, priorAnswerChars: 500, budget }, tools: true });
const budgeting = [];
let fitted;
for (let i = 0; i < sized(300, 10); i++) {
  const at = performance.now();
  fitted = fitPrompt(traits, 2048, tools, build, 5);
  budgeting.push(performance.now() - at);
}
const b = stats(budgeting);
console.log(`prompt budgeting, 4,096-token window, ${PAGES}-page wiki, 5 prior turns, 7 tools: p50 ${ms(b.p50)} p95 ${ms(b.p95)} (prompt ${fitted.tokens} of ${fitted.budget.inputTokens} input tokens, ${fitted.budget.outputTokens} for the answer)  goal p95 < 5 ms: ${verdict(b.p95 < 5)}`);

await Promise.all([anthropicMock.close(), openAiMock.close(), ollamaMock.close()]);
