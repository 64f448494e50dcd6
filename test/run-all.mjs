// `npm test`: deps → compile → unit → typecheck → build → system → bench:smoke → package → VS Code runtime → integration → e2e.
// Usage: node test/run-all.mjs [--only unit|system|integration|e2e] [--suite NAME]. The last line is always "N passed, N failed".
// `--only unit` is the fast, pure stage: it transpiles and runs test/unit/ and installs nothing but node_modules.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORTER = path.join(ROOT, 'test', 'harness', 'count-reporter.cjs');
const VSIX = path.join(ROOT, 'dist-vsix', 'repo-wiki.vsix');
process.chdir(ROOT);
// Default SIGINT handling skips 'exit' listeners; those stop the VS Code servers we started.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
const suiteAt = process.argv.indexOf('--suite'); // one integration suite, e.g. --only integration --suite drift
const onlySuite = suiteAt >= 0 ? process.argv[suiteAt + 1] : undefined;
if (only !== undefined && !['unit', 'system', 'integration', 'e2e'].includes(only)) {
  console.error(`--only takes unit, system, integration or e2e (got ${only})`);
  process.exit(2);
}
const want = (stage) => !only || only === stage;

const T0 = Date.now();
const elapsed = () => `${((Date.now() - T0) / 1000).toFixed(1)}s`;
const stages = []; // { name, passed, failed, note }

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** Runs one step; a throw marks it crashed (one failure under its name). Returns whether it succeeded. */
async function step(name, fn, { counted = false } = {}) {
  console.log(`\n== ${name} (at ${elapsed()})`);
  try {
    const r = await fn();
    if (counted) stages.push({ name, passed: r.passed, failed: r.failed });
    return true;
  } catch (err) {
    console.error(`[${name}] ${err.stack || err}`);
    stages.push({ name, passed: 0, failed: 1, note: `crashed: ${String(err.message || err).split('\n')[0]}` });
    return false;
  }
}

function skip(name, reason) {
  console.log(`\n== ${name} skipped (${reason})`);
  stages.push({ name, passed: 0, failed: 0, note: `skipped: ${reason}` });
}

function mocha(name, spec, { timeout, env = {} } = {}) {
  const resultsFile = path.join(os.tmpdir(), `repo-wiki-${name}-${process.pid}.json`);
  fs.rmSync(resultsFile, { force: true });
  const args = [require.resolve('mocha/bin/mocha.js'), '--reporter', REPORTER, spec];
  if (timeout) args.push('--timeout', String(timeout));
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, ...env, REPO_WIKI_TEST_RESULTS: resultsFile } });
  if (!fs.existsSync(resultsFile)) throw new Error(`mocha exited with ${r.status ?? r.signal} before reporting (no ${spec}, or a load error)`);
  const summary = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  fs.rmSync(resultsFile, { force: true });
  if (r.status !== 0 && summary.failed === 0) throw new Error(`mocha exited with ${r.status ?? r.signal}`);
  return summary;
}

const harness = (m) => require(path.join(ROOT, 'test', 'harness', m));
/** Debian packages whose real sources test/unit/adapters/treesitter/treeSitter.test.ts checks drift on. */
const LANGUAGE_SOURCES = ['golang-github-google-uuid-dev', 'librust-either-dev', 'bsh-src', 'libruby3.1', 'php-psr-log', 'libpng-dev', 'googletest'];
/** More real Go, Rust and PHP (pure source packages), so bench/drift/languages.mjs has about 1,000 citations in each. */
const LANGUAGE_CORPUS = ['golang-github-spf13-pflag-dev', 'golang-gopkg-yaml.v3-dev', 'golang-github-gorilla-mux-dev', 'librust-syn-dev', 'librust-serde-dev', 'php-phpseclib3', 'php-symfony-process', 'php-composer-semver', 'php-nikic-fast-route'];

/** Source packages for a language no binary package ships the code of: C# (unpacked, see ensureDebianSources). */
const DEBIAN_SOURCES = ['newtonsoft-json'];

