// The ranked repository map (repo-wiki map, the repo_map tool) on the nine-language corpus of
// bench/drift/languages.mjs (real code from Debian's packages, ~1M lines; a smoke run copies a few
// files of each language):
//   1. cold: `repo-wiki map` in a fresh process (the CLI as built, dist/cli.js, timed from the
//      process's start to its exit: the files listed, read, parsed on drift's threads, ranked, the
//      map printed), against the parse floor of the same files in the same run: each parsed with
//      its grammar and its top-level declarations walked, on as many threads, each file to the
//      least loaded thread, each thread loading its files' grammars on the clock as a cold process
//      must. Map and floor run in pairs, five times, which of a pair runs first alternating (the
//      machine's speed drifts over minutes), each with its CPU time (every thread's); the map's
//      time by part comes from a run of the compiled modules (out/), whose loading takes longer
//      than the bundle's. Goal: p50 at most 1.3x the floor's p50.
//   2. warm: in that process, a map again after one file is saved (a comment appended) and the
//      map told of it (map.filesChanged), as the extension's file watcher and the editor's save
//      tell its map (the grammars loaded and a file of each language parsed first, as an editor
//      has them), beside a parse of that file alone. Goal: p50 under 50 ms.
//   3. quality, on three real code bases (the sources of effect, zod and yaml in node_modules):
//      of the code names their README mentions (readmeNames) that some file declares, the share a 2,000-token
//      map names, against the same renderer given the files ranked by size. Goal: at least 0.6 each.
//      `--quality` runs this part alone.
// Needs out/ and dist/ (npm run bench compiles and builds both).
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ms, sized, smoke, stats, verdict } from '../lib.mjs';
import { floorParse } from '../drift/parseFloor.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const require = createRequire(import.meta.url);
const out = (rel) => require(join(repo, 'out', 'src', `${rel}.js`));
const FILES_PER_LANGUAGE = sized(Infinity, 6);
const RUNS = sized({ cold: 5, saves: 40 }, { cold: 1, saves: 5 });
const GOALS = { coldRatio: 1.3, warmMs: 50 };
const TOKENS = 1024;

/** The corpus of bench/drift/languages.mjs: [language, folder (a list: those folders' own files only), extensions]. */
const SOURCES = [
  ['Python', '/usr/lib/python3.11', ['.py']],
  ['Go', '/usr/share/gocode/src', ['.go']],
  ['Rust', '/usr/share/cargo/registry', ['.rs']],
  ['Java', 'bsh', ['.java']],
  ['C#', () => join(require(join(repo, 'test/harness/runtime.cjs')).debianSourceDir('newtonsoft-json'), 'Src/Newtonsoft.Json'), ['.cs']],
  ['Ruby', '/usr/lib/ruby/3.1.0', ['.rb']],
  ['PHP', '/usr/share/php', ['.php']],
  ['C', ['/usr/include', '/usr/include/linux', '/usr/include/x86_64-linux-gnu'], ['.h']],
  ['C++', '/usr/src/googletest', ['.cc', '.h']],
];

function listFiles(dir, extensions, recursive = true) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && recursive && !/^(test|tests|__pycache__|c\+\+)$/.test(entry.name)) walk(path);
      else if (entry.isFile() && extensions.some((ext) => entry.name.endsWith(ext))) found.push(path);
    }
  };
  walk(dir);
  return found.sort();
}

/** Copies a language's files into `root` under `<tag>/`; the number copied, or the folder this machine lacks. */
function copyLanguage(root, [language, given, extensions], tmp) {
  const source = typeof given === 'function' ? given() : given;
  const needed = source === 'bsh' ? '/usr/src/bsh-src/bsh.tar.gz' : Array.isArray(source) ? source[0] : source;
  if (!existsSync(needed)) return { missing: needed };
  let from = source;
  if (source === 'bsh') {
    from = join(tmp, 'bsh');
    mkdirSync(from, { recursive: true });
    execFileSync('tar', ['-xzf', '/usr/src/bsh-src/bsh.tar.gz', '-C', from, 'src']);
  }
  const tag = language.replace('#', 'sharp').replace(/\+/g, 'p').toLowerCase();
  const folders = Array.isArray(source) ? source : [from];
  const files = folders.flatMap((folder) => listFiles(folder, extensions, !Array.isArray(source))).slice(0, FILES_PER_LANGUAGE);
  for (const file of files) {
    const rel = `${tag}/${relative(folders[0], file)}`;
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    cpSync(file, join(root, rel));
  }
  return { copied: files.length };
}


