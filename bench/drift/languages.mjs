// Drift in the languages tree-sitter parses, on real code from Debian's packages (installed by the
// test stage: see test/run-all.mjs; C#'s is the source package newtonsoft-json, which it unpacks):
//   1. per language: a full scan of up to 1,000 citations on one thread, against a parse floor of
//      the same files with the same grammar on one thread (the parse and a walk of the top-level declarations, as the TypeScript
//      floor does), in the same process, median of 5. Goal: at most 1.25x.
//   2. scale: every language together (~1M lines), up to 50,000 citations, in a fresh process:
//      cold full scan, parsed on a thread per core as the CLI and the editor do (goal under 5 s;
//      printed beside it: the parse floor of the same files on as many threads, each file to the
//      least loaded thread, grammars loaded before the clock, and again loading them on it), peak RSS (goal under 400 MB), and the re-check after one
//      file is saved against a parse of that file alone (goal: p95 at most 1.5x).
//   3. `--changed-since` on that corpus after a change to 10 cited files (goal under 500 ms), in a
//      warm process (a fresh one, after one untimed run loads its modules and grammars: this
//      process holds the memory of the runs above, which makes every git it starts slower) and
//      as the CLI runs it.
// Needs out/ (compiled by npm run bench) and `npm run build` (dist/cli.js).
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ms, sized, smoke, stats, verdict } from '../lib.mjs';
import { floorParse } from './parseFloor.mjs';
import { out } from './code.mjs';
import { rng } from './corpus.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Parser: TreeParser } = require('@vscode/tree-sitter-wasm');
const repo = resolve(here, '../..');
const CITABLE = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/;
const PER_PAGE = 10;
// A smoke run copies a few files of each language and cites a few of their symbols.
const FILES_PER_LANGUAGE = sized(Infinity, 6);
const CITATIONS_PER_LANGUAGE = sized(1000, 30);
const RUNS = sized({ language: 5, changedSince: 6, saves: 200, floors: 3, cli: 5 }, { language: 1, changedSince: 2, saves: 10, floors: 1, cli: 1 });
const CHANGED_FILES = sized(10, 3);
const GOALS = { floorRatio: 1.25, scaleColdMs: 5000, scaleRssMB: 400, saveRatio: 1.5, changedSinceMs: 500 };