/** Integration suites: each runs test/integration/<name>/ in its own window. */
function integrationSuites(prepareWorkspace) {
  const fixture = path.join(ROOT, 'test', 'fixtures', 'workspace');
  return [
    { name: 'workspace', prepare: () => { const folder = prepareWorkspace(fixture); return { folder, dirs: [folder] }; } },
    { name: 'chat', prepare: () => { const folder = prepareWorkspace(path.join(ROOT, 'demo')); return { folder, dirs: [folder] }; } },
    { name: 'drift', prepare: () => { const folder = prepareWorkspace(path.join(ROOT, 'demo')); return { folder, dirs: [folder] }; } },
    { name: 'librarian', prepare: () => { const folder = prepareWorkspace(path.join(ROOT, 'demo')); return { folder, dirs: [folder] }; } },
    { name: 'agents', prepare: () => { const folder = prepareWorkspace(path.join(ROOT, 'demo')); return { folder, dirs: [folder] }; } },
    { name: 'authoring', prepare: () => { const folder = prepareWorkspace(path.join(ROOT, 'demo')); return { folder, dirs: [folder] }; } },
    {
      // Upkeep on its schedule, soon after startup.
      name: 'upkeep',
      prepare: () => {
        const folder = prepareWorkspace(path.join(ROOT, 'demo'));
        // Before the window opens, a cited method goes (uncommitted): the first scheduled run finds it missing.
        const todos = path.join(folder, 'src', 'todos.ts');
        const method = '  complete(id: number, done = true): Todo {\n    const todo = this.find(id);\n    todo.done = done;\n    return todo;\n  }\n';
        const text = fs.readFileSync(todos, 'utf8');
        if (!text.includes(method)) throw new Error('demo/src/todos.ts changed: update the upkeep suite');
        fs.writeFileSync(todos, text.replace(method, ''));
        // A model is set up (the key; the test points it at the mock Messages API), so the run offers updates.
        return { folder, dirs: [folder], settings: { 'repoWiki.upkeep.interval': 'daily' }, env: { REPO_WIKI_UPKEEP_DELAY_MS: '3000', ANTHROPIC_API_KEY: 'sk-ant-upkeep-test-key' } };
      },
    },
    {
      name: 'restricted',
      prepare: () => {
        const folder = prepareWorkspace(path.join(ROOT, 'demo'));
        return { folder, dirs: [folder], settings: { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' } };
      },
    },
    // One hostile repository (test/harness/hostileRepo.cjs), in a trusted and in a Restricted Mode window;
    // both run test/integration/hostile/. The outside folder is cleaned up with the workspace.
    ...['hostile', 'hostile-restricted'].map((name) => ({
      name,
      prepare: () => {
        const folder = prepareWorkspace(path.join(ROOT, 'demo')); // committed clean; the hostile files stay untracked
        const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-outside-'));
        const repo = harness('hostileRepo.cjs').makeHostileRepo(folder, { outside });
        const settings = name === 'hostile-restricted' ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' } : undefined;
        // A hang must fail this suite in minutes, not after the default 5.
        return { folder, dirs: [folder, outside], settings, timeoutMs: 240000, env: { REPO_WIKI_TEST_FOLDER: 'hostile', REPO_WIKI_HOSTILE: JSON.stringify(repo) } };
      },
    })),
    {
      name: 'multi-root',
      prepare: () => {
        const withWiki = prepareWorkspace(path.join(ROOT, 'demo'));
        const without = prepareWorkspace(fixture);
        const workspaceFile = path.join(without, 'multi-root.code-workspace');
        fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: withWiki }, { path: without }] }, null, 2));
        return { folder: withWiki, workspaceFile, dirs: [withWiki, without] };
      },
    },
  ];
}

await step('deps', () => {
  harness('runtime.cjs').ensureNodeModules();
  // The tools' grep_code and find_symbol tests spawn ripgrep; the drift tests of other languages
  // read real code from Debian's packages (Go, Rust, Java, C#, Ruby, PHP, C, C++; Python's is there);
  // test/system/ci runs .pre-commit-hooks.yaml through the pre-commit framework.
  if (want('system')) {
    harness('runtime.cjs').ensureAptPackages(console.log, ['ripgrep', 'pre-commit', ...LANGUAGE_SOURCES, ...LANGUAGE_CORPUS]);
    harness('runtime.cjs').ensureDebianSources(console.log, DEBIAN_SOURCES);
  }
});

// Tests run from out/, transpiled file by file (types are checked by the typecheck step, not here).
const compiled = await step('compile', async () => {
  fs.rmSync('out', { recursive: true, force: true }); // no stale compiled tests from deleted sources
  await harness('compile.cjs').compileTests(ROOT);
});

if (want('unit')) {
  if (compiled) await step('unit', () => mocha('unit', 'out/test/unit/**/*.test.js'), { counted: true });
  else skip('unit', 'compile failed');
}

