// The tool layer's handlers (src/core/tools) over a 2,000-page wiki citing a pinned npm package's
// TypeScript sources (effect, as bench/drift uses): p50/p95 of each handler over a fixed list of
// inputs, cold (each cited file read and parsed the first time) and warm (the same inputs again,
// as in a chat that has run a few turns). Goal: warm p95 < 20 ms for every tool that spawns no rg.
// grep_code and find_symbol are set against a plain `rg` spawn over the same files in the same run
// (paired runs, median ratio; goal ≤ 1.5×): rg's own time is their floor.
// Then grep_code with the hostile glob of issue 36 against ordinary grep_code calls (hostileGlob.mjs),
// and files nested too deeply to parse against ordinary ones (deepFile.mjs).
// Needs out/ (compiled by npm run bench) first, and rg on the PATH.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from '../lib.mjs';
import { makeRealCorpus, rng } from '../drift/corpus.mjs';
import { compareDeepFiles } from './deepFile.mjs';
import { compareHostileGlob } from './hostileGlob.mjs';
import { WORDS, writeCitingWiki } from './wiki.mjs';

const require = createRequire(import.meta.url);
const { openWorkspace } = require('../../out/src/adapters/workspace.js');
const { createDriftEngine } = require('../../out/src/adapters/drift/driftCore.js');
const { LocalDriftBackend } = require('../../out/src/adapters/drift/localDriftBackend.js');
const { RipgrepSearch, findRipgrep } = require('../../out/src/adapters/search/ripgrep.js');
const { createWikiTools } = require('../../out/src/core/tools/index.js');

const PAGES = sized(2000, 50);
const RUNS = sized(60, 3);
const GREP_RUNS = sized(21, 2);
const GOALS = { p95: 20, grepRatio: 1.5 };
const GREP_PATTERNS = ['Effect\\.gen', 'export const (map|flatMap)\\b', 'dual\\(', 'TODO|FIXME'];

const rgPath = findRipgrep();
if (!rgPath) {
  console.error('bench/tools needs ripgrep: install it (apt-get install ripgrep) or set REPO_WIKI_RIPGREP.');
  process.exit(1);
}
const root = mkdtempSync(join(tmpdir(), 'repo-wiki-tools-bench-'));

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Plain rg over the files grep_code searches (hidden ones too, not .git), all output read: the floor. */
function plainRg(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ['--hidden', '--glob=!.git', ...args, '.'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => {});
    child.on('error', reject);
    child.on('close', resolve);
  });
}

try {
  const corpus = makeRealCorpus(root);
  const { wiki, files } = openWorkspace(root, { syncReads: true });
  const { engine, search: symbolSearch, parser } = createDriftEngine(root, files);
  // As the CLI and the MCP server have it (openLocalCore): the engine behind the drift port.
  const drift = new LocalDriftBackend(wiki, engine, symbolSearch, parser);
  const symbols = writeCitingWiki(root, corpus, parser, PAGES);
  const pages = await wiki.loadPages();
  const tools = Object.fromEntries(createWikiTools({
    wiki,
    pages: async () => pages,
    drift,
    files,
    symbolsOf: (relPath, text) => drift.symbolsOf(relPath, text),
    search: new RipgrepSearch(root, { rgPath }),
  }).map((tool) => [tool.name, tool]));
  console.log(`tool handlers: ${PAGES} pages citing ${corpus.label} (${corpus.files.length} files, ${corpus.lines} lines); ${RUNS} inputs per tool, run twice (cold, then warm); load average ${loadavg()[0].toFixed(2)}`);

  const random = rng(7);
  const inputs = {
    search_wiki: () => ({ query: `${random.pick(WORDS)} ${random.pick(WORDS)} retries`, limit: 5 }),
    read_page: () => ({ slug: `page-${random.int(PAGES)}` }),
    read_code: () => ({ citation: random.pick(symbols) }),
    check_drift: () => ({ slug: `page-${random.int(PAGES)}` }),
    find_symbol: () => ({ name: random.pick(symbols).split(':')[1] }),
  };
  let allMet = true;
  for (const [name, input] of Object.entries(inputs)) {
    const given = Array.from({ length: RUNS }, input);
    const pass = async () => {
      const samples = [];
      for (const one of given) {
        let result;
        samples.push(await timed(async () => (result = await tools[name].run(one))));
        if (!result.ok) throw new Error(`${name} ${JSON.stringify(one)} failed: ${result.text}`);
      }
      return stats(samples);
    };
    const [cold, warm] = [await pass(), await pass()];
    if (name !== 'find_symbol') allMet &&= warm.p95 < GOALS.p95;
    console.log(`  ${name.padEnd(12)} warm p50 ${ms(warm.p50).padStart(10)}   p95 ${ms(warm.p95).padStart(10)}   |  cold p50 ${ms(cold.p50).padStart(10)}   p95 ${ms(cold.p95).padStart(10)}`);
  }
  const whole = await timed(() => tools.check_drift.run({}));
  console.log(`  check_drift, whole wiki (${PAGES} pages, ${PAGES * 3} citations, files cached): ${ms(whole)}`);
  console.log(`  goal: warm p95 < ${GOALS.p95} ms for each tool that spawns no rg: ${verdict(allMet)}`);

  // grep_code against plain rg: pairs in alternating order, the ratio the median of the pairs' ratios.
  console.log(`rg-backed tools against a plain rg spawn over the same files (${GREP_RUNS} paired runs each, alternating order)`);
  const cases = [
    ...GREP_PATTERNS.map((pattern) => ({ label: `grep_code /${pattern}/`, tool: 'grep_code', input: { pattern }, rg: ['-n', '--no-heading', '-e', pattern] })),
    ...['map', 'Scope', 'unsafeGet'].map((name) => ({ label: `find_symbol ${name}`, tool: 'find_symbol', input: { name }, rg: ['-l', '-w', '-F', '-t', 'ts', '-t', 'js', '-e', name] })),
  ];
  const ratios = { grep_code: [], find_symbol: [] };
  for (const { label, tool: name, input, rg } of cases) {
    await plainRg(rg);
    const result = await tools[name].run(input);
    const plain = [];
    const tool = [];
    for (let i = 0; i < GREP_RUNS; i++) {
      if (i % 2) tool.push(await timed(() => tools[name].run(input)));
      plain.push(await timed(() => plainRg(rg)));
      if (!(i % 2)) tool.push(await timed(() => tools[name].run(input)));
    }
    const ratio = stats(tool.map((value, i) => value / plain[i])).p50;
    ratios[name].push(ratio);
    console.log(`  ${label.padEnd(40)} rg ${ms(stats(plain).p50).padStart(10)}   tool ${ms(stats(tool).p50).padStart(10)} (p95 ${ms(stats(tool).p95)})   ratio ${ratio.toFixed(2)}x   [${result.summary}]`);
  }
  for (const [name, list] of Object.entries(ratios)) {
    console.log(`  ${name}: worst ratio ${Math.max(...list).toFixed(2)}x${name === 'grep_code' ? ` (goal ≤ ${GOALS.grepRatio}x): ${verdict(Math.max(...list) <= GOALS.grepRatio)}` : ' (rg, then reading and parsing the candidate files)'}`);
  }
  await compareHostileGlob(tools.grep_code, 'import', { label: ` over ${corpus.label}` });
  await compareDeepFiles();
} finally {
  rmSync(root, { recursive: true, force: true });
}
