// The integration suite in desktop VS Code through @vscode/test-electron, for machines that can
// download VS Code (not these offline ones). On Linux without a display: `xvfb-run -a npm run test:electron`.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT, CACHE } = require('./runtime.cjs');
const { DEFAULT_SETTINGS } = require('./server.cjs');
const { prepareWorkspace } = require('./ext-tests.cjs');

function build() {
  const run = (...args) => execFileSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  run('esbuild.mjs');
  run(require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json');
}

/**
 * version: a VS Code version or 'stable'. mocha 12 needs a Node >= 20.19 inside VS Code
 * (require of ES modules), so older builds may not load it; hence 'stable' by default.
 */
async function runElectronTests({ version = process.env.VSCODE_TEST_VERSION || 'stable', skipBuild = false } = {}) {
  if (!skipBuild) build();
  const { runTests } = require('@vscode/test-electron');
  const workspace = prepareWorkspace(path.join(ROOT, 'test', 'fixtures', 'workspace'));
  // Short path under /tmp: VS Code's IPC socket lives in the user data dir and has a length limit.
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-udd-'));
  fs.mkdirSync(path.join(userDataDir, 'User'));
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(DEFAULT_SETTINGS, null, 2));
  const resultsFile = path.join(userDataDir, 'results.json');
  let exitCode = 0;
  try {
    await runTests({
      version,
      cachePath: CACHE,
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: path.join(ROOT, 'out', 'test', 'integration', 'index'),
      // Conversations in the run's own folder, never in the user's data folder.
      extensionTestsEnv: { REPO_WIKI_TEST_WORKSPACE: workspace, REPO_WIKI_TEST_RESULTS: resultsFile, REPO_WIKI_DATA_DIR: path.join(userDataDir, 'repo-wiki-data') },
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--disable-gpu',
        '--skip-welcome', '--skip-release-notes', '--user-data-dir', userDataDir],
    });
  } catch (err) {
    exitCode = 1; // runTests rejects when VS Code exits non-zero, i.e. when a test failed
    console.error(err.message);
  }
  const summary = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, 'utf8')) : { passed: 0, failed: 0 };
  fs.rmSync(userDataDir, { recursive: true, force: true });
  if (exitCode === 0) fs.rmSync(workspace, { recursive: true, force: true });
  return { exitCode, passed: summary.passed, failed: summary.failed };
}

module.exports = { runElectronTests };

if (require.main === module) {
  runElectronTests({ skipBuild: process.argv.includes('--no-build') }).then(
    (r) => {
      console.log(`${r.passed} passed, ${r.failed} failed`);
      process.exit(r.exitCode === 0 && r.failed === 0 ? 0 : 1);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
