// Rebuilding index.json/index.md from 2,000 generated pages, against the baseline of only reading those files.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from './lib.mjs';

const require = createRequire(import.meta.url);
const { Wiki } = require('../out/src/core/wiki/wiki.js');
const { WorkspaceFiles } = require('../out/src/adapters/files/workspaceFiles.js');

const PAGES = sized(2000, 100);
const RUNS = sized(7, 2);
const TOPICS = ['architecture', 'patterns', 'gotchas', 'testing', 'dependencies', 'decisions', 'conversations', 'other'];
const root = mkdtempSync(join(tmpdir(), 'repo-wiki-index-bench-'));
const pagesDir = join(root, '.wiki', 'pages');
mkdirSync(pagesDir, { recursive: true });
for (let i = 0; i < PAGES; i++) {
  const links = [1, 7, 31].map((k) => `[[page-${(i + k) % PAGES}]]`).join(', ');
  const paragraph = `Page ${i} explains how module ${i % 97} handles requests, retries and caching. See ${links}.\n\n`;
  writeFileSync(join(pagesDir, `page-${i}.md`), `---
title: Page ${i} about module ${i % 97}
topic: ${TOPICS[i % TOPICS.length]}
summary: How module ${i % 97} behaves under load, part ${i}.
status: ${i % 50 === 0 ? 'stale' : 'active'}
tags: [module-${i % 97}, bench]
created: 2026-11-01
updated: 2026-11-22
corroborations: ${i % 3}
sources: ["file:src/module-${i % 97}.ts"]
anchors:
  "src/module-${i % 97}.ts:Handler.run": "sig:1a2b3c4d body:5e6f7a8b"
---
# Page ${i}

${paragraph.repeat(6)}`);
}

// A new Wiki per run: a Wiki reuses the parse of unchanged pages, and this measures a full rebuild.
const freshWiki = () => new Wiki(root, new WorkspaceFiles(root), { now: () => new Date() });
const readOnly = async () => {
  const names = await readdir(pagesDir);
  await Promise.all(names.map((name) => readFile(join(pagesDir, name))));
};
const time = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };

await freshWiki().rebuildIndex(); // warm the file cache and the JIT for both
await readOnly();
const baseline = [];
const rebuild = [];
for (let i = 0; i < RUNS; i++) {
  baseline.push(await time(readOnly));
  writeFileSync(join(root, '.wiki', 'index.json'), '{}'); // force a real rewrite each run
  const wiki = freshWiki();
  rebuild.push(await time(() => wiki.rebuildIndex()));
}
const b = stats(baseline);
const r = stats(rebuild);
console.log(`index rebuild over ${PAGES} generated pages (${RUNS} runs, warm file cache)`);
console.log(`  baseline: read the page files only   ${ms(b.p50)}`);
console.log(`  rebuild index.json + index.md        ${ms(r.p50)}  (p95 ${ms(r.p95)})  ratio ${(r.p50 / b.p50).toFixed(1)}x baseline`);
console.log(`  throughput                           ${Math.round(PAGES / (r.p50 / 1000))} pages/s`);
console.log(`  goal < 500 ms: ${verdict(r.p95 < 500)}`);
