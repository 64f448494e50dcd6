// First-stage retrieval quality and cost: the chat's WikiRetriever against the plain keyword
// baseline it replaced (MiniSearch BM25 over the same fields and boosts, no stemming, no related
// words, starter pages ranked like any other), both measured in this run.
// Quality: recall@3 and MRR on test/fixtures/recall-wiki (paraphrased questions; the first half of
// questions.json, even indexes, was used for tuning, odd indexes and questions-holdout.json were not).
// Cost: index build and query p50/p95 on 2,000 generated pages.
// Needs out/ (compiled by npm run bench) first.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import { ms, seededText, sized, stats } from '../lib.mjs';

const require = createRequire(import.meta.url);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { parsePage } = require(join(repo, 'out/src/core/pages/page.js'));
const { WikiRetriever, queryTerms, tokenize } = require(join(repo, 'out/src/core/chat/retrieval.js'));

/** The retriever as it was before stemming: same fields, boosts, prefix and typo matching. */
class KeywordBaseline {
  constructor(pages) {
    this.index = new MiniSearch({
      fields: ['title', 'summary', 'tags', 'body'],
      tokenize,
      processTerm: (term) => (queryTerms(term).length ? term : null),
      searchOptions: { boost: { title: 3, tags: 2, summary: 2, body: 1 }, prefix: (term) => term.length >= 4, fuzzy: (term) => (term.length >= 6 ? 0.15 : false) },
    });
    this.index.addAll(pages.map((page) => ({ id: page.slug, title: page.frontmatter.title ?? page.slug, summary: page.frontmatter.summary ?? '', tags: (page.frontmatter.tags ?? []).join(' '), body: page.body })));
  }

  search(query, limit, _options) {
    const terms = queryTerms(query);
    return terms.length ? this.index.search(terms.join(' ')).slice(0, limit).map((result) => ({ slug: result.id })) : [];
  }
}

const fixture = join(repo, 'test/fixtures/recall-wiki');
const fixturePages = readdirSync(join(fixture, 'pages')).map((file) => parsePage(`.wiki/pages/${file}`, file.slice(0, -3), readFileSync(join(fixture, 'pages', file))));
const load = (file) => JSON.parse(readFileSync(join(fixture, file), 'utf8'));
const main = load('questions.json');
const sets = [
  ['tuning half (questions.json, even)', main.filter((_, i) => i % 2 === 0)],
  ['held-out half (questions.json, odd)', main.filter((_, i) => i % 2 === 1)],
  ['late held-out (questions-holdout.json)', load('questions-holdout.json')],
  ['all', [...main, ...load('questions-holdout.json')]],
];

function quality(retriever, questions) {
  let hits = 0;
  let reciprocal = 0;
  let starterSlots = 0;
  for (const { question, expected } of questions) {
    const slugs = retriever.search(question, 10).map((hit) => hit.slug);
    const rank = slugs.indexOf(expected);
    if (rank >= 0 && rank < 3) hits++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
    if (slugs.slice(0, 3).some((slug) => slug === 'welcome' || slug === 'how-to-write-pages')) starterSlots++;
  }
  return { recall: hits / questions.length, mrr: reciprocal / questions.length, starterSlots };
}

const f2 = (value) => value.toFixed(2);
console.log(`retrieval quality, ${fixturePages.length} fixture pages (2 of them the template's starter pages)`);
const ours = new WikiRetriever(fixturePages);
const baseline = new KeywordBaseline(fixturePages);
for (const [label, questions] of sets) {
  const o = quality(ours, questions);
  const b = quality(baseline, questions);
  console.log(`  ${label.padEnd(40)} n=${String(questions.length).padStart(2)}  recall@3 ${f2(b.recall)} -> ${f2(o.recall)}  MRR ${f2(b.mrr)} -> ${f2(o.mrr)}  answers with a starter page in the top 3: ${b.starterSlots} -> ${o.starterSlots}`);
}

// Cost on a generated wiki, as bench/chat/retrieval.mjs builds it.
const PAGES = sized(2000, 100);
const QUERIES = sized(500, 10);
const WORDS = ['router', 'middleware', 'cache', 'retry', 'session', 'token', 'queue', 'schema', 'migration', 'index', 'handler', 'timeout', 'payload', 'stream', 'webhook', 'billing', 'tenant', 'audit', 'search', 'upload', 'retries', 'caching', 'sessions', 'handlers', 'deploys', 'invoices'];
const { pick, sentence } = seededText(WORDS);
const encoder = new TextEncoder();
const generated = Array.from({ length: PAGES }, (_, i) => {
  const [a, b] = [pick(WORDS), pick(WORDS)];
  const body = Array.from({ length: 8 }, () => `${sentence()}. ${sentence()}.`).join('\n\n');
  const text = `---\ntitle: "${a} ${b} notes ${i}"\ntopic: patterns\nsummary: "How the ${a} works with the ${b}, part ${i}."\nstatus: active\ntags: [${a}, ${b}]\ncreated: 2026-11-01\nupdated: 2026-11-20\n---\n# ${a} and ${b}\n\n${body}\n`;
  return parsePage(`.wiki/pages/page-${i}.md`, `page-${i}`, encoder.encode(text));
});
const questions = Array.from({ length: QUERIES }, () => `How does the ${pick(WORDS)} handle a ${pick(WORDS)} when the ${pick(WORDS)} times out?`);

function cost(build) {
  const started = performance.now();
  const retriever = build(generated);
  const buildMs = performance.now() - started;
  for (const question of questions.slice(0, 30)) retriever.search(question, 5, { passages: false }); // JIT warm-up
  const times = questions.map((question) => {
    const t = performance.now();
    retriever.search(question, 5, { passages: false });
    return performance.now() - t;
  });
  return { buildMs, ...stats(times) };
}

const b = cost((pages) => new KeywordBaseline(pages));
const o = cost((pages) => new WikiRetriever(pages));
console.log(`\nretrieval cost, ${PAGES} generated pages, ${QUERIES} questions (top 5, no passages)`);
console.log(`  index build   baseline ${ms(b.buildMs)}  ours ${ms(o.buildMs)}  (${f2(o.buildMs / b.buildMs)}x)`);
console.log(`  query p50     baseline ${ms(b.p50)}  ours ${ms(o.p50)}  (${f2(o.p50 / b.p50)}x)`);
console.log(`  query p95     baseline ${ms(b.p95)}  ours ${ms(o.p95)}  (${f2(o.p95 / b.p95)}x)`);
