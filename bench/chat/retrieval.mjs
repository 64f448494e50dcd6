// Retrieval and prompt assembly per chat turn over 2,000 generated pages: BM25 search, passages,
// catalog and prompt, as AnswerEngine does them. Baseline in the same run: a plain substring scan
// of every page body for the question's words (what a naive grep-based retrieval would do).
import { createRequire } from 'node:module';
import { ms, seededText, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const { parsePage } = require('../../out/src/core/pages/page.js');
const { WikiRetriever, queryTerms, retrievalQuery } = require('../../out/src/core/chat/retrieval.js');
const { buildPrompt, catalog } = require('../../out/src/core/chat/prompt.js');

const PAGES = sized(2000, 100);
const TURNS = sized(300, 10);
const WORDS = ['router', 'middleware', 'cache', 'retry', 'session', 'token', 'queue', 'schema', 'migration', 'index', 'handler', 'timeout', 'payload', 'stream', 'webhook', 'billing', 'tenant', 'audit', 'search', 'upload'];
const TOPICS = ['architecture', 'patterns', 'gotchas', 'testing', 'dependencies', 'decisions', 'conversations', 'other'];

const { pick, sentence } = seededText(WORDS);

const encoder = new TextEncoder();
const pages = Array.from({ length: PAGES }, (_, i) => {
  const a = pick(WORDS);
  const b = pick(WORDS);
  const body = Array.from({ length: 8 }, () => `${sentence()}. ${sentence()}.`).join('\n\n') + `\n\nSee [[page-${(i + 1) % PAGES}]] and \`src/${a}/${b}.ts:${a[0].toUpperCase()}${a.slice(1)}Service.run\`.\n`;
  const text = `---\ntitle: "${a} ${b} notes ${i}"\ntopic: ${TOPICS[i % TOPICS.length]}\nsummary: "How the ${a} works with the ${b}, part ${i}."\nstatus: ${i % 40 === 0 ? 'stale' : 'active'}\ntags: [${a}, ${b}]\ncreated: 2026-11-01\nupdated: 2026-11-20\n---\n# ${a} and ${b}\n\n${body}`;
  return parsePage(`.wiki/pages/page-${i}.md`, `page-${i}`, encoder.encode(text));
});
const questions = Array.from({ length: TURNS }, () => `How does the ${pick(WORDS)} handle a ${pick(WORDS)} when the ${pick(WORDS)} times out?`);
const settings = { maxPriorTurns: 5, priorAnswerChars: 500 };
const priorTurns = Array.from({ length: 5 }, (_, i) => ({ question: questions[i], answer: sentence().repeat(10) }));

const started = performance.now();
const retriever = new WikiRetriever(pages);
const catalogText = catalog(pages);
const buildMs = performance.now() - started;

function turn(question, previous) {
  const retrieved = retriever.search(retrievalQuery(question, previous), 5);
  const bodies = new Map(retrieved.map((p) => [p.slug, retriever.page(p.slug).body]));
  return buildPrompt({ question, priorTurns, retrieved, pageBodies: bodies, catalog: catalogText, settings });
}

function naive(question) {
  const terms = queryTerms(question);
  return pages
    .map((page) => ({ page, hits: terms.filter((t) => page.body.toLowerCase().includes(t)).length }))
    .sort((a, b) => b.hits - a.hits)
    .slice(0, 5);
}

for (let i = 0; i < 30; i++) turn(questions[i % TURNS]); // warm up the JIT, as a long-running extension host is
const ours = [];
const baseline = [];
for (const [i, question] of questions.entries()) {
  let t = performance.now();
  turn(question, i ? questions[i - 1] : undefined);
  ours.push(performance.now() - t);
  t = performance.now();
  naive(question);
  baseline.push(performance.now() - t);
}
const o = stats(ours);
const b = stats(baseline);
console.log(`chat retrieval + prompt assembly, ${PAGES} generated pages, ${TURNS} questions`);
console.log(`  index build (once per wiki change)              ${ms(buildMs)}; catalog ${catalogText.length.toLocaleString()} chars`);
console.log(`  baseline: substring scan of every body         p50 ${ms(b.p50)}  p95 ${ms(b.p95)}`);
console.log(`  ours: BM25 + passages + catalog + prompt       p50 ${ms(o.p50)}  p95 ${ms(o.p95)}  (${(b.p50 / o.p50).toFixed(1)}x the baseline's speed at p50)`);
console.log(`  goal p95 < 15 ms: ${verdict(o.p95 < 15)}`);
