// `repo-wiki upkeep` on a 2,000-page wiki with 10,000 stamped citations into the generated code
// base, against a plain `repo-wiki drift` of the same wiki in the same run. Goal: at most 1.2x.
// Before the first run, 20 cited functions are deleted and 30 pages are superseded and left
// untouched for 200 days, so that run marks pages stale, archives pages, rebuilds the index and logs;
// later runs are the daily case, with nothing to change. Each run is a fresh CLI process, as CI and
// a terminal run it. Needs `npm run build` (dist/cli.js) and out/ (compiled by npm run bench).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ms, sized, stats, verdict } from '../lib.mjs';
import { pickCitations, writePages } from '../drift/citations.mjs';
import { makeGeneratedCorpus, rng } from '../drift/corpus.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(repo, 'dist', 'cli.js');
const CITATIONS = sized(10_000, 100);
const PER_PAGE = 5;
const DELETED = sized(20, 3);
const SUPERSEDED = sized(30, 3);
const RUNS = sized(5, 1);
const GOAL = 1.2;

const tmp = mkdtempSync(join(tmpdir(), 'repo-wiki-upkeep-'));
const git = (...args) => execFileSync('git', args, { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, ...OLD } });
const OLD = { GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };
const timed = (command, ...args) => {
  const started = performance.now();
  let stdout;
  try {
    stdout = execFileSync(process.execPath, [cli, command, '--workspace', tmp, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    stdout = error.stdout; // drift exits 1 when a citation is in error: still a report
  }
  return { ms: performance.now() - started, report: JSON.parse(stdout) };
};

try {
  console.log(`upkeep benchmark (${cpus().length} cores, node ${process.version}, load average ${loadavg()[0].toFixed(2)})`);
  const corpus = makeGeneratedCorpus(tmp, { count: sized(2000, 60) });
  const { citations } = pickCitations(tmp, corpus.files, CITATIONS, CITATIONS);
  const pages = await writePages(tmp, join(tmp, '.wiki'), citations, PER_PAGE);
  writeFileSync(join(tmp, '.wiki', 'log.jsonl'), '');
  const random = rng(17);
  // Pages superseded long ago, by the page after them.
  for (let i = 0; i < SUPERSEDED; i++) {
    const n = 1 + random.int(pages - 2);
    const file = join(tmp, '.wiki', 'pages', `bench-page-${String(n).padStart(4, '0')}.md`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('status: active', `status: superseded\nsuperseded_by: bench-page-${String(n + 1).padStart(4, '0')}`).replace('updated: 2026-11-22', 'updated: 2026-01-01'));
  }
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'base');
  // Cited functions deleted since: whole top-level functions, so the citation is missing-symbol.
  let deleted = 0;
  for (const citation of citations) {
    if (deleted === DELETED) break;
    if (!citation.symbol || citation.symbol.includes('.')) continue;
    const file = join(tmp, citation.path);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(`export function ${citation.symbol}(`);
    const end = at < 0 ? -1 : text.indexOf('\n}\n', at);
    if (end < 0) continue;
    writeFileSync(file, text.slice(0, at) + text.slice(end + 3));
    deleted++;
  }
  console.log(`  ${corpus.files.length} files, ${corpus.lines.toLocaleString('en-US')} lines, ${citations.length} citations in ${pages} pages; ${deleted} cited functions deleted, ${SUPERSEDED} pages superseded since 2026-01-01`);

  const drift = [];
  let driftReport;
  for (let i = 0; i < RUNS; i++) ({ ms: drift[i], report: driftReport } = timed('drift'));
  const dry = [];
  let plan;
  for (let i = 0; i < RUNS; i++) ({ ms: dry[i], report: plan } = timed('upkeep', '--dry-run'));
  const first = timed('upkeep');
  const steady = [];
  let last;
  for (let i = 0; i < RUNS; i++) ({ ms: steady[i], report: last } = timed('upkeep'));
  const d = stats(drift);
  const r = stats(dry);
  const s = stats(steady);
  const log = readFileSync(join(tmp, '.wiki', 'log.jsonl'), 'utf8').trim().split('\n').filter(Boolean);
  console.log(`  plain drift (baseline)     p50 ${ms(d.p50)}  (min ${ms(d.min)}, max ${ms(d.max)}, n=${d.n})  ${driftReport.citationsChecked} citations, ${driftReport.issues.length} issues`);
  console.log(`  upkeep --dry-run           p50 ${ms(r.p50)}  (min ${ms(r.min)}, max ${ms(r.max)}, n=${r.n})  ${r.p50 / d.p50 < 10 ? (r.p50 / d.p50).toFixed(2) : '>10'}x  would mark ${plan.stale.length} stale, archive ${plan.archived.length}`);
  console.log(`  upkeep, first run          ${ms(first.ms)}  ${(first.ms / d.p50).toFixed(2)}x  marked ${first.report.stale.length} stale, archived ${first.report.archived.length}, wrote ${first.report.written.length} pages; ${log.length} log line`);
  console.log(`  upkeep, nothing to change  p50 ${ms(s.p50)}  (min ${ms(s.min)}, max ${ms(s.max)}, n=${s.n})  ${(s.p50 / d.p50).toFixed(2)}x  wrote ${last.written.length} pages`);
  const worst = Math.max(first.ms, s.p50) / d.p50;
  console.log(`  goal: upkeep at most ${GOAL}x a plain drift of the same wiki (first run and steady state): ${worst.toFixed(2)}x ${verdict(worst <= GOAL)}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