// A floor thread: loads its files' grammars when told to (on the clock), then parses them.
if (!isMainThread && workerData?.floorFiles) {
  const { TreeSitterParser } = out('adapters/treesitter/treeSitterParser');
  const parser = new TreeSitterParser();
  parentPort.postMessage('ready');
  parentPort.once('message', async () => {
    const start = performance.now();
    for (const file of workerData.floorFiles) await parser.prepare(file);
    const loadMs = performance.now() - start;
    floorParse(parser, workerData.root, workerData.floorFiles);
    parentPort.postMessage({ loadMs });
  });
}

/** The parse floor on `threads` threads, each file to the least loaded thread by size; each thread loads its grammars on the clock. Its CPU time: the process's, every thread's. */
async function parallelFloorMs(root, files, threads) {
  const shares = Array.from({ length: threads }, () => ({ bytes: 0, files: [] }));
  const bySize = files.map((file) => ({ file, bytes: readFileSync(join(root, file)).length })).sort((a, b) => b.bytes - a.bytes);
  for (const { file, bytes } of bySize) {
    const least = shares.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    least.bytes += bytes;
    least.files.push(file);
  }
  const started = performance.now();
  const workers = shares.map((share) => new Worker(fileURLToPath(import.meta.url), { workerData: { root, floorFiles: share.files } }));
  const next = (worker) => new Promise((done, fail) => { worker.once('message', done); worker.once('error', fail); });
  await Promise.all(workers.map(next));
  // Off the floor's clock, as it always was: what starting its threads costs the map (their modules loaded), told beside it.
  const startMs = performance.now() - started;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const finished = workers.map(next);
  workers.forEach((worker) => worker.postMessage('go'));
  const loads = await Promise.all(finished);
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await Promise.all(workers.map((worker) => worker.terminate()));
  return { ms: elapsed, cpuMs: (used.user + used.system) / 1000, loadMs: Math.max(...loads.map((thread) => thread.loadMs)), startMs };
}

/** The files a map parsed: those listed, but for the skipped. */
async function mappedFiles(core, map) {
  const skipped = new Set(map.skipped.map((file) => file.path));
  return (await core.symbolSearch.sourceFiles()).filter((file) => !skipped.has(file));
}

/** Adds the time each call of `object[method]` takes to `phases[phase]` (the map's parts are timed from outside it). */
function timed(object, method, phases, phase) {
  const original = object[method].bind(object);
  object[method] = (...args) => {
    const at = performance.now();
    const result = original(...args);
    const add = () => (phases[phase] = (phases[phase] ?? 0) + performance.now() - at);
    if (result instanceof Promise) result.then(add, add);
    else add();
    return result;
  };
}

