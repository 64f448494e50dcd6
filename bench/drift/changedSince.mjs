// `repo-wiki drift --changed-since REF` on the generated ~5,000-file / ~1M-line project with 10,000
// stamped citations (1,000 pages), after a change touching 10 cited files: the whole CLI run, as CI
// runs it on a pull request, against a plain `repo-wiki drift` of the same wiki in the same run.
// Goal: under 500 ms. Each run is a fresh CLI process, so node's start and loading the bundle (with
// TypeScript) count; the same work in one warm process is printed beside it. Needs `npm run build`
// (dist/cli.js) and out/ (compiled by npm run bench) first.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ms, sized, stats, verdict } from '../lib.mjs';
import { pickCitations, writePages } from './citations.mjs';
import { out } from './code.mjs';
import { makeGeneratedCorpus, rng } from './corpus.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(repo, 'dist', 'cli.js');
const CITATIONS = sized(10_000, 100);
const CHANGED_FILES = sized(10, 3);
const RUNS = sized({ changed: 7, full: 3 }, { changed: 1, full: 1 });
const GOAL_MS = 500;

const tmp = mkdtempSync(join(tmpdir(), 'repo-wiki-changed-since-'));
const git = (...args) => execFileSync('git', args, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const drift = (...args) => {
  const started = performance.now();
  let stdout;
  try {
    stdout = execFileSync(process.execPath, [cli, 'drift', '--workspace', tmp, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    stdout = error.stdout; // exit 1: drift in error, still a report
  }
  return { ms: performance.now() - started, report: JSON.parse(stdout) };
};

try {
  console.log(`drift --changed-since benchmark (${cpus().length} cores, node ${process.version}, load average ${loadavg()[0].toFixed(2)})`);
  const corpus = makeGeneratedCorpus(tmp, { count: sized(5000, 60) });
  const { citations } = pickCitations(tmp, corpus.files, CITATIONS, CITATIONS);
  const pages = await writePages(tmp, join(tmp, '.wiki'), citations);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'base');
  const cited = [...new Set(citations.map((c) => c.path))];
  const random = rng(10);
  const touched = new Set();
  while (touched.size < CHANGED_FILES) touched.add(cited[random.int(cited.length)]);
  for (const file of touched) appendFileSync(join(tmp, file), '\nexport const touchedOnTheBranch = 1;\n');
  console.log(`  ${corpus.files.length} files, ${corpus.lines.toLocaleString('en-US')} lines, ${citations.length} citations in ${pages} pages; ${touched.size} cited files changed since main`);

  const changed = [];
  const full = [];
  let scoped;
  let whole;
  for (let i = 0; i < Math.max(RUNS.changed, RUNS.full); i++) {
    if (i < RUNS.changed) ({ ms: changed[i], report: scoped } = drift('--changed-since', 'main'));
    if (i < RUNS.full) ({ ms: full[i], report: whole } = drift());
  }
  // The same work in this process, modules loaded and warm: git diff, pages mentioning a changed path, their check.
  const { checkDrift } = out('cli/driftCheck');
  const { filesChangedSince } = out('adapters/git/gitChanges');
  const { openLocalCore } = out('adapters/localCore');
  const inProcess = [];
  for (let i = 0; i < RUNS.changed; i++) {
    const started = performance.now();
    await checkDrift(openLocalCore(tmp), { stamp: false, changed: await filesChangedSince(tmp, 'main') });
    inProcess.push(performance.now() - started);
  }
  const a = stats(changed);
  const w = stats(inProcess);
  const b = stats(full);
  console.log(`  --changed-since main   p50 ${ms(a.p50)}  (min ${ms(a.min)}, max ${ms(a.max)}, n=${a.n})  ${scoped.pagesChecked} pages, ${scoped.citationsChecked} citations checked`);
  console.log(`  the same, in a warm process p50 ${ms(w.p50)}  (min ${ms(w.min)}, max ${ms(w.max)}, n=${w.n})`);
  console.log(`  plain drift (baseline) p50 ${ms(b.p50)}  (min ${ms(b.min)}, max ${ms(b.max)}, n=${b.n})  ${whole.pagesChecked} pages, ${whole.citationsChecked} citations checked`);
  console.log(`  ratio ${(a.p50 / b.p50).toFixed(2)}x of a plain drift; goal under ${GOAL_MS} ms: ${verdict(a.p50 < GOAL_MS)}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
