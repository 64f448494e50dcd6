// `repo-wiki mcp` over a 2,000-page wiki citing effect's sources (the wiki bench/tools uses):
// the round trip of search_wiki and read_code from the SDK's own client over stdio, set against
// the same handler called in-process in this run (paired calls, alternating order; the overhead
// is p95 against p95, and each pair's difference at the median). Goal: p95 overhead < 5 ms. Then
// the server's start: spawn → initialize → first tools/call answered, goal < 300 ms, on demo/'s
// wiki and on the 2,000-page one (whose first call also loads and indexes every page: the same
// cold call in-process is printed beside it), with a bare `node -e ''` spawn as the floor.
// Needs dist/cli.js (npm run build) and out/ (compiled by npm run bench) first, and rg on the PATH.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ms, sized, stats, verdict } from '../lib.mjs';
import { makeRealCorpus, rng } from '../drift/corpus.mjs';
import { WORDS, writeCitingWiki } from '../tools/wiki.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { openLocalCore } = require('../../out/src/adapters/localCore.js');
const { findRipgrep } = require('../../out/src/adapters/search/ripgrep.js');

const CLI = resolve(fileURLToPath(import.meta.url), '../../../dist/cli.js');
const DEMO = resolve(fileURLToPath(import.meta.url), '../../../demo');
const PAGES = sized(2000, 50);
const RUNS = sized(100, 5);
const STARTS = sized(5, 1);
const GOALS = { overheadP95: 5, start: 300 };

if (!findRipgrep()) {
  console.error('bench/mcp needs ripgrep: install it (apt-get install ripgrep) or set REPO_WIKI_RIPGREP.');
  process.exit(1);
}
const root = mkdtempSync(join(tmpdir(), 'repo-wiki-mcp-bench-'));
const demo = mkdtempSync(join(tmpdir(), 'repo-wiki-mcp-bench-demo-'));

async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

/** A server process over `workspace` with the SDK's client connected (initialize answered). */
async function startServer(workspace) {
  const client = new Client({ name: 'repo-wiki-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', workspace], stderr: 'ignore' }));
  return client;
}

/** Median times of STARTS starts: spawn → initialize answered, → the first search_wiki answered. */
async function measureStarts(workspace, query) {
  const starts = [];
  for (let i = 0; i < STARTS; i++) {
    const t = performance.now();
    const client = await startServer(workspace);
    const initialized = performance.now() - t;
    const result = await client.callTool({ name: 'search_wiki', arguments: query });
    starts.push({ initialized, answered: performance.now() - t });
    if (result.isError) throw new Error(`search_wiki failed: ${result.content[0].text}`);
    await client.close();
  }
  return { initialized: stats(starts.map((s) => s.initialized)).p50, answered: stats(starts.map((s) => s.answered)).p50 };
}

try {
  const corpus = makeRealCorpus(root);
  const core = openLocalCore(root);
  const symbols = writeCitingWiki(root, corpus, core.parser, PAGES);
  const tools = Object.fromEntries(core.tools().map((tool) => [tool.name, tool]));
  console.log(`MCP over stdio: ${PAGES} pages citing ${corpus.label} (${corpus.files.length} files); ${RUNS} paired calls per tool; load average ${loadavg()[0].toFixed(2)}`);

  const random = rng(11);
  const firstQuery = { query: 'fiber scope retries', limit: 5 };
  const inProcessCold = await timed(() => tools.search_wiki.run(firstQuery));
  cpSync(DEMO, demo, { recursive: true });
  const bareNodes = [];
  for (let i = 0; i < STARTS; i++) bareNodes.push((await timed(() => spawnSync(process.execPath, ['-e', '']))).ms);
  const bareNode = stats(bareNodes).p50;
  const small = await measureStarts(demo, { query: 'middleware order' });
  const large = await measureStarts(root, firstQuery);
  console.log(`  start, median of ${STARTS} (a bare node -e '' spawn: ${ms(bareNode)}):`);
  console.log(`    demo/ (6 pages)  spawn → initialize ${ms(small.initialized)}, → first search_wiki answered ${ms(small.answered)}`);
  console.log(`    ${PAGES} pages       spawn → initialize ${ms(large.initialized)}, → first search_wiki answered ${ms(large.answered)}; that first call in-process, cold: ${ms(inProcessCold.ms)}`);
  console.log(`  goal: spawn → first call answered < ${GOALS.start} ms (demo/): ${verdict(small.answered < GOALS.start)}`);

  const client = await startServer(root);
  const inputs = {
    search_wiki: () => ({ query: `${random.pick(WORDS)} ${random.pick(WORDS)} retries`, limit: 5 }),
    read_code: () => ({ citation: random.pick(symbols) }),
  };
  let allMet = true;
  for (const [name, input] of Object.entries(inputs)) {
    const given = Array.from({ length: RUNS }, input);
    // Both sides warm: every cited file read and parsed once, the search index built.
    for (const one of given) await Promise.all([tools[name].run(one), client.callTool({ name, arguments: one })]);
    const direct = [];
    const served = [];
    for (const [i, one] of given.entries()) {
      const local = () => timed(() => tools[name].run(one));
      const remote = () => timed(() => client.callTool({ name, arguments: one }));
      let own, mcp;
      if (i % 2) [mcp, own] = [await remote(), await local()];
      else [own, mcp] = [await local(), await remote()];
      if (!own.value.ok || mcp.value.isError || mcp.value.content[0].text !== own.value.text) throw new Error(`${name} ${JSON.stringify(one)}: the server's answer differs from the handler's`);
      direct.push(own.ms);
      served.push(mcp.ms);
    }
    const [local, remote] = [stats(direct), stats(served)];
    const overhead = { p95: remote.p95 - local.p95, pairs: stats(served.map((value, i) => value - direct[i])).p50 };
    allMet &&= overhead.p95 < GOALS.overheadP95;
    console.log(`  ${name.padEnd(12)} in-process p50 ${ms(local.p50).padStart(9)} p95 ${ms(local.p95).padStart(9)}  |  MCP p50 ${ms(remote.p50).padStart(9)} p95 ${ms(remote.p95).padStart(9)}  |  overhead p95 ${ms(overhead.p95)}, median of pairs ${ms(overhead.pairs)}`);
  }
  console.log(`  goal: MCP overhead p95 < ${GOALS.overheadP95} ms per call: ${verdict(allMet)}`);
  await client.close();
} finally {
  for (const dir of [root, demo]) rmSync(dir, { recursive: true, force: true });
}