// The map of the compiled modules in a fresh process (its time by part), then maps after one save each.
if (isMainThread && process.argv[2] === '--map') {
  const root = process.argv[3];
  const start = performance.now();
  const { openLocalCore } = out('adapters/localCore');
  const phases = { modules: performance.now() - start };
  // Watched, as the extension's map: its first map is the CLI's (every file listed, read, parsed).
  const core = openLocalCore(root, { watchedMap: true });
  // Its private parts, timed: the listing, the reads (on the parse threads), the ranking.
  timed(core.map.reader, 'sourceFiles', phases, 'listing');
  timed(core.map.reader, 'read', phases, 'reading and parsing');
  timed(core.map.ranker, 'rank', phases, 'ranking');
  const cold = await core.map.map({ tokens: TOKENS });
  const coldMs = performance.now() - start;
  phases['rendering and the rest'] = coldMs - Object.values(phases).reduce((sum, part) => sum + part, 0);
  const mapped = await mappedFiles(core, cold);
  // As the editor has them (bench/drift/languages.mjs does the same): the grammars loaded before
  // the saves, and a file of each language parsed here once (its queries compiled).
  const byLanguage = new Map();
  for (const file of mapped) {
    await core.parser.prepare(file);
    byLanguage.set(core.parser.languageOf(file), file);
  }
  for (const file of byLanguage.values()) await core.drift.symbolsOf(file, readFileSync(join(root, file), 'utf8'));
  // A file written in the last 2 s has no version yet (it may change again within the file
  // system's clock tick) and is read again by the next map: the corpus was just copied.
  await new Promise((settled) => setTimeout(settled, 2000));
  await core.map.map({ tokens: TOKENS });
  const saves = [];
  const parses = [];
  // Drift's own parse of the saved file (its tree and every declaration), by a parser of its own: no cache to hit.
  const { SourceParser } = out('adapters/sourceParser');
  const alone = new SourceParser(false);
  for (const file of byLanguage.values()) await alone.prepare(file);
  const parseAlone = (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const at = performance.now();
    void alone.parse(file, text).symbols.size;
    parses.push(performance.now() - at);
  };
  let seed = 7;
  for (let i = 0; i < RUNS.saves; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const file = mapped[seed % mapped.length];
    appendFileSync(join(root, file), `\n${file.endsWith('.py') || file.endsWith('.rb') ? '#' : '//'} saved ${i}\n`);
    core.map.filesChanged([file], false); // as the extension's watcher and the editor's save do
    // First on every other save: whichever runs second finds the text in the CPU's caches.
    if (i % 2) parseAlone(file);
    const at = performance.now();
    const again = await core.map.map({ tokens: TOKENS });
    saves.push(performance.now() - at);
    if (i % 2 === 0) parseAlone(file);
    if (again.tokens.used > TOKENS) throw new Error(`the map took ${again.tokens.used} tokens of ${TOKENS}`);
  }
  process.stdout.write(`${JSON.stringify({ coldMs, phases, mapped, skipped: cold.skipped.length, shown: cold.files.length, used: cold.tokens.used, top: cold.files.slice(0, 5).map((file) => file.path), saves, parses, rssMB: process.resourceUsage().maxRSS / 1024 })}\n`);
  process.exit(0);
}

/** [package, the folder of its code, inside node_modules/<package>]: real code bases with a README that shows their API. */
const REAL = sized([
  ['effect', 'src'],
  ['zod', 'src'],
  ['yaml', 'dist'],
], [['yaml', 'dist']]);
const QUALITY = { tokens: 2000, goal: 0.6 };

/**
 * The code names a README mentions, as a reader of it meets the API: the identifiers of its code
 * (fenced blocks and inline code), and the words of its prose and tables written as identifiers
 * are: a capital first (a module or a type: effect's README names its modules in a table, Effect,
 * Layer, Stream) or a capital or an underscore inside (`parseDocument`, `max_len`). Links are left
 * out. `code`: those of its code alone.
 */
