// What the file-access checks cost (lstat, real-path checks, size caps, the write lock), against
// the adapter as it was before them (plainFileSystem.mjs), measured in the same run and process:
//  - index rebuild over 2,000 generated pages (a fresh Wiki each run, so every page is read and parsed);
//  - a drift scan of 1,000 citations over 250 generated TypeScript files (a fresh engine each run,
//    so every cited file is read and parsed), with anchors stamped so the scan finds nothing;
//  - the reads alone: the 2,000 pages and the 250 cited files, without parsing.
// Runs are paired, so drift in machine load hits both adapters alike. Goal: < 10%.
// Then grep_code over the same generated files with the hostile glob of issue 36 against ordinary
// grep_code calls (../tools/hostileGlob.mjs), where rg is found, and files nested too deeply to
// parse against ordinary ones (../tools/deepFile.mjs).
// Needs out/ (compiled by npm run bench) first; run with `node --expose-gc`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from '../lib.mjs';
import { compareDeepFiles } from '../tools/deepFile.mjs';
import { compareHostileGlob } from '../tools/hostileGlob.mjs';
import { PlainFileSystem } from './plainFileSystem.mjs';

const require = createRequire(import.meta.url);
const { Wiki } = require('../../out/src/core/wiki/wiki.js');
const { WorkspaceFiles } = require('../../out/src/adapters/files/workspaceFiles.js');
const { DriftEngine } = require('../../out/src/core/drift/driftEngine.js');
const { findCitations } = require('../../out/src/core/drift/citations.js');
const { CachingSymbolParser, TsSymbolParser } = require('../../out/src/adapters/typescript/tsSymbolParser.js');
const { WorkspaceSearch } = require('../../out/src/adapters/workspaceSearch.js');
const { RipgrepSearch, findRipgrep } = require('../../out/src/adapters/search/ripgrep.js');
const { grepCodeTool } = require('../../out/src/core/tools/grepCode.js');

const PAGES = sized(2000, 50);
const CODE_FILES = sized(250, 10);
const CITATIONS = sized(1000, 40);
const RUNS = sized(21, 2);
const GOAL = 1.10;
const clock = { now: () => new Date('2026-11-23T00:00:00Z') };
const root = mkdtempSync(join(tmpdir(), 'repo-wiki-file-access-bench-'));

function makeIndexWiki() {
  const dir = join(root, 'index-ws');
  const pagesDir = join(dir, '.wiki', 'pages');
  mkdirSync(pagesDir, { recursive: true });
  for (let i = 0; i < PAGES; i++) {
    const links = [1, 7, 31].map((k) => `[[page-${(i + k) % PAGES}]]`).join(', ');
    writeFileSync(join(pagesDir, `page-${i}.md`), `---
title: Page ${i} about module ${i % 97}
topic: architecture
summary: How module ${i % 97} behaves under load, part ${i}.
status: active
tags: [module-${i % 97}]
created: 2026-11-01
updated: 2026-11-22
---
# Page ${i}

${`Module ${i % 97} handles requests and retries. See ${links}.\n\n`.repeat(6)}`);
  }
  return dir;
}

function makeDriftWorkspace() {
  const dir = join(root, 'drift-ws');
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, '.wiki', 'pages'), { recursive: true });
  const symbols = [];
  for (let f = 0; f < CODE_FILES; f++) {
    const lines = [];
    for (let s = 0; s < CITATIONS / CODE_FILES; s++) {
      lines.push(`/** Step ${s} of module ${f}. */`, `export function step${f}_${s}(input: number, factor = ${s + 1}): number {`);
      for (let k = 0; k < 12; k++) lines.push(`  input = (input * factor + ${k}) % 1000003;`);
      lines.push('  return input;', '}', '');
      symbols.push(`src/module${f}.ts:step${f}_${s}`);
    }
    writeFileSync(join(dir, 'src', `module${f}.ts`), lines.join('\n'));
  }
  for (let p = 0; p < CITATIONS / 10; p++) {
    const cited = symbols.slice(p * 10, p * 10 + 10).map((c) => `- \`${c}\``).join('\n');
    writeFileSync(join(dir, '.wiki', 'pages', `page-${p}.md`), `---\ntitle: Page ${p}\ntopic: architecture\nsummary: Page ${p}.\nstatus: active\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-22\n---\n# Page ${p}\n\n${cited}\n`);
  }
  return dir;
}

