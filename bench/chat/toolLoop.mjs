// The chat's tool loop (src/core/chat/toolLoop.ts) without the model: the time each round adds
// besides the model and the tools (building the request, cache marks, step records, fencing the
// results). The model answers at once with scripted tool calls; each tool answers at once with
// the result the real tool gave over demo/ (recorded first), so the loop handles real-sized output.
// Goal: loop overhead p95 < 10 ms per round.
// Also: the input tokens of a five-round answer with prompt caching (each round reads the prefix
// before it from the cache at a tenth of the price, and writes its new part at 1.25x) against
// resending everything each round. Needs out/ (compiled by npm run bench) first.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const { openLocalCore } = require('../../out/src/adapters/localCore.js');
const { runToolLoop } = require('../../out/src/core/chat/toolLoop.js');
const { buildPrompt, catalog, estimateTokens } = require('../../out/src/core/chat/prompt.js');
const { WikiRetriever } = require('../../out/src/core/chat/retrieval.js');

const ROUNDS = 5;
const ANSWERS = sized(200, 5);
const GOAL_MS = 10;
const CALLS = [
  { name: 'search_wiki', input: { query: 'error responses' } },
  { name: 'read_page', input: { slug: 'request-pipeline' } },
  { name: 'read_code', input: { citation: 'src/errors.ts:toErrorResponse' } },
  { name: 'read_code', input: { citation: 'src/pipeline.ts:Pipeline.run' } },
  { name: 'check_drift', input: { slug: 'errors-become-responses-at-the-edge' } },
];

const root = mkdtempSync(join(tmpdir(), 'repo-wiki-loop-bench-'));
cpSync(resolve('demo'), root, { recursive: true });
const core = openLocalCore(root);
const tools = core.tools();
const pages = await core.pages();
const question = 'What status does a thrown HttpError become, and where is that decided?';
const retrieved = new WikiRetriever(pages).search(question, 5);
const prompt = buildPrompt({
  question, priorTurns: [], retrieved, pageBodies: new Map(pages.map((page) => [page.slug, page.body])),
  catalog: catalog(pages), settings: { maxPriorTurns: 0, priorAnswerChars: 500 }, tools: true,
});

// The real tools' results, recorded once; the loop below is then timed alone.
const recorded = new Map();
for (const call of CALLS) recorded.set(JSON.stringify(call), await tools.find((tool) => tool.name === call.name).run(call.input));
const instantTools = tools.map((tool) => ({ ...tool, run: async (input) => recorded.get(JSON.stringify({ name: tool.name, input })) }));

/** A model that answers at once: round k calls CALLS[k], the last round answers; it records each request's size. */
function instantModel(sizes) {
  let round = 0;
  return {
    async complete(request) {
      sizes?.push(estimateTokens(JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools })));
      const call = CALLS[round];
      round++;
      if (request.toolChoice === 'none' || !call) return { text: 'done', toolCalls: [], model: 'bench', inputTokens: 0, outputTokens: 0, stopReason: 'end_turn' };
      return { text: '', toolCalls: [{ id: `toolu_${round}`, ...call }], model: 'bench', inputTokens: 0, outputTokens: 0, stopReason: 'tool_use' };
    },
  };
}

const settings = { model: 'bench', maxTokens: 1024, maxToolRounds: ROUNDS, toolTokenBudget: 1e9 };
const overhead = [];
for (let i = 0; i < ANSWERS; i++) {
  const started = performance.now();
  await runToolLoop(instantModel(), { ...prompt, tools: instantTools, settings, steps: [] }, { onText() {} });
  overhead.push((performance.now() - started) / (ROUNDS + 1));
}
const loop = stats(overhead);
console.log(`tool loop, ${ROUNDS} tool rounds + the answer, ${ANSWERS} answers, recorded results of the real tools over demo/: overhead per round p50 ${ms(loop.p50)} p95 ${ms(loop.p95)}  goal p95 < ${GOAL_MS} ms: ${verdict(loop.p95 < GOAL_MS)}`);

// Prompt caching: what the rounds of one answer cost in input tokens.
const sizes = [];
await runToolLoop(instantModel(sizes), { ...prompt, tools: instantTools, settings, steps: [] }, { onText() {} });
const resent = sizes.reduce((sum, size) => sum + size, 0);
let cached = 0;
for (const [i, size] of sizes.entries()) {
  const prefix = i ? sizes[i - 1] : 0; // written to the cache by the round before
  cached += prefix * 0.1 + (size - prefix) * 1.25;
}
console.log(`a ${sizes.length}-request answer (${ROUNDS} tool rounds): ${sizes.map((size) => size.toLocaleString()).join(' + ')} input tokens`);
console.log(`  resending everything each round: ${Math.round(resent).toLocaleString()} tokens billed; with the cache marks: ${Math.round(cached).toLocaleString()} token-equivalents (${(cached / resent).toFixed(2)}x)`);
rmSync(root, { recursive: true, force: true });