function readmeNames(readme) {
  const spans = /```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g;
  const identifiers = (text) => text.match(/[A-Za-z_$][\w$]{2,}/g) ?? [];
  const code = new Set(identifiers([...readme.matchAll(spans)].map((match) => match[1] ?? match[2]).join('\n')));
  const prose = identifiers(readme.replace(spans, ' ').replace(/\]\([^)]*\)|<[^>]*>|https?:\S+/g, ' ')).filter((word) => /^[A-Z]|.[A-Z_]/.test(word));
  return { all: new Set([...code, ...prose]), code };
}

/** The share of `names` the text shows, as identifiers (not as parts of longer ones), and those it does not show. */
function shownIn(text, names) {
  const words = new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const missing = [...names].filter((name) => !words.has(name));
  return { share: (names.size - missing.length) / Math.max(1, names.size), missing };
}

/**
 * Of the README's names some file declares: the share a map of QUALITY.tokens names, against the
 * same renderer given the files ranked by size (largest first) at the same budget.
 */
async function quality(tmp) {
  const { openLocalCore } = out('adapters/localCore');
  const { renderMap } = out('core/map/renderMap');
  const rows = [];
  for (const [name, folder] of REAL) {
    const source = join(repo, 'node_modules', name);
    if (!existsSync(join(source, folder)) || !existsSync(join(source, 'README.md'))) {
      console.log(`  ${name.padEnd(7)} not measured: node_modules/${name}/${folder} or its README.md is missing`);
      continue;
    }
    const root = join(tmp, `real-${name}`);
    cpSync(join(source, folder), root, { recursive: true, dereference: true });
    const repoMap = openLocalCore(root).map;
    const map = await repoMap.map({ tokens: QUALITY.tokens });
    if (map.tokens.used > QUALITY.tokens) throw new Error(`the map of ${name} took ${map.tokens.used} tokens of ${QUALITY.tokens}`);
    // Every top-level declaration of each file: its facts, kept by the map.
    const facts = [...repoMap.facts.values()];
    const mentioned = readmeNames(readFileSync(join(source, 'README.md'), 'utf8'));
    const names = new Set(facts.flatMap((file) => file.definitions.map((definition) => definition.name)));
    const declared = new Set([...mentioned.all].filter((n) => names.has(n)));
    const inCode = new Set([...mentioned.code].filter((n) => names.has(n)));
    // The baseline: the same renderer given the files in order of size and no ranks (each file's declarations in its order).
    const bySize = facts.map((file) => ({ file, bytes: readFileSync(join(root, file.path)).length })).sort((a, b) => b.bytes - a.bytes || (a.file.path < b.file.path ? -1 : 1));
    const sized = renderMap(bySize.map(({ file }) => ({ path: file.path, rank: 0, best: 0, definitions: file.definitions.map((definition) => ({ definition, rank: 0 })) })), QUALITY.tokens);
    const shown = shownIn(map.text, declared);
    rows.push({ name, files: facts.length, names: declared.size, inCode: inCode.size, codeShare: shownIn(map.text, inCode).share, map: shown.share, size: shownIn(sized.text, declared).share, missing: shown.missing, shown: map.files.length, used: map.tokens.used, top: map.files.slice(0, 3).map((file) => file.path) });
  }
  for (const row of rows) {
    const ratio = row.size ? `${(row.map / row.size).toFixed(2)}x` : 'n/a';
    console.log(`  ${row.name.padEnd(7)} ${String(row.files).padStart(5)} files, ${String(row.names).padStart(4)} README names declared (${row.inCode} in its code, of which it names ${(row.codeShare * 100).toFixed(0)}%): a ${QUALITY.tokens}-token map names ${(row.map * 100).toFixed(0)}% (${row.shown} files, ${row.used} tokens), files by size ${(row.size * 100).toFixed(0)}% (${ratio} the baseline); goal at least ${QUALITY.goal * 100}%: ${verdict(row.map >= QUALITY.goal)}  (map first: ${row.top.join(', ')}; not named: ${row.missing.join(', ') || 'none'})`);
  }
  return rows;
}

if (isMainThread && process.argv[2] === '--quality') await qualityAlone();
else if (isMainThread && process.argv[2] !== '--map') await main();

/** `node bench/generate/map.mjs --quality`: the quality check alone (seconds, where the cold runs take minutes). */
async function qualityAlone() {
  const tmp = mkdtempSync(join(tmpdir(), 'repo-wiki-map-bench-'));
  try {
    console.log(`repository map quality only (load average ${loadavg()[0].toFixed(2)})`);
    const rows = await quality(tmp);
    console.log(`    at least ${QUALITY.goal * 100}% on ${rows.filter((row) => row.map >= QUALITY.goal).length} of ${rows.length} code bases`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'repo-wiki-map-bench-'));
  try {
    console.log(`repository map (${cpus().length} cores, node ${process.version}, load average ${loadavg()[0].toFixed(2)})`);
    const root = join(tmp, 'all');
    const measured = [];
    for (const entry of SOURCES) {
      const copied = copyLanguage(root, entry, tmp);
      if (copied.missing) console.log(`  ${entry[0].padEnd(9)} not measured: ${copied.missing} is missing (the system test stage installs it: node test/run-all.mjs --only system)`);
      else measured.push(entry[0]);
    }
    if (!measured.length) {
      console.log('  no language measured: their code is missing (see above)');
      return;
    }
    const mapRun = () => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--map', root], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim().split('\n').at(-1));
    // The CLI as a user runs it: its time and CPU from the preloaded exitTimes.cjs, which prints last.
    const cliRun = () => {
      const run = spawnSync(process.execPath, ['--require', join(here, 'exitTimes.cjs'), join(repo, 'dist', 'cli.js'), 'map', '--workspace', root, '--tokens', String(TOKENS), '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (run.status !== 0) throw new Error(`repo-wiki map failed (exit ${run.status}): ${run.stderr}`);
      const times = JSON.parse(run.stderr.split('exit times ').at(-1));
      return { coldMs: times.ms, coldCpuMs: times.cpuMs, map: JSON.parse(run.stdout) };
    };
    // The cold map and the floor of the files it parsed, in pairs: the machine's speed drifts over
    // minutes, and each pair meets about the same. The floor runs on as many threads as ParsePool
    // starts (at most 4), in this process, never while the map's runs.
    const threads = Math.min(4, availableParallelism());
    const run = mapRun();
    const pairs = [];
    for (let i = 0; i < RUNS.cold; i++) {
      // Which of the pair runs first alternates: the host's speed drifts within a pair too.
      const floorFirst = i % 2 === 1 ? await parallelFloorMs(root, run.mapped, threads) : undefined;
      const map = cliRun();
      if (map.map.skipped.length !== run.skipped) throw new Error(`the CLI skipped ${map.map.skipped.length} files, the compiled modules ${run.skipped}`);
      pairs.push({ map, floor: floorFirst ?? (await parallelFloorMs(root, run.mapped, threads)), load: loadavg()[0] });
    }
    const lines = run.mapped.reduce((sum, file) => sum + readFileSync(join(root, file), 'utf8').split('\n').length, 0);
    const coldMs = stats(pairs.map((pair) => pair.map.coldMs)).p50;
    const floor = stats(pairs.map((pair) => pair.floor.ms)).p50;
    const ratio = coldMs / floor;
    const cpuRatio = stats(pairs.map((pair) => pair.map.coldCpuMs)).p50 / stats(pairs.map((pair) => pair.floor.cpuMs)).p50;
    const warm = stats(run.saves);
    const alone = stats(run.parses);
    console.log(`  corpus: ${run.mapped.length} files, ${lines.toLocaleString('en-US')} lines in ${measured.length} languages (${run.skipped} skipped); map of ${run.shown} files in ${run.used} of ${TOKENS} tokens; first: ${run.top.join(', ')}`);
    for (const [i, { map, floor: one, load }] of pairs.entries()) {
      console.log(`    run ${i + 1} (load average ${load.toFixed(2)}): cold map ${ms(map.coldMs)} (CPU ${ms(map.coldCpuMs)}); floor ${ms(one.ms)} (CPU ${ms(one.cpuMs)}, grammars ${ms(one.loadMs)} on the slowest thread; starting its threads, off its clock, ${ms(one.startMs)}): ${(map.coldMs / one.ms).toFixed(2)}x`);
    }
    const parts = Object.entries(run.phases).map(([part, time]) => `${part} ${ms(time)}`).join(', ');
    console.log(`    the map's parts, in a run of the compiled modules (out/): ${parts}; ${ms(run.coldMs)} in all`);
    console.log(`    cold map (repo-wiki map, fresh process)  p50 ${ms(coldMs)}`);
    console.log(`    parse floor, ${threads} threads   p50 ${ms(floor)}, grammars loaded on the clock; the map is ${ratio.toFixed(2)}x this floor (CPU time ${cpuRatio.toFixed(2)}x), goal at most ${GOALS.coldRatio}x: ${verdict(ratio <= GOALS.coldRatio)}`);
    console.log(`    map after one save        p50 ${ms(warm.p50)}, p95 ${ms(warm.p95)} (${warm.n} saves); goal p50 under ${GOALS.warmMs} ms: ${verdict(warm.p50 < GOALS.warmMs)}`);
    console.log(`      drift's parse of that file p50 ${ms(alone.p50)}, p95 ${ms(alone.p95)}: the rest of the map after a save (the saved file read, the ranking, the text) is about ${ms(Math.max(0, warm.p50 - alone.p50))} at p50`);
    console.log(`    peak RSS of the map's process ${Math.round(run.rssMB)} MB`);
    console.log(`  quality: of the code names a README mentions (in its code, or written as identifiers in its prose) that some file declares, the share a ${QUALITY.tokens}-token map names, against files ranked by size`);
    const rows = await quality(tmp);
    const met = rows.filter((row) => row.map >= QUALITY.goal).length;
    console.log(`    at least ${QUALITY.goal * 100}% on ${met} of ${rows.length} code bases: ${verdict(met === rows.length)}`);
    console.log(`  ${smoke ? 'goals not judged (smoke run)' : `${[ratio <= GOALS.coldRatio, warm.p50 < GOALS.warmMs, met === rows.length].filter(Boolean).length} of 3 goal checks met`} (load average now ${loadavg()[0].toFixed(2)})`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