// A collection before each run (node --expose-gc), so one adapter's garbage is not timed in the other's run.
const time = async (fn) => {
  globalThis.gc?.();
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

/**
 * Paired runs of `measure(adapter)`, the order within each pair alternating so that neither adapter
 * always runs after the other; the ratio is the median of the pairs' ratios, which a change in
 * machine load during the run moves far less than a ratio of two medians.
 */
async function compare(label, measure, adapters) {
  await measure(adapters.plain());
  await measure(adapters.guarded()); // JIT and file cache warm for both
  const plain = [];
  const guarded = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2) guarded.push(await time(() => measure(adapters.guarded())));
    plain.push(await time(() => measure(adapters.plain())));
    if (!(i % 2)) guarded.push(await time(() => measure(adapters.guarded())));
  }
  const [p, g] = [stats(plain), stats(guarded)];
  const ratio = stats(guarded.map((value, i) => value / plain[i])).p50;
  console.log(`  ${label.padEnd(46)} before ${ms(p.p50).padStart(10)}   with checks ${ms(g.p50).padStart(10)} (p95 ${ms(g.p95)})   ratio ${ratio.toFixed(3)}x`);
  return ratio;
}

try {
  console.log(`file-access checks: cost against the adapter before them (${RUNS} paired runs: p50 of each, median ratio of the pairs; load average ${loadavg()[0].toFixed(2)})`);
  const indexRoot = makeIndexWiki();
  const driftRoot = makeDriftWorkspace();
  const indexAdapters = { plain: () => new PlainFileSystem(), guarded: () => new WorkspaceFiles(indexRoot) };
  const rebuild = (fs) => new Wiki(indexRoot, fs, clock).rebuildIndex();
  const readPages = async (fs) => {
    const wiki = new Wiki(indexRoot, fs, clock);
    const names = await fs.readdir(wiki.pagesDir, { within: wiki.dir });
    await Promise.all(names.map((name) => fs.readFile(join(wiki.pagesDir, name), { within: wiki.dir })));
  };

  // Anchors stamped once, so the scans below find no issue and do the full comparison work.
  const stampFs = new WorkspaceFiles(driftRoot, { syncReads: true });
  const stampWiki = new Wiki(driftRoot, stampFs, clock);
  const stampEngine = new DriftEngine(driftRoot, stampFs, new CachingSymbolParser(new TsSymbolParser()), new WorkspaceSearch(driftRoot, stampFs));
  const { stampPage } = require('../../out/src/core/drift/stamp.js');
  for (const page of await stampWiki.loadPages()) await stampPage(stampWiki, stampEngine, page);
  const driftPages = await stampWiki.loadPages();
  const citations = driftPages.reduce((sum, page) => sum + findCitations(page).length, 0);
  const driftAdapters = { plain: () => new PlainFileSystem({ syncReads: true }), guarded: () => new WorkspaceFiles(driftRoot, { syncReads: true }) };
  const scan = async (fs) => {
    const engine = new DriftEngine(driftRoot, fs, new CachingSymbolParser(new TsSymbolParser()), new WorkspaceSearch(driftRoot, fs));
    const report = await engine.check(driftPages);
    if (report.issues.length) throw new Error(`the scan found ${report.issues.length} issues; expected none`);
  };
  const readCited = async (fs) => {
    for (let f = 0; f < CODE_FILES; f++) await fs.readFile(join(driftRoot, 'src', `module${f}.ts`));
  };

  const ratios = {
    rebuild: await compare(`index rebuild, ${PAGES} pages`, rebuild, indexAdapters),
    scan: await compare(`drift scan, ${citations} citations in ${CODE_FILES} files`, scan, driftAdapters),
  };
  await compare(`reads alone: ${PAGES} pages (thread pool)`, readPages, indexAdapters);
  await compare(`reads alone: ${CODE_FILES} cited files (blocking)`, readCited, driftAdapters);
  console.log(`  goal: the checks cost < 10% on index rebuild (${((ratios.rebuild - 1) * 100).toFixed(1)}%): ${verdict(ratios.rebuild < GOAL)}`);
  console.log(`  goal: the checks cost < 10% on the drift scan (${((ratios.scan - 1) * 100).toFixed(1)}%): ${verdict(ratios.scan < GOAL)}`);

  const rgPath = findRipgrep();
  if (rgPath) await compareHostileGlob(grepCodeTool({ search: new RipgrepSearch(driftRoot, { rgPath }) }), 'input', { label: ` over the ${CODE_FILES} generated files` });
  else console.log('grep_code with the hostile glob: skipped (no rg found: install ripgrep or set REPO_WIKI_RIPGREP)');
  await compareDeepFiles();
} finally {
  rmSync(root, { recursive: true, force: true });
}
