// Drift check cost: our engine against a ts-morph whole-program baseline and a parse-only floor, on
// a pinned npm package's TypeScript sources (effect, a devDependency) and on a generated
// ~5,000-file / ~1M-line project, with 100 and 1,000 citations (ten per page, spread over about
// count/2 files, anchors stamped by the engine, so a full pass must find zero issues).
//
// Every measurement runs in a fresh process: modules are loaded before the clock starts, so time
// is the work itself, JIT warm-up included ("cold"); peak RSS is that process's own maxRSS. The OS
// file cache is warm for all methods alike. Page loading is timed apart from (b) and (c): (b) is
// handed the cited paths, (c) the loaded pages. See methods.mjs for what each method does, and
// host.mjs for the main-thread and worker round-trip figures. The (d) goal is judged on the engine
// call (invalidate + check of the citing pages) against a parse of the saved file alone, measured
// in the same process; the worker round trip is printed beside it. (s) is
// semantic mode, on the real package only: its time and memory against (a), no goal of its own.
// Timings on a shared 2-core machine are noisy: ranges are printed, and the load average.
//
// Needs out/ (compiled by npm run bench) and dist/driftWorker.js, dist/tsParser.js and dist/typescript.js (built by it) first.
// Takes about two minutes; its temp dir is removed at the end.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ms, sized, smoke, stats, verdict } from '../lib.mjs';
import { makeGeneratedCorpus, makeRealCorpus } from './corpus.mjs';
import { pickCitations, writePages } from './citations.mjs';
import { editTargets } from './edits.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
for (const needed of ['out/src/core/drift/driftEngine.js', 'dist/driftWorker.js', 'dist/tsParser.js', 'dist/typescript.js']) {
  if (!existsSync(join(repo, needed))) {
    console.error(`Missing ${needed}: run npm run bench, which prepares out/ and dist/ (or see CONTRIBUTING.md, Benchmarks).`);
    process.exit(1);
  }
}

const COUNTS = sized([100, 1000], [20]);
const RUNS = sized({ a: 2, b: 7, c: 7 }, { a: 1, b: 1, c: 1 }); // fresh processes per method and configuration; medians reported
const RUNS_A_LARGE = 1; // (a) on the 1M-line corpus takes ~12 s and ~1.5 GB per run
const WARM_ITERATIONS = sized(80, 5);
const GENERATED_FILES = sized(5000, 60);
// saveRatio: a save's re-check (d) at p95 against a parse of the saved file alone, as bench/drift/languages.mjs judges it.
const GOALS = { floorRatio: 1.25, speedup: 5, saveRatio: 1.5, rssMB: 300, stallMs: 50 };