// The rest needs the bundles in dist/ and a type-checked tree.
const needsBuild = want('system') || want('integration') || want('e2e');
if (needsBuild) {
  await step('typecheck', () => {
    const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], { stdio: 'inherit' });
    return { passed: r.status === 0 ? 1 : 0, failed: r.status === 0 ? 0 : 1 };
  }, { counted: true });
}
const built = needsBuild && compiled && await step('build', () => {
  if (!fs.existsSync('esbuild.mjs')) throw new Error('esbuild.mjs is missing at the repo root; it is needed to build');
  run(process.execPath, ['esbuild.mjs']);
});

// This repository's own wiki (.wiki/), checked with the CLI just built: a lint error or a citation in error fails the run.
if (want('system') && fs.existsSync(path.join(ROOT, '.wiki', 'index.json'))) {
  for (const check of ['lint', 'drift']) {
    if (!built) skip(`wiki:${check}`, 'build failed');
    else await step(`wiki:${check}`, () => {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), check, '--workspace', ROOT], { stdio: 'inherit' });
      if (r.status !== 0) console.error(`[wiki:${check}] repo-wiki ${check} exited with ${r.status ?? r.signal}: fix the page (or the code) it names`);
      return { passed: r.status === 0 ? 1 : 0, failed: r.status === 0 ? 0 : 1 };
    }, { counted: true });
  }
}

if (want('system')) {
  if (built) await step('system', () => mocha('system', 'out/test/system/**/*.test.js'), { counted: true });
  else skip('system', 'build failed');
}

// Every benchmark on tiny inputs (bench/run-all.mjs --smoke): a bench that throws fails the run; its figures are not judged.
if (want('system')) {
  if (!built) skip('bench:smoke', 'build failed');
  else await step('bench:smoke', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'run-all.mjs'), '--smoke'], { stdio: 'inherit' });
    if (r.status !== 0) console.error(`[bench:smoke] bench/run-all.mjs --smoke exited with ${r.status ?? r.signal}: run the bench it names with REPO_WIKI_BENCH_SMOKE=1`);
    return { passed: r.status === 0 ? 1 : 0, failed: r.status === 0 ? 0 : 1 };
  }, { counted: true });
}

let packaged = false;
if (want('e2e')) {
  packaged = built && await step('package', () => {
    fs.rmSync(VSIX, { force: true });
    run('npm', ['run', 'package']);
    if (!fs.existsSync(VSIX)) throw new Error(`npm run package did not produce ${path.relative(ROOT, VSIX)}`);
  });
}

let runtimeReady = false;
if (want('integration') || want('e2e')) {
  runtimeReady = await step('runtime', () => harness('runtime.cjs').ensureRuntime());
}

if (want('integration')) {
  if (!built || !runtimeReady) skip('integration', !built ? 'build failed' : 'no VS Code runtime');
  else {
    const { prepareWorkspace, runExtensionTests } = harness('ext-tests.cjs');
    const testsPath = path.join(ROOT, 'out', 'test', 'integration');
    for (const suite of integrationSuites(prepareWorkspace).filter((s) => !onlySuite || s.name === onlySuite)) {
      await step(`integration:${suite.name}`, async () => {
        if (!fs.existsSync(path.join(testsPath, 'index.js'))) throw new Error(`${testsPath}/index.js was not built`);
        const { dirs, ...options } = suite.prepare();
        const r = await runExtensionTests({
          ...options, extensionDevelopmentPath: ROOT, extensionTestsPath: testsPath,
          env: { REPO_WIKI_TEST_SUITE: suite.name, REPO_WIKI_TEST_WORKSPACE: options.folder, ...options.env },
        });
        if (r.exitCode === 0) for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
        else console.error(`[integration:${suite.name}] workspace kept: ${dirs.join(', ')}`);
        if (r.exitCode !== 0 && r.failed === 0) {
          throw new Error(r.timedOut ? 'timed out (EXT_TEST_TIMEOUT_MS)' : `extension tests exited with ${r.exitCode} and no failed test`);
        }
        return r;
      }, { counted: true });
    }
  }
}

if (want('e2e')) {
  if (!packaged || !runtimeReady) skip('e2e', !packaged ? 'no vsix' : 'no VS Code runtime');
  else {
    await step('e2e', () => mocha('e2e', 'out/test/e2e/**/*.test.js', { timeout: 180000, env: { REPO_WIKI_VSIX: VSIX } }), { counted: true });
  }
}

console.log(`\n== summary (total ${elapsed()})`);
let passed = 0;
let failed = 0;
for (const s of stages) {
  passed += s.passed;
  failed += s.failed;
  console.log(`  ${s.name.padEnd(24)} ${s.passed} passed, ${s.failed} failed${s.note ? `  (${s.note})` : ''}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
