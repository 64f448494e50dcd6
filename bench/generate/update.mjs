// The cost of keeping a drafted wiki true (repo-wiki generate --update) against drafting the
// drifted pages again: tokens sent for a 500-page wiki in which 5 pages drifted (a method body
// each of them cites changed), counted with o200k over the real prompts, against regenerating
// those 5 pages from scratch. Goal: under 0.3x.
// Both sides are built with the real prompt builders (src/core/generate/update.ts and prompt.ts)
// and the real read_code tool over demo/. How the models behave is stated, not measured:
//   - update: one request per drifted page (the page, the drift, the diff of each changed
//     citation; the diff is what the model needs, so it reads nothing more) and its plan;
//   - regenerate: per page, a first request (the catalog of the 500 pages, the outline of 30, the
//     page's purpose and files), one round of read_code on each symbol the page covers, then a
//     second request with the first one and those results, and its plan.
// Also: the update's tokens when the wiki has 50 pages, not 500 (pages without drift are never
// sent, so the cost follows the change, not the size of the wiki).
// Needs out/ (compiled by npm run bench).
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const { createTwoFilesPatch } = require('diff');
const { openLocalCore } = require('../../out/src/adapters/localCore.js');
const { buildUpdatePrompt } = require('../../out/src/core/generate/update.js');
const { buildPagePrompt } = require('../../out/src/core/generate/prompt.js');
const { requestTokens } = require('../../out/src/core/chat/promptBudget.js');
const { openAiTokenCounter } = require('../../out/src/adapters/llm/tokenCounter.js');

const count = openAiTokenCounter();
const PLAN_TOKENS = 600; // a page's plan, the same on both sides
const DRIFTED = 5;
const SCHEMA = readFileSync(resolve('wiki-template/SCHEMA.md'), 'utf8');
const CITED = ['src/errors.ts:toErrorResponse', 'src/pipeline.ts:Pipeline.run', 'src/router.ts:Router.handle', 'src/todos.ts:TodoStore.complete'];

const root = mkdtempSync(join(tmpdir(), 'repo-wiki-update-bench-'));
cpSync(resolve('demo'), root, { recursive: true });
const core = openLocalCore(root);
const readCode = core.tools().find((tool) => tool.name === 'read_code');

function page(i) {
  const body = `# Module ${i}\n\n${`Module ${i} handles a request in the pipeline: \`src/pipeline.ts:Pipeline.run\` picks a handler, and errors become responses in \`src/errors.ts:toErrorResponse\`. `.repeat(8)}\n`;
  return { slug: `module-${i}`, relPath: `.wiki/pages/module-${i}.md`, readable: true, valid: true, body, extraFields: {}, problems: [],
    frontmatter: { title: `Module ${i}`, topic: 'architecture', summary: `How module ${i} handles requests and errors.`, status: 'active', tags: ['pipeline'] } };
}
const wiki = (size) => Array.from({ length: size }, (_, i) => page(i));
const outline = Array.from({ length: 30 }, (_, i) => ({ slug: `module-${i}`, title: `Module ${i}`, topic: 'architecture', purpose: `How module ${i} handles requests and errors, end to end.`, files: ['src/pipeline.ts', 'src/errors.ts'] }));

// The change: toErrorResponse's body, as a diff of its declaration (what "Show what changed" shows).
const before = (await readCode.run({ citation: 'src/errors.ts:toErrorResponse' })).text;
const after = before.replace(/status/g, 'statusCode');
const diff = createTwoFilesPatch('src/errors.ts', 'src/errors.ts', before, after, 'verified', 'now');

function updateTokens(pages) {
  let tokens = 0;
  for (const drifted of pages.slice(0, DRIFTED)) {
    const prompt = buildUpdatePrompt(SCHEMA, { page: drifted, changes: [{ citation: 'src/errors.ts:toErrorResponse', code: 'body-changed', message: 'The code of toErrorResponse changed since this page was verified.', diff }] });
    tokens += requestTokens(count, prompt) + PLAN_TOKENS;
  }
  return tokens;
}

let regenerate = 0;
const pages = wiki(500);
const results = await Promise.all(CITED.map(async (citation) => (await readCode.run({ citation })).text));
for (const outlined of outline.slice(0, DRIFTED)) {
  const prompt = buildPagePrompt({ schema: SCHEMA, notes: '', page: outlined, outline, pages });
  const first = requestTokens(count, prompt);
  const read = results.reduce((sum, text) => sum + count(text) + 20, 0); // each result and its call
  regenerate += first + (first + read) + PLAN_TOKENS;
}
const update = updateTokens(pages);
const updateSmall = updateTokens(wiki(50));
const ratio = update / regenerate;
console.log(`update cost, a ${pages.length}-page wiki with ${DRIFTED} drifted pages (o200k tokens, plans included): --update ${update.toLocaleString('en')} tokens against regenerating those pages ${regenerate.toLocaleString('en')}; ${ratio.toFixed(2)}x  goal < 0.3x: ${verdict(ratio < 0.3)}`);
console.log(`  the same update on a 50-page wiki: ${updateSmall.toLocaleString('en')} tokens (${(updateSmall / update).toFixed(2)}x of the 500-page one: pages without drift are never sent)`);
rmSync(root, { recursive: true, force: true });
