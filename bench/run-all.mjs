// npm run bench [-- --smoke]: prepares what the benchmarks load, then runs each one in its own process.
// Figures, not pass/fail tests: a missed goal fails nothing, a bench that throws fails the run.
// Prepared here, so a fresh clone needs only `npm ci`: out/ (the compiled core most benches load),
// dist/ and the .vsix (npm run package: the production bundles the activation, size, drift and
// CLI benches measure). --smoke: every bench on tiny inputs with few runs (bench/lib.mjs:smoke),
// to check that each one still runs to its end; no goal is judged, and one that prints a verdict
// of its own in a smoke run fails it.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const smoke = process.argv.includes('--smoke');
const BENCHES = [
  'activation', 'size', 'index', 'fileAccess/index', 'drift/index', 'drift/changedSince', 'drift/languages',
  'tools/index', 'mcp/index', 'chat/retrieval', 'chat/toolLoop', 'retrieval/index', 'chat/store', 'chat/render',
  'ingest/index', 'authoring/index', 'authoring/graph', 'upkeep/index', 'providers/index', 'generate/map', 'generate/update',
];

const started = performance.now();
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function prepare() {
  console.log('preparing: out/ (compileTests), dist/ and dist-vsix/repo-wiki.vsix (npm run package)');
  const compile = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(join(ROOT, 'test/harness/compile.cjs'))}).compileTests(${JSON.stringify(ROOT)}).catch((e) => { console.error(e); process.exit(1); })`], { stdio: 'inherit' });
  if (compile.status !== 0) throw new Error('compiling src/ and test/ into out/ failed (see above)');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packaged = spawnSync(npm, ['run', 'package', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' });
  if (packaged.status !== 0) throw new Error('npm run package failed (see above)');
}

/** Runs one bench, its output passed through; resolves to what went wrong, or undefined. */
function runBench(bench) {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--expose-gc', join(ROOT, 'bench', `${bench}.mjs`)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: smoke ? { ...process.env, REPO_WIKI_BENCH_SMOKE: '1' } : process.env,
    });
    let judged = false;
    const pass = (target) => (chunk) => {
      if (smoke && chunk.includes('GOAL MISSED')) judged = true;
      target.write(chunk);
    };
    child.stdout.on('data', pass(process.stdout));
    child.stderr.on('data', pass(process.stderr));
    child.on('error', (error) => done(error.message));
    child.on('close', (code, signal) => {
      if (code !== 0) done(`exited with ${code ?? signal}`);
      else if (judged) done('printed GOAL MISSED in a smoke run: judge goals with bench/lib.mjs:verdict, which a smoke run leaves unjudged');
      else done(undefined);
    });
  });
}

prepare();
console.log(`prepared in ${seconds(started)}${smoke ? '; smoke run: tiny inputs, goals not judged' : ''}`);
const failed = [];
for (const bench of BENCHES) {
  const at = performance.now();
  console.log('');
  const problem = await runBench(bench);
  console.log(`-- bench/${bench}.mjs ${problem ? `FAILED: ${problem}` : 'done'} in ${seconds(at)}`);
  if (problem) failed.push(`bench/${bench}.mjs: ${problem}`);
}
console.log('');
console.log(`${BENCHES.length - failed.length} of ${BENCHES.length} benchmarks ran to their end in ${seconds(started)}${smoke ? ' (smoke run)' : ''}`);
for (const line of failed) console.log(`  ${line}`);
process.exit(failed.length ? 1 : 0);
