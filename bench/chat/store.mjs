// The conversation store at 100, 1,000 and 10,000 conversations: opening it with the first history
// list, and a turn made durable, against the single-file store it replaced (today's store, built
// from commit BASELINE_COMMIT's source), on the same conversations, in the same run. Both stores are
// bundled alike (esbuild, as the extension and the CLI ship them).
// Goals: open + first list under 150 ms p95 at 10,000; a durable append under 5 ms p95 at every size.
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasyncSync, openSync, writeSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ms, sized, smoke, stats, verdict } from '../lib.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
/** The last commit with the single-file store (conversations.db holding every turn). */
const BASELINE_COMMIT = 'a8de63e';
const SIZES = sized([100, 1_000, 10_000], [50, 200]);
const APPENDS = sized(200, 10);
const OPEN_RUNS = sized(12, 2);
const GOALS = { openMs: 150, appendMs: 5 };

const { encodeEntry, segmentPath, JOURNAL_FORMAT } = require(join(ROOT, 'out/src/adapters/store/journal.js'));

/** A store's module bundled into out/bench (where it finds sql.js in node_modules). */
async function bundleStore(srcRoot, name) {
  const outfile = join(ROOT, 'out/bench', `${name}.cjs`);
  await build({ entryPoints: [join(srcRoot, 'src/adapters/store/sqlJsConversationStore.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', external: ['sql.js'], logLevel: 'error' });
  return outfile;
}

/** Today's store, from the baseline commit's source. */
async function bundleBaselineStore() {
  const source = mkdtempSync(join(tmpdir(), 'repo-wiki-baseline-src-'));
  try {
    const archive = execFileSync('git', ['archive', BASELINE_COMMIT, 'src'], { cwd: ROOT, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', source], { input: archive });
    return await bundleStore(source, 'baselineConversationStore');
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
}

// Realistic sizes: questions ~150 chars, answers ~1,500 chars of varied prose, 1 to 5 turns each.
const WORDS = ('request router handler middleware cache retry timeout pipeline error response module config index page wiki '
  + 'citation drift anchor symbol signature token stream model prompt turn conversation search query schema migration journal '
  + 'lock segment compaction window workspace folder commit branch test fixture bench latency durable database export rename').split(' ');
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = () => WORDS[Math.floor(random() * WORDS.length)];
const sentence = (words) => Array.from({ length: words }, pick).join(' ');
const paragraph = (chars) => { let text = ''; while (text.length < chars) text += `${sentence(12)}. `; return text.trim(); };
const context = () => ({ pages: [1, 2, 3].map((i) => ({ slug: `${pick()}-${pick()}-${i}`, title: sentence(4), score: random(), stale: false })), offline: false });
const turn = (conversationId, created) => ({
  conversationId, question: `How does the ${sentence(20)}?`, answer: paragraph(1500), context: context(),
  model: 'claude-sonnet-4-5', inputTokens: 3000, outputTokens: 400, created,
});

/** One journal segment with `conversations` conversations, the same for both stores. */
function journal(conversations) {
  const lines = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let c = 0; c < conversations; c++) {
    const id = `conversation-${c}`;
    const created = new Date(start + c * 60_000).toISOString();
    lines.push(encodeEntry({ v: JOURNAL_FORMAT, id: `create-${c}`, op: 'create', conversation: { id, title: sentence(6), created } }));
    const turns = 1 + Math.floor(random() * 5);
    for (let t = 0; t < turns; t++) lines.push(encodeEntry({ v: JOURNAL_FORMAT, id: `turn-${c}-${t}`, op: 'turn', turn: turn(id, created) }));
  }
  return Buffer.concat(lines);
}

/** A store folder holding the journal, folded into that store's files by opening and closing it. */
async function storeDir(module, segment, label) {
  const dir = mkdtempSync(join(tmpdir(), `repo-wiki-store-${label}-`));
  writeFileSync(segmentPath(dir, 1), segment);
  const { store } = await require(module).openConversationStore(dir);
  await store.close();
  return dir;
}

const folderMb = (dir) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0) / 1e6;

/** In a fresh process each time, as a window opening the chat: sql.js's load is part of it. */
function measureOpen(module, dir) {
  const probe = `const { openConversationStore } = require(${JSON.stringify(module)});
    const t = performance.now();
    openConversationStore(${JSON.stringify(dir)}).then(async ({ store }) => {
      const [latest] = await store.list();
      const listed = performance.now() - t;
      await store.get(latest.id);
      process.stdout.write(JSON.stringify({ listed, opened: performance.now() - t }));
    });`;
  const runs = Array.from({ length: OPEN_RUNS }, () => JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' })));
  return { list: stats(runs.map((r) => r.listed)), firstConversation: stats(runs.map((r) => r.opened)) };
}

/** Appends to conversations the user has open (each read first, untimed), acknowledged after write + fdatasync. */
async function measureAppends(module, dir, conversations) {
  const { store } = await require(module).openConversationStore(dir);
  const samples = [];
  for (let i = 0; i < APPENDS; i++) {
    const id = `conversation-${Math.floor(random() * conversations)}`;
    await store.get(id);
    const next = turn(id, new Date().toISOString());
    const t = performance.now();
    await store.appendTurn(next);
    samples.push(performance.now() - t);
  }
  await store.close();
  return stats(samples);
}

/** The disk's own floor: the same bytes written and fdatasynced to a plain file, as the journal does. */
function measureFsyncFloor(dir) {
  const fd = openSync(join(dir, 'floor.jsonl'), 'a');
  const line = Buffer.from(`\n${JSON.stringify(turn('floor', new Date().toISOString()))}\n`);
  const samples = [];
  try {
    for (let i = 0; i < APPENDS; i++) {
      const t = performance.now();
      writeSync(fd, line);
      fdatasyncSync(fd);
      samples.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
  }
  return stats(samples);
}

const baselineModule = await bundleBaselineStore();
const newStoreModule = await bundleStore(ROOT, 'conversationStore');
console.log(`conversation store: the catalog and turn shards against the single-file store of ${BASELINE_COMMIT} (load ${loadavg()[0].toFixed(1)})`);
let openOk = true;
let appendOk = true;
for (const size of SIZES) {
  const segment = journal(size);
  const stores = { baseline: { module: baselineModule }, sharded: { module: newStoreModule } };
  for (const [label, store] of Object.entries(stores)) {
    store.dir = await storeDir(store.module, segment, label);
    store.open = measureOpen(store.module, store.dir);
    store.append = await measureAppends(store.module, store.dir, size);
  }
  const { baseline, sharded } = stores;
  console.log(`  ${size.toLocaleString('en-US').padStart(6)} conversations (single file ${folderMb(baseline.dir).toFixed(1)} MB; catalog + shards ${folderMb(sharded.dir).toFixed(1)} MB)`);
  const row = (name, pick) => {
    const [old, now] = [pick(baseline), pick(sharded)];
    console.log(`    ${name.padEnd(36)} today p50 ${ms(old.p50)} p95 ${ms(old.p95)}   new p50 ${ms(now.p50)} p95 ${ms(now.p95)}   ratio p95 ${(now.p95 / old.p95).toFixed(2)}x`);
  };
  row(`open + first list (${OPEN_RUNS} processes)`, (s) => s.open.list);
  row('  ...+ open the latest conversation', (s) => s.open.firstConversation);
  row(`durable append (${APPENDS} turns)`, (s) => s.append);
  const floor = measureFsyncFloor(sharded.dir);
  console.log(`    ${'  floor: write + fdatasync alone'.padEnd(36)} p50 ${ms(floor.p50)} p95 ${ms(floor.p95)}`);
  if (size === SIZES.at(-1)) openOk = sharded.open.list.p95 < GOALS.openMs;
  appendOk &&= sharded.append.p95 < GOALS.appendMs;
  for (const store of [baseline, sharded]) rmSync(store.dir, { recursive: true, force: true });
}
console.log(`  goal open + first list < ${GOALS.openMs} ms p95 at ${SIZES.at(-1).toLocaleString('en-US')}: ${verdict(openOk)}`);
console.log(`  goal durable append < ${GOALS.appendMs} ms p95 at every size: ${verdict(appendOk)}`);
if (smoke) console.log('  (smoke run: tiny sizes, few runs)');