const tmp = mkdtempSync(join(tmpdir(), 'repo-wiki-drift-bench-'));
const code = join(tmp, 'code');
const workerScript = join(code, 'dist', 'driftWorker.js');
const startedAt = performance.now();
const child = (script, config) => {
  try {
    const output = execFileSync(process.execPath, [join(here, script), JSON.stringify(config)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    return JSON.parse(output.trim().split('\n').at(-1));
  } catch (error) {
    throw new Error(`${script} ${config.method ?? ''} failed:\n${error.stderr || error.message}`);
  }
};
const mb = (value) => `${Math.round(value)} MB`;
const x = (value) => `${value < 0.01 ? value.toPrecision(2) : value.toFixed(2)}x`;
const median = (values) => stats(values).p50;
const pad = (text, width) => String(text).padEnd(width);
const lpad = (text, width) => String(text).padStart(width);

const summary = [];
try {
  // Snapshot of the code under test (see code.mjs); its node_modules link resolves typescript and gray-matter.
  cpSync(join(repo, 'out', 'src'), join(code, 'out', 'src'), { recursive: true });
  mkdirSync(join(code, 'dist'), { recursive: true });
  cpSync(join(repo, 'dist', 'driftWorker.js'), workerScript);
  // The worker requires the TS/JS parser from beside itself, and the parser the TypeScript compiler.
  for (const bundle of ['tsParser.js', 'typescript.js']) cpSync(join(repo, 'dist', bundle), join(code, 'dist', bundle));
  symlinkSync(join(repo, 'node_modules'), join(code, 'node_modules'), 'dir');
  process.env.DRIFT_BENCH_CODE = code;

  console.log(`drift check benchmark (${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, node ${process.version}, load average ${loadavg()[0].toFixed(2)})`);
  const corpora = [];
  let t = performance.now();
  // A smoke run leaves the real package out: its whole-program loads, (a) and (s), take tens of seconds.
  if (smoke) console.log('  smoke run: the generated corpus only, (s) run on it; the real package is left out (its whole-program loads take tens of seconds)');
  else corpora.push({ ...makeRealCorpus(join(tmp, 'real')), large: false });
  corpora.push({ ...makeGeneratedCorpus(join(tmp, 'generated'), { count: GENERATED_FILES }), large: true });
  console.log(`  corpora ready in ${ms(performance.now() - t)}:`);
  for (const corpus of corpora) console.log(`    ${pad(corpus.label, 28)} ${lpad(corpus.files.length, 5)} files ${lpad(corpus.lines.toLocaleString('en-US'), 10)} lines`);

  for (const corpus of corpora) {
    for (const count of COUNTS) {
      t = performance.now();
      const { citations, files } = pickCitations(corpus.root, corpus.files, count, count);
      const citationsFile = join(tmp, `${corpus.large ? 'generated' : 'real'}-${count}.json`);
      writeFileSync(citationsFile, JSON.stringify(citations));
      const wikiDir = join(corpus.root, `.wiki-${count}`);
      const pages = await writePages(corpus.root, wikiDir, citations);
      const targetsFile = join(tmp, `${corpus.large ? 'generated' : 'real'}-${count}-edits.json`);
      const targets = editTargets(corpus.root, citations);
      writeFileSync(targetsFile, JSON.stringify(targets));
      const setup = performance.now() - t;

      renameSync(wikiDir, join(corpus.root, '.wiki'));
      const config = { root: corpus.root, citationsFile, targetsFile };
      const runs = { a: [], b: [], c: [] };
      const runsA = corpus.large ? RUNS_A_LARGE : RUNS.a;
      // Interleaved, so slow drift of the machine's state spreads over all methods.
      for (let i = 0; i < Math.max(RUNS.b, RUNS.c, runsA); i++) {
        if (i < RUNS.b) runs.b.push(child('methods.mjs', { ...config, method: 'b' }));
        if (i < RUNS.c) runs.c.push(child('methods.mjs', { ...config, method: 'c' }));
        if (i < runsA) runs.a.push(child('methods.mjs', { ...config, method: 'a' }));
      }
      const warm = child('methods.mjs', { ...config, method: 'd', iterations: WARM_ITERATIONS });
      const host = child('host.mjs', { ...config, workerScript, iterations: WARM_ITERATIONS });
      // --semantic loads the whole program like (a): measured on the real package only, beside (a) (on the small generated one in a smoke run).
      const semantic = corpus.large && !smoke ? [] : [child('methods.mjs', { ...config, method: 's' })];
      renameSync(join(corpus.root, '.wiki'), wikiDir);

      for (const run of runs.c) {
        if (run.issues !== 0 || run.invalidPages !== 0 || run.citationsChecked !== count) {
          throw new Error(`(c) expected a clean pass over ${count} citations: ${JSON.stringify(run)}`);
        }
      }
      for (const run of runs.a) if (run.found !== count) throw new Error(`(a) found ${run.found} of ${count} cited declarations`);

      // Time: median of the runs (range shown); peak RSS: the largest of the runs.
      const row = (key) => {
        const times = stats(runs[key].map((r) => r.ms));
        return { ms: times.p50, min: times.min, max: times.max, rss: Math.max(...runs[key].map((r) => r.peakRssMB)), n: runs[key].length };
      };
      const a = row('a');
      const b = row('b');
      const c = row('c');
      const d = stats(warm.samples);
      const dParse = stats(warm.parseSamples);
      const w = stats(host.samples);
      const pageLoad = median(runs.c.map((r) => r.pageLoadMs));

      console.log('');
      console.log(`${corpus.label}, ${count} citations in ${pages} pages over ${files} files (setup ${ms(setup)})`);
      console.log(`  ${pad('method [runs]', 44)} ${lpad('time', 11)} ${lpad('range', 19)} ${lpad('peak RSS', 8)} ${lpad('vs (b)', 7)} ${lpad('(a) / it', 8)}`);
      const line = (label, r, note = '') => console.log(`  ${pad(label, 44)} ${lpad(ms(r.ms), 11)} ${lpad(r.min === undefined ? '' : `${r.min.toFixed(0)}-${r.max.toFixed(0)} ms`, 19)} ${lpad(mb(r.rss), 8)} ${lpad(x(r.ms / b.ms), 7)} ${lpad(x(a.ms / r.ms), 8)}${note}`);
      line(`(a) ts-morph Project, whole program [${a.n}]`, a, `   ${runs.a[0].files} files loaded (ts-morph's TypeScript ${runs.a[0].ts})`);
      line(`(b) floor: parse cited files + walk [${b.n}]`, b, `   ${runs.b[0].files} files parsed (TypeScript ${runs.b[0].ts})`);
      line(`(c) engine cold, check() [${c.n}]`, c, `   ${runs.c[0].issues} issues`);
      line(`(d) engine warm, one file saved, p50 [${d.n}]`, { ms: d.p50, rss: warm.peakRssMB }, `   p95 ${ms(d.p95)}, max ${ms(d.max)}; ${warm.targets} files edited in turn`);
      for (const run of semantic) line('(s) --semantic: (c) + every cited type [1]', { ms: run.ms, rss: run.peakRssMB }, `   ${run.typed} types resolved, ${run.issues} issues`);
      const extra = (label, text) => console.log(`  ${pad(`    ${label}`, 44)} ${text}`);
      extra('(d) for scale: parse of the saved file alone', `${lpad(ms(dParse.p50), 11)}   p95 ${ms(dParse.p95)}, max ${ms(dParse.max)} (createSourceFile, warm)`);
      extra('page loading (Wiki.loadPages), not in (c)', lpad(ms(pageLoad), 11));
      extra('warm via worker: one sourcesChanged', `${lpad(ms(w.p50), 11)}   p95 ${ms(w.p95)} (round trip; the host names the citing pages, as the extension does)`);
      extra('full scan via DriftClient + worker', `${lpad(ms(host.scanMs), 11)}   peak RSS ${mb(host.peakRssMB)} (host + worker), main-thread stall max ${ms(host.stallMaxMs)} (p99 ${ms(host.stallP99Ms)}), longest 1 ms-timer gap ${ms(host.gapMaxMs)}`);

      const goal = (text, ok) => {
        console.log(`  ${pad(text, 74)} ${verdict(ok)}`);
        summary.push({ where: `${corpus.label}, ${count} citations`, text, ok });
      };
      goal(`(c) <= ${GOALS.floorRatio}x (b): ${x(c.ms / b.ms)}`, c.ms <= GOALS.floorRatio * b.ms);
      goal(`(c) >= ${GOALS.speedup}x faster than (a): ${x(a.ms / c.ms)}`, a.ms >= GOALS.speedup * c.ms);
      goal(`(d) re-check of one saved file p95 <= ${GOALS.saveRatio}x its parse alone: ${x(d.p95 / dParse.p95)}`, d.p95 <= GOALS.saveRatio * dParse.p95);
      if (count === COUNTS.at(-1)) goal(`peak RSS of a full scan (c) < ${GOALS.rssMB} MB: ${mb(c.rss)}`, c.rss < GOALS.rssMB);
      goal(`main thread blocked < ${GOALS.stallMs} ms during a full scan: ${ms(Math.max(host.stallMaxMs, host.gapMaxMs))}`, Math.max(host.stallMaxMs, host.gapMaxMs) < GOALS.stallMs);
    }
  }
  const missed = summary.filter((s) => !smoke && !s.ok);
  console.log('');
  console.log(`drift benchmark done in ${(((performance.now() - startedAt) / 1000)).toFixed(0)} s (load average now ${loadavg()[0].toFixed(2)}): ${smoke ? 'goals not judged (smoke run)' : `${summary.length - missed.length} of ${summary.length} goal checks met`}`);
  for (const s of missed) console.log(`  ${verdict(false)}: ${s.where}: ${s.text}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
