// Ingest benchmarks (figures, not tests):
// 1. our overhead per ingested file, excluding model time: planIngest + applyChanges through the real
//    SDK against the mock Messages API on 127.0.0.1 (in its own process), minus the time spent inside the model call;
//    baseline in the same run: that model time (the SDK's round trip to the mock).
// 2. plan validation (parse + preparePlan with every citation resolved by the drift engine) for a
//    50-page plan over a pinned npm package's real TypeScript sources; baselines: JSON.parse alone,
//    and the floor of parsing the cited files with ts.createSourceFile.
// 3. tokens sent per ingest for a 500-page wiki, against a naive prompt that carries the whole wiki.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRealCorpus } from '../drift/corpus.mjs';
import { pickCitations } from '../drift/citations.mjs';
import { ms, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const core = (rel) => require(`../../out/src/${rel}.js`);
const { planIngest } = core('core/ingest/ingest');
const { applyChanges } = core('core/ingest/apply');
const { preparePlan } = core('core/ingest/changes');
const { parsePlan } = core('core/ingest/plan');
const { buildIngestPrompt, INGEST_SYSTEM_PROMPT } = core('core/ingest/prompt');
const { estimateTokens } = core('core/chat/prompt');
const { WikiRetriever } = core('core/chat/retrieval');
const { parsePage } = core('core/pages/page');
const { Wiki } = core('core/wiki/wiki');
const { WorkspaceFiles } = core('adapters/files/workspaceFiles');
const { AnthropicModel } = core('adapters/llm/anthropicModel');
const { openLocalCore } = core('adapters/localCore');
/** A fresh drift engine over the wiki's folder, as the CLI builds it (nothing cached). */
const driftEngineFor = (wiki) => openLocalCore(wiki.root).engine;

const clock = { now: () => new Date() };
const scratch = mkdtempSync(join(tmpdir(), 'repo-wiki-bench-ingest-'));

// 1. Overhead per file.
{
  const FILES = sized(30, 3);
  const root = join(scratch, 'demo');
  cpSync(new URL('../../demo', import.meta.url), root, { recursive: true });
  mkdirSync(join(root, 'docs'));
  // The mock runs in its own process, as the real API would, so its work is not counted as ours.
  const server = spawn(process.execPath, [fileURLToPath(new URL('./mockServer.cjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const mockUrl = await new Promise((resolve) => server.stdout.once('data', (data) => resolve(String(data).trim())));
  const sdk = new AnthropicModel({ apiKey: 'sk-ant-bench', baseURL: mockUrl });
  let modelMs = 0;
  const model = { complete: async (...args) => { const t = performance.now(); try { return await sdk.complete(...args); } finally { modelMs += performance.now() - t; } } };
  const wiki = new Wiki(root, new WorkspaceFiles(root), clock);
  const resolver = driftEngineFor(wiki);
  const overhead = [];
  const roundTrips = [];
  const writes = [];
  for (let i = 0; i < FILES; i++) {
    const text = `# Note ${i}\n\n${'Handlers throw HttpError and the pipeline turns it into a JSON response. '.repeat(20)}\n`;
    writeFileSync(join(root, 'docs', `note-${i}.md`), text);
    modelMs = 0;
    const started = performance.now();
    const result = await planIngest({ wiki, model, resolver, settings: { model: 'claude-bench', maxTokens: 4000, chunkTokens: 12000 }, today: '2026-11-22' },
      [{ ref: `file:docs/note-${i}.md`, path: `docs/note-${i}.md`, text }]);
    const writing = performance.now();
    await applyChanges(wiki, result.changes, { op: 'ingest', sources: result.sources, tokens: { input: result.usage.inputTokens, output: result.usage.outputTokens } });
    writes.push(performance.now() - writing);
    const total = performance.now() - started;
    overhead.push(total - modelMs);
    roundTrips.push(modelMs);
  }
  server.kill();
  const o = stats(overhead);
  const r = stats(roundTrips);
  console.log(`ingest overhead per file (${FILES} files, demo workspace, real SDK + mock, plan + validate + write + index + log):`);
  console.log(`  ours excluding model time: p50 ${ms(o.p50)} p95 ${ms(o.p95)} max ${ms(o.max)} (first file ${ms(overhead[0])}, TypeScript cold)`);
  const w = stats(writes);
  console.log(`    of which applying (atomic writes: pages fsynced, the derived index not; the log line): p50 ${ms(w.p50)} p95 ${ms(w.p95)}`);
  console.log(`  baseline, model time (SDK round trip to the mock): p50 ${ms(r.p50)} p95 ${ms(r.p95)}; ours/model at p50 ${(o.p50 / r.p50).toFixed(2)}x`);
  console.log(`  goal p95 < 30 ms: ${verdict(o.p95 < 30)}`);
}

// 2. Validating a 50-page plan against real sources.
{
  const corpus = makeRealCorpus(join(scratch, 'real'));
  const PLAN_PAGES = sized(50, 10);
  const { citations } = pickCitations(corpus.root, corpus.files, PLAN_PAGES * 4, 20261122);
  const pages = Array.from({ length: PLAN_PAGES }, (_, i) => {
    const cited = citations.slice(i * 4, i * 4 + 4);
    return {
      action: 'create', slug: `plan-page-${i}`, title: `Plan page ${i}`, topic: 'architecture', summary: `Page ${i} of a large plan.`, tags: ['bench'],
      body: `# Plan page ${i}\n\n${cited.map((c) => `- \`${c.text}\` does its part.`).join('\n')}\n\nSee [[plan-page-${(i + 1) % PLAN_PAGES}]].`,
      citations: cited.map((c) => c.text),
    };
  });
  const reply = JSON.stringify({ pages, corroborate: [], links: [] });
  mkdirSync(join(corpus.root, '.wiki', 'pages'), { recursive: true });
  const wiki = new Wiki(corpus.root, new WorkspaceFiles(corpus.root), clock);
  const existing = await wiki.loadPages();
  const cold = [];
  const warm = [];
  const baseline = [];
  const floor = [];
  const ts = require('typescript');
  const citedFiles = [...new Set(citations.map((c) => c.path))];
  for (let i = 0; i < sized(12, 3); i++) {
    // The floor: reading and parsing each cited file once, with nothing else.
    let f = performance.now();
    for (const file of citedFiles) ts.createSourceFile(file, readFileSync(join(corpus.root, file), 'utf8'), { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
    floor.push(performance.now() - f);
    let t = performance.now();
    JSON.parse(reply);
    baseline.push(performance.now() - t);
    const engine = driftEngineFor(wiki); // no cache: every cited file is read and parsed
    t = performance.now();
    const parsed = parsePlan(reply);
    const prepared = await preparePlan(parsed.plan, wiki, existing, engine, { sources: ['file:docs/big.md'], today: '2026-11-22' });
    cold.push(performance.now() - t);
    if (prepared.problems.length) throw new Error(`the bench plan should be valid: ${JSON.stringify(prepared.problems.slice(0, 3))}`);
    t = performance.now();
    await preparePlan(parsePlan(reply).plan, wiki, existing, engine, { sources: ['file:docs/big.md'], today: '2026-11-22' });
    warm.push(performance.now() - t);
  }
  const c = stats(cold.slice(2));
  const w = stats(warm.slice(2));
  const b = stats(baseline.slice(2));
  const files = new Set(citations.map((x) => x.path)).size;
  console.log(`plan validation, ${PLAN_PAGES} pages, ${citations.length} citations in ${files} files of ${corpus.label}:`);
  console.log(`  cold engine (every cited file read and parsed): p50 ${ms(c.p50)} p95 ${ms(c.p95)}`);
  console.log(`  warm engine (files cached, as in the drift worker): p50 ${ms(w.p50)} p95 ${ms(w.p95)}`);
  const fl = stats(floor.slice(2));
  console.log(`  baseline JSON.parse of the reply: p50 ${ms(b.p50)}; cold/baseline ${(c.p50 / b.p50).toFixed(0)}x`);
  console.log(`  floor, ts.createSourceFile of the ${citedFiles.length} cited files alone: p50 ${ms(fl.p50)}; cold/floor ${(c.p50 / fl.p50).toFixed(2)}x`);
  console.log(`  goal < 200 ms (cold, p95): ${verdict(c.p95 < 200)}`);
}

// 3. Tokens per ingest, 500-page wiki (50 in a smoke run).
{
  const WORDS = ['router', 'middleware', 'cache', 'retry', 'session', 'token', 'queue', 'schema', 'migration', 'handler', 'timeout', 'payload', 'stream', 'webhook', 'billing', 'tenant', 'audit', 'upload'];
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const sentence = () => Array.from({ length: 14 }, () => (random() < 0.3 ? pick(WORDS) : pick(['the', 'a', 'service', 'request', 'returns', 'when', 'module', 'calls']))).join(' ');
  const texts = Array.from({ length: sized(500, 50) }, (_, i) => {
    const a = pick(WORDS);
    const b = pick(WORDS);
    const body = Array.from({ length: 10 }, () => `${sentence()}. ${sentence()}.`).join('\n\n');
    return `---\ntitle: "${a} ${b} notes ${i}"\ntopic: patterns\nsummary: "How the ${a} works with the ${b}, part ${i}."\nstatus: active\ntags: [${a}, ${b}]\ncreated: 2026-11-01\nupdated: 2026-11-20\n---\n# ${a} and ${b}\n\n${body}\n`;
  });
  const encoder = new TextEncoder();
  const pages = texts.map((text, i) => parsePage(`.wiki/pages/page-${i}.md`, `page-${i}`, encoder.encode(text)));
  const schema = readFileSync(new URL('../../wiki-template/SCHEMA.md', import.meta.url), 'utf8');
  const sourceText = `# Webhook retries\n\n${Array.from({ length: 12 }, () => `${sentence()}.`).join(' ')}\n`;
  const chunk = { ref: 'file:docs/webhooks.md', path: 'docs/webhooks.md', text: sourceText, startLine: 1, endLine: 3, part: 1, parts: 1 };
  const retriever = new WikiRetriever(pages);
  const related = retriever.search('webhook retries retry timeout', 4).map((hit) => retriever.page(hit.slug));
  const prompt = buildIngestPrompt({ schema, pages, related, planned: [], chunk });
  const ours = [...prompt.system.map((b) => b.text), ...prompt.messages.map((m) => m.content)].reduce((sum, text) => sum + estimateTokens(text), 0);
  const cached = estimateTokens(prompt.system.map((b) => b.text).join(''));
  const naive = estimateTokens(INGEST_SYSTEM_PROMPT) + estimateTokens(schema) + texts.reduce((sum, text) => sum + estimateTokens(text), 0) + estimateTokens(sourceText);
  console.log(`tokens sent per ingest, ${texts.length}-page wiki (about 4 characters per token):`);
  console.log(`  ours: ${ours.toLocaleString('en')} tokens (of which ${cached.toLocaleString('en')} are the cached prefix: instructions, SCHEMA.md, catalog)`);
  console.log(`  naive prompt carrying the whole wiki: ${naive.toLocaleString('en')} tokens; naive/ours ${(naive / ours).toFixed(1)}x`);
}

rmSync(scratch, { recursive: true, force: true });