/** Where each language's real code is on this machine: [language, folder (a list: those folders' own files only), extensions, citations at scale]. */
const SOURCES = [
  ['Python', '/usr/lib/python3.11', ['.py'], 12000],
  ['Go', '/usr/share/gocode/src', ['.go'], 1000],
  ['Rust', '/usr/share/cargo/registry', ['.rs'], 1000],
  ['Java', 'bsh', ['.java'], 1000],
  ['C#', join(require(join(repo, 'test/harness/runtime.cjs')).debianSourceDir('newtonsoft-json'), 'Src/Newtonsoft.Json'), ['.cs'], 1000],
  ['Ruby', '/usr/lib/ruby/3.1.0', ['.rb'], 12000],
  ['PHP', '/usr/share/php', ['.php'], 1000],
  ['C', ['/usr/include', '/usr/include/linux', '/usr/include/x86_64-linux-gnu'], ['.h'], 20000],
  ['C++', '/usr/src/googletest', ['.cc', '.h'], 5000],
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

/** Copies a language's files into the workspace under `<tag>/`, returns workspace-relative paths. */
/** What a language's real code needs and this machine lacks (a folder, or the bsh source package), or undefined. */
function missingSource(source) {
  const needed = source === 'bsh' ? '/usr/src/bsh-src/bsh.tar.gz' : Array.isArray(source) ? source[0] : source;
  return existsSync(needed) ? undefined : needed;
}

function copyLanguage(root, [language, source, extensions], tmp) {
  let from = source;
  if (source === 'bsh') {
    from = join(tmp, 'bsh');
    mkdirSync(from, { recursive: true });
    execFileSync('tar', ['-xzf', '/usr/src/bsh-src/bsh.tar.gz', '-C', from, 'src']);
  }
  const tag = language.replace('#', 'sharp').replace(/\+/g, 'p').toLowerCase();
  const folders = Array.isArray(source) ? source : [from];
  const base = folders[0];
  return folders.flatMap((folder) => listFiles(folder, extensions, !Array.isArray(source))).slice(0, FILES_PER_LANGUAGE).map((file) => {
    const rel = `${tag}/${relative(base, file)}`;
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    cpSync(file, join(root, rel));
    return rel;
  });
}

/** Up to `count` citations over the files, round-robin, each a symbol declared once in its file. */
async function pickCitations(parser, root, files, count) {
  const perFile = [];
  for (const file of files) {
    await parser.prepare(file);
    const symbols = [...parser.parse(file, readFileSync(join(root, file), 'utf8')).symbols.keys()].filter((name) => CITABLE.test(name));
    if (symbols.length) perFile.push({ file, symbols, next: 0 });
  }
  const citations = [];
  for (let progress = true; citations.length < count && progress; ) {
    progress = false;
    for (const entry of perFile) {
      if (citations.length >= count) break;
      if (entry.next < entry.symbols.length) {
        citations.push({ path: entry.file, symbol: entry.symbols[entry.next++] });
        progress = true;
      }
    }
  }
  return citations;
}

async function writePages(engine, root, citations, prefix) {
  mkdirSync(join(root, '.wiki/pages'), { recursive: true });
  for (let start = 0, n = 0; start < citations.length; start += PER_PAGE, n++) {
    const group = citations.slice(start, start + PER_PAGE);
    const anchors = [];
    for (const c of group) {
      const anchor = await engine.currentAnchor({ path: c.path, symbol: c.symbol, outside: false });
      if (!anchor) throw new Error(`${c.path}:${c.symbol} does not resolve`);
      anchors.push(`  ${JSON.stringify(`${c.path}:${c.symbol}`)}: ${JSON.stringify(anchor)}`);
    }
    writeFileSync(join(root, '.wiki/pages', `${prefix}-${String(n).padStart(5, '0')}.md`), `---\ntitle: ${prefix} ${n}\ntopic: architecture\nsummary: Part ${n}.\nstatus: active\ntags: []\ncreated: 2026-11-01\nupdated: 2026-11-01\nanchors:\n${anchors.join('\n')}\n---\n${group.map((c) => `- \`${c.path}:${c.symbol}\``).join('\n')}\n`);
  }
}

const core = () => {
  const { DriftEngine } = out('core/drift/driftEngine');
  const { WorkspaceFiles } = out('adapters/files/workspaceFiles');
  const { SourceParser } = out('adapters/sourceParser');
  const { WorkspaceSearch } = out('adapters/workspaceSearch');
  const { Wiki } = out('core/wiki/wiki');
  return { DriftEngine, WorkspaceFiles, SourceParser, WorkspaceSearch, Wiki };
};

function engineFor(root, parser) {
  const { DriftEngine, WorkspaceFiles, WorkspaceSearch, Wiki } = core();
  const files = new WorkspaceFiles(root, { syncReads: true });
  return { engine: new DriftEngine(root, files, parser, new WorkspaceSearch(root, files)), wiki: new Wiki(root, files, { now: () => new Date() }) };
}

/**
 * The floor, as for TypeScript (bench/drift/methods.mjs, b): read each cited file, parse it with
 * the same grammar, and walk its top-level declarations into a name table; nothing else.
 */
async function floorMs(parser, root, files) {
  const start = performance.now();
  floorParse(parser, root, files);
  return performance.now() - start;
}


/**
 * The parallel floor, on a worker thread: load the grammars of its files, then parse them when
 * told to; with `loadOnClock`, load them only when told to, as a cold process must.
 */
if (!isMainThread && workerData?.floorFiles) {
  const { TreeSitterParser } = out('adapters/treesitter/treeSitterParser');
  const parser = new TreeSitterParser();
  const prepare = async () => {
    for (const file of workerData.floorFiles) await parser.prepare(file);
  };
  if (!workerData.loadOnClock) await prepare();
  parentPort.postMessage('ready');
  parentPort.once('message', async () => {
    const start = performance.now();
    if (workerData.loadOnClock) await prepare();
    const loadMs = performance.now() - start;
    floorParse(parser, workerData.root, workerData.floorFiles);
    parentPort.postMessage({ loadMs });
  });
}

/**
 * The parse floor of the scale corpus on as many threads as the scan uses: each file to the least
 * loaded thread, by size. `loadOnClock`: each thread loads the grammars of its files on the clock
 * (all nine, where a parse pool shares them out: a little more loading than the scan's); the
 * slowest thread's loading is returned with it.
 */
async function parallelFloorMs(root, files, threads, loadOnClock = false) {
  const shares = Array.from({ length: threads }, () => ({ bytes: 0, files: [] }));
  const sized = files.map((file) => ({ file, bytes: readFileSync(join(root, file)).length })).sort((a, b) => b.bytes - a.bytes);
  for (const { file, bytes } of sized) {
    const least = shares.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    least.bytes += bytes;
    least.files.push(file);
  }
  const workers = shares.map((share) => new Worker(fileURLToPath(import.meta.url), { workerData: { root, floorFiles: share.files, loadOnClock } }));
  const next = (worker) => new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  await Promise.all(workers.map(next));
  const start = performance.now();
  const done = workers.map(next);
  workers.forEach((worker) => worker.postMessage('go'));
  const loads = await Promise.all(done);
  const elapsed = performance.now() - start;
  await Promise.all(workers.map((worker) => worker.terminate()));
  return { ms: elapsed, loadMs: Math.max(...loads.map((thread) => thread.loadMs)) };
}

// `--changed-since` in a warm process of its own: one untimed run, then five timed ones.
if (isMainThread && process.argv[2] === '--changed-since') {
  const all = process.argv[3];
  const { changedSince, checkDrift } = out('cli/driftCheck');
  const { openLocalCore } = out('adapters/localCore');
  const runs = [];
  let checked;
  for (let i = 0; i < RUNS.changedSince; i++) {
    const start = performance.now();
    const core = openLocalCore(all);
    ({ report: checked } = await checkDrift(core, { stamp: false, ...(await changedSince(core, 'main', false)) }));
    if (i > 0) runs.push(performance.now() - start);
  }
  process.stdout.write(`${JSON.stringify({ pages: checked.pagesChecked, citations: checked.citationsChecked, runs })}\n`);
  process.exit(0);
}

// The scale measurement runs in a fresh process, so its peak RSS is its own.
if (isMainThread && process.argv[2] === '--scale') {
  const { root, files } = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  const { SourceParser } = core();
  // As a CLI run: nothing loaded before the clock; the scan parses on a thread per core, which load their grammars inside it.
  const parser = new SourceParser();
  const { engine, wiki } = engineFor(root, parser);
  const { citationsOf, pagesCiting } = out('core/drift/citations');
  const pages = await wiki.loadPages();
  let start = performance.now();
  const report = await engine.check(pages);
  const coldMs = performance.now() - start;
  if (report.issues.length) throw new Error(`scale: ${report.issues.length} issues on a clean corpus: ${JSON.stringify(report.issues.slice(0, 3).map((i) => `${i.code} ${i.data.citation}`))}`);
  // One file saved: a comment appended, then the pages citing it re-checked, on this thread (grammars loaded first, as an editor has them).
  for (const file of files) await parser.prepare(file);
  const random = rng(3);
  const cited = [...new Set(pages.flatMap((page) => citationsOf(page).map((c) => c.path)))];
  const saves = [];
  const parses = [];
  const raw = new TreeParser();
  const parseAlone = (file, text) => {
    const start = performance.now();
    raw.setLanguage(parser.languageOf(file));
    raw.parse(text).delete();
    parses.push(performance.now() - start);
  };
  for (let i = 0; i < RUNS.saves; i++) {
    const file = cited[random.int(cited.length)];
    const text = `${readFileSync(join(root, file), 'utf8')}\n${file.endsWith('.py') || file.endsWith('.rb') ? '#' : '//'} saved ${i}\n`;
    writeFileSync(join(root, file), text);
    // First on every other save: whichever runs second finds the text in the CPU's caches and the grammar's code just run.
    if (i % 2) parseAlone(file, text);
    start = performance.now();
    // As the editor does it: the host names the citing pages from its snapshot; the worker forgets the file, reads those pages, checks their citations into it.
    const saved = new Set([file]);
    const slugs = pagesCiting(pages, saved).map((page) => page.slug);
    engine.invalidate(file);
    const again = await engine.check(pagesCiting(await wiki.loadPages({ slugs }), saved), undefined, (citation) => saved.has(citation.path));
    saves.push(performance.now() - start);
    if (again.issues.length) throw new Error(`scale: a comment made ${again.issues.length} issues in ${file}`);
    if (i % 2 === 0) parseAlone(file, text);
  }
  process.stdout.write(`${JSON.stringify({ coldMs, citations: report.citationsChecked, pages: pages.length, rssMB: process.resourceUsage().maxRSS / 1024, saves, parses })}\n`);
  process.exit(0);
}

// The --scale run above exits when done; a floor thread has run its part.
if (isMainThread) await main();

async function main() {
const tmp = mkdtempSync(join(tmpdir(), 'repo-wiki-languages-bench-'));
try {
  console.log(`drift in other languages (${cpus().length} cores, node ${process.version}, load average ${loadavg()[0].toFixed(2)})`);
  const { SourceParser } = core();
  const all = join(tmp, 'all');
  const summary = [];
  const allFiles = [];
  const allCitations = [];
  const measured = [];
  console.log(`  ${'language'.padEnd(9)} ${'files'.padStart(6)} ${'lines'.padStart(9)} ${'citations'.padStart(9)} ${'scan'.padStart(11)} ${'floor'.padStart(11)} ${'ratio'.padStart(6)}`);
  for (const entry of SOURCES) {
    const [language, source, , scaleCount] = entry;
    const missing = missingSource(source);
    if (missing) {
      console.log(`  ${language.padEnd(9)} not measured: ${missing} is missing (the system test stage installs it: node test/run-all.mjs --only system)`);
      continue;
    }
    measured.push(language);
    const root = join(tmp, language.replace(/\W/g, '_'));
    const files = copyLanguage(root, entry, tmp);
    copyLanguage(all, entry, tmp).forEach((file) => allFiles.push(file));
    const lines = files.reduce((sum, file) => sum + readFileSync(join(root, file), 'utf8').split('\n').length, 0);
    const stamping = new SourceParser();
    const citations = await pickCitations(stamping, root, files, CITATIONS_PER_LANGUAGE);
    await writePages(engineFor(root, stamping).engine, root, citations, 'page');
    allCitations.push(...(await pickCitations(stamping, all, files.map((file) => file), sized(scaleCount, CITATIONS_PER_LANGUAGE))));
    const citedFiles = [...new Set(citations.map((c) => c.path))];
    const scans = [];
    const floors = [];
    for (let run = 0; run < RUNS.language; run++) {
      const parser = new SourceParser(false); // one thread, as the floor; nothing cached, grammars loaded before the clock
      for (const file of citedFiles) await parser.prepare(file);
      const { engine, wiki } = engineFor(root, parser);
      const pages = await wiki.loadPages();
      const start = performance.now();
      const report = await engine.check(pages);
      scans.push(performance.now() - start);
      if (report.issues.length) throw new Error(`${language}: ${report.issues.length} issues on a clean corpus: ${report.issues.slice(0, 3).map((i) => `${i.code} ${i.data.citation}`).join(', ')}`);
      floors.push(await floorMs(parser, root, citedFiles));
    }
    const scan = stats(scans).p50;
    const floor = stats(floors).p50;
    const ratio = scan / floor;
    console.log(`  ${language.padEnd(9)} ${String(files.length).padStart(6)} ${lines.toLocaleString('en-US').padStart(9)} ${String(citations.length).padStart(9)} ${ms(scan).padStart(11)} ${ms(floor).padStart(11)} ${`${ratio.toFixed(2)}x`.padStart(6)}  ${verdict(ratio <= GOALS.floorRatio)}`);
    summary.push(ratio <= GOALS.floorRatio);
  }

  if (!measured.length) {
    console.log('  no language measured: their code is missing (see above)');
    return;
  }
  // Scale: every language in one workspace.
  const lines = allFiles.reduce((sum, file) => sum + readFileSync(join(all, file), 'utf8').split('\n').length, 0);
  await writePages(engineFor(all, new SourceParser()).engine, all, allCitations, 'mixed');
  const config = join(tmp, 'scale.json');
  const scaleFiles = [...new Set(allCitations.map((c) => c.path))];
  writeFileSync(config, JSON.stringify({ root: all, files: scaleFiles }));
  const scale = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--scale', config], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim().split('\n').at(-1));
  // Median of 3, after the scan's process has ended (a thread per core, as ParsePool starts them, at most 4).
  const floorThreads = Math.min(4, availableParallelism());
  const parallelFloors = [];
  const loadedFloors = [];
  for (let run = 0; run < RUNS.floors; run++) {
    parallelFloors.push((await parallelFloorMs(all, scaleFiles, floorThreads)).ms);
    loadedFloors.push(await parallelFloorMs(all, scaleFiles, floorThreads, true));
  }
  const parallelFloor = stats(parallelFloors).p50;
  const loadedFloor = stats(loadedFloors.map((floor) => floor.ms)).p50;
  const floorLoading = stats(loadedFloors.map((floor) => floor.loadMs)).p50;
  const save = stats(scale.saves);
  const parse = stats(scale.parses);
  console.log('');
  console.log(`  scale: ${allFiles.length} files, ${lines.toLocaleString('en-US')} lines in ${measured.length} languages, ${scale.citations} citations in ${scale.pages} pages`);
  console.log(`    cold full scan            ${ms(scale.coldMs).padStart(11)}   goal under ${GOALS.scaleColdMs} ms: ${verdict(scale.coldMs < GOALS.scaleColdMs)}`);
  console.log(`      parse floor, ${floorThreads} threads  ${ms(parallelFloor).padStart(11)}   the scan is ${(scale.coldMs / parallelFloor).toFixed(2)}x this floor (the same files parsed and their top-level declarations walked, nothing else)`);
  console.log(`      with its grammars      ${ms(loadedFloor).padStart(11)}   the scan is ${(scale.coldMs / loadedFloor).toFixed(2)}x this floor (each thread loads its files' grammars on the clock, as a cold process must: ${ms(floorLoading)} on the slowest)`);
  console.log(`    peak RSS                  ${`${Math.round(scale.rssMB)} MB`.padStart(11)}   goal under ${GOALS.scaleRssMB} MB: ${verdict(scale.rssMB < GOALS.scaleRssMB)}`);
  console.log(`    re-check after one save   p50 ${ms(save.p50)}, p95 ${ms(save.p95)}; parse of that file alone p50 ${ms(parse.p50)}, p95 ${ms(parse.p95)}; ratio of p95 ${(save.p95 / parse.p95).toFixed(2)}x, goal at most ${GOALS.saveRatio}x: ${verdict(save.p95 <= GOALS.saveRatio * parse.p95)}`);
  summary.push(scale.coldMs < GOALS.scaleColdMs, scale.rssMB < GOALS.scaleRssMB, save.p95 <= GOALS.saveRatio * parse.p95);

  // --changed-since after a change to 10 cited files.
  const git = (...args) => execFileSync('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=bench', ...args], { cwd: all, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'base');
  const random = rng(11);
  const cited = scaleFiles;
  const touched = new Set();
  while (touched.size < Math.min(CHANGED_FILES, cited.length)) touched.add(cited[random.int(cited.length)]);
  for (const file of touched) appendFileSync(join(all, file), `\n${file.endsWith('.py') || file.endsWith('.rb') ? '#' : '//'} changed on the branch\n`);
  const checked = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--changed-since', all], { encoding: 'utf8' }).trim().split('\n').at(-1));
  const warm = checked.runs;
  const cli = [];
  for (let i = 0; i < RUNS.cli; i++) {
    const start = performance.now();
    execFileSync(process.execPath, [join(repo, 'dist/cli.js'), 'drift', '--workspace', all, '--changed-since', 'main', '--format', 'json'], { stdio: 'ignore' });
    cli.push(performance.now() - start);
  }
  const w = stats(warm);
  const c = stats(cli);
  console.log(`    --changed-since main      ${checked.pages} pages, ${checked.citations} citations checked; warm process p50 ${ms(w.p50)}, CLI process p50 ${ms(c.p50)}; goal under ${GOALS.changedSinceMs} ms: ${verdict(w.p50 < GOALS.changedSinceMs)} (warm), ${verdict(c.p50 < GOALS.changedSinceMs)} (CLI)`);
  summary.push(w.p50 < GOALS.changedSinceMs);
  console.log(`  ${smoke ? 'goals not judged (smoke run)' : `${summary.filter(Boolean).length} of ${summary.length} goal checks met`} (load average now ${loadavg()[0].toFixed(2)})`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
}
