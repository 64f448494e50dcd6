// Runs an extensionTestsPath suite inside the real extension host of the VS Code server, the web
// equivalent of `code --extensionDevelopmentPath=… --extensionTestsPath=…`.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const util = require('node:util');
const { execFileSync } = require('node:child_process');
const { startServer } = require('./server.cjs');
const { launchBrowser, screenshot } = require('./browser.cjs');
const { CACHE } = require('./runtime.cjs');

// The workbench's own chatter (connection setup, the offline extension gallery), hidden unless DEBUG is set.
const WORKBENCH_NOISE = /^(Resolving connection token|Resolved connection token|Creating a socket|Updating additional builtin|ChatSessionStore:|\[Service Worker\])|ENOTFOUND open-vsx\.org/;

/** Copies src (if it exists) into dest (default: a fresh temp dir), git-inits and commits it. */
function prepareWorkspace(src, dest = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-ws-'))) {
  fs.mkdirSync(dest, { recursive: true });
  if (src && fs.existsSync(src)) fs.cpSync(src, dest, { recursive: true });
  if (!fs.existsSync(path.join(dest, '.git'))) {
    const git = (...args) => execFileSync('git', args, { cwd: dest, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Repo Wiki Tests');
    git('config', 'user.email', 'tests@repo-wiki.invalid');
    git('config', 'commit.gpgsign', 'false');
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', 'Initial commit');
  }
  return fs.realpathSync(dest);
}

/**
 * @param {{ folder: string, extensionDevelopmentPath: string, extensionTestsPath: string,
 *           workspaceFile?: string, env?: Record<string,string>, settings?: object, screenshotOnFail?: boolean, timeoutMs?: number }} opts
 * @returns {Promise<{ exitCode: number, passed: number, failed: number, failures: {title:string,error:string}[], timedOut: boolean }>}
 */
async function runExtensionTests({ folder, workspaceFile, extensionDevelopmentPath, extensionTestsPath, env = {}, settings,
  screenshotOnFail = true, timeoutMs = +(process.env.EXT_TEST_TIMEOUT_MS || 300000) }) {
  const t0 = Date.now();
  const resultsFile = path.join(CACHE, 'run', `results-${crypto.randomBytes(4).toString('hex')}.json`);
  fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
  let server;
  let browser;
  let exitCode = 1;
  let timedOut = false;
  try {
    server = await startServer({ folder, settings, env: { ...env, REPO_WIKI_TEST_RESULTS: resultsFile } });
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let finish;
    const finished = new Promise((resolve) => { finish = resolve; });
    // The workbench forwards the test run's console output and exit code through these hooks.
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      if (!process.env.DEBUG && WORKBENCH_NOISE.test(line)) return;
      (type === 'error' || type === 'warn' ? process.stderr : process.stdout).write(line + '\n');
    });
    await page.exposeFunction('codeAutomationExit', (code) => finish(code));
    page.on('pageerror', (e) => console.error('[pageerror]', e.message));
    if (process.env.DEBUG) page.on('console', (m) => console.log('[browser]', m.type(), m.text().slice(0, 300)));

    let url = server.workbenchUrl(folder, [
      ['extensionDevelopmentPath', server.remoteUri(extensionDevelopmentPath)],
      ['extensionTestsPath', server.remoteUri(extensionTestsPath)],
    ]);
    // A multi-root window opens a .code-workspace file instead of a folder.
    if (workspaceFile) url = url.replace(/\?folder=[^&]*/, `?workspace=${encodeURIComponent(path.resolve(workspaceFile))}`);
    await page.goto(url);
    let timer;
    const code = await Promise.race([finished, new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); })]);
    clearTimeout(timer);
    timedOut = code === 'timeout';
    exitCode = timedOut ? 1 : Number(code);
    if (timedOut) console.error(`[ext-tests] no result after ${timeoutMs / 1000}s (EXT_TEST_TIMEOUT_MS)`);
    if (timedOut || (exitCode !== 0 && screenshotOnFail)) {
      const shot = await screenshot(page, timedOut ? 'ext-tests-timeout' : 'ext-tests-failed').catch(() => null);
      if (shot) console.error(`[ext-tests] screenshot: ${shot}`);
    }
  } finally {
    await browser?.close().catch(() => {});
    if (server) {
      if (exitCode !== 0) console.error(`[ext-tests] server log kept: ${server.logFile}`);
      await server.stop({ keep: exitCode !== 0 });
    }
  }
  let summary = { passed: 0, failed: 0, failures: [] };
  if (fs.existsSync(resultsFile)) {
    summary = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
    fs.rmSync(resultsFile, { force: true });
  }
  console.log(`[ext-tests] exit code ${exitCode}, ${summary.passed} passed, ${summary.failed} failed, ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  return { exitCode, passed: summary.passed, failed: summary.failed, failures: summary.failures, timedOut };
}

module.exports = { runExtensionTests, prepareWorkspace };
