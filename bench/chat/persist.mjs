// Persisting a turn at 100, 1,000 and 10,000 conversations, against a plain export()-and-rename of the
// whole database measured in the same run. Goals: acknowledged durable in under 5 ms at p95 at every
// size; opening the database at 10k conversations in under 200 ms.
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ms, sized, stats, verdict } from '../lib.mjs';

const require = createRequire(import.meta.url);
const storeModule = require.resolve('../../out/src/adapters/store/sqlJsConversationStore.js');
const { openConversationStore, DATABASE_FILE } = require(storeModule);
const { encodeEntry, segmentPath, JOURNAL_FORMAT } = require('../../out/src/adapters/store/journal.js');
const initSqlJs = require('sql.js');

const SIZES = sized([100, 1_000, 10_000], [50, 200]);
const APPENDS = sized(200, 10);
const BASELINE_RUNS = sized({ 100: 50, 1000: 30, 10000: 15 }, { 50: 2, 200: 2 });
const OPEN_RUNS = sized(5, 1);
/** Opening is measured at the largest size. */
const LARGEST = SIZES.at(-1);

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

/** Writes `conversations` conversations straight into a journal segment, then lets the store fold them into conversations.db. */
async function generate(conversations) {
  const dir = mkdtempSync(join(tmpdir(), `repo-wiki-persist-${conversations}-`));
  const lines = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let c = 0; c < conversations; c++) {
    const id = `conversation-${c}`;
    const created = new Date(start + c * 60_000).toISOString();
    lines.push(encodeEntry({ v: JOURNAL_FORMAT, id: `create-${c}`, op: 'create', conversation: { id, title: sentence(6), created } }));
    const turns = 1 + Math.floor(random() * 5);
    for (let t = 0; t < turns; t++) lines.push(encodeEntry({ v: JOURNAL_FORMAT, id: `turn-${c}-${t}`, op: 'turn', turn: turn(id, created) }));
  }
  writeFileSync(segmentPath(dir, 1), Buffer.concat(lines));
  const { store } = await openConversationStore(dir);
  await store.close(); // folds the journal into conversations.db
  return dir;
}

async function measureAppends(dir, conversations) {
  const { store } = await openConversationStore(dir);
  const samples = [];
  for (let i = 0; i < APPENDS; i++) {
    const id = `conversation-${Math.floor(random() * conversations)}`;
    const next = turn(id, new Date().toISOString());
    const t = performance.now();
    await store.appendTurn(next);
    samples.push(performance.now() - t);
  }
  await store.close();
  return stats(samples);
}

/** The baseline: what persisting costs without the journal, rewriting the whole database file per turn. */
async function measureExport(dir, runs) {
  const SQL = await initSqlJs();
  const file = join(dir, DATABASE_FILE);
  const db = new SQL.Database(readFileSync(file));
  const samples = [];
  for (let i = 0; i < runs; i++) {
    db.run('UPDATE conversation SET title = ? WHERE id = ?', [`renamed ${i}`, 'conversation-0']);
    const t = performance.now();
    const image = db.export();
    const temp = `${file}.bench-tmp`;
    const fd = openSync(temp, 'w');
    writeSync(fd, image);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, file);
    samples.push(performance.now() - t);
  }
  db.close();
  return stats(samples);
}

/** Opening in a fresh process each time: loading sql.js and its WebAssembly is part of the first open. */
function measureOpen(dir) {
  const probe = `const { openConversationStore } = require(${JSON.stringify(storeModule)});
    const t = performance.now();
    openConversationStore(${JSON.stringify(dir)}).then(async ({ store }) => {
      const opened = performance.now() - t;
      await store.list();
      process.stdout.write(JSON.stringify({ opened, listed: performance.now() - t }));
    });`;
  const runs = Array.from({ length: OPEN_RUNS }, () => JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' })));
  return { open: stats(runs.map((r) => r.opened)), list: stats(runs.map((r) => r.listed)) };
}

console.log(`persisting a turn (${APPENDS} appendTurn calls per size, each acknowledged after write + fdatasync)`);
let durableOk = true;
let openLargest;
for (const size of SIZES) {
  const t = performance.now();
  const dir = await generate(size);
  const mb = statSync(join(dir, DATABASE_FILE)).size / 1e6;
  const append = await measureAppends(dir, size);
  const baseline = await measureExport(dir, BASELINE_RUNS[size]);
  durableOk &&= append.p95 < 5;
  console.log(`  ${String(size).padStart(6)} conversations (${mb.toFixed(1)} MB, generated in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
  console.log(`    baseline: export() + write + fsync + rename   p50 ${ms(baseline.p50)}  p95 ${ms(baseline.p95)}`);
  console.log(`    appendTurn (journal)                          p50 ${ms(append.p50)}  p95 ${ms(append.p95)}  ratio ${(baseline.p50 / append.p50).toFixed(0)}x faster than baseline`);
  if (size === LARGEST) openLargest = measureOpen(dir);
}
console.log(`  open at ${LARGEST.toLocaleString('en-US')} conversations (${OPEN_RUNS} fresh processes, sql.js load included)  p50 ${ms(openLargest.open.p50)}  max ${ms(openLargest.open.max)}; with the first list() p50 ${ms(openLargest.list.p50)}`);
console.log(`  goal durable < 5 ms at p95 at every size: ${verdict(durableOk)}`);
console.log(`  goal open at ${LARGEST.toLocaleString('en-US')} < 200 ms: ${verdict(openLargest.open.max < 200)}`);
