// Starts the VS Code server (server-main.js of code-server's VS Code) for one test run.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const crypto = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');
const { ensureRuntime, CACHE } = require('./runtime.cjs');

const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  // No background page writes under a test; the upkeep suite turns it on with a short delay.
  'repoWiki.upkeep.interval': 'off',
};

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function isPortFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function newRunDir(prefix = '') {
  const dir = path.join(CACHE, 'run', prefix + crypto.randomBytes(4).toString('hex'));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// Private XDG dirs and TMPDIR so runs never share state with each other or with the user's VS Code.
function privateEnv(runDir, extra = {}) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  const dirs = { XDG_CONFIG_HOME: 'xdg/config', XDG_DATA_HOME: 'xdg/data', XDG_CACHE_HOME: 'xdg/cache', TMPDIR: 'tmp' };
  for (const [k, rel] of Object.entries(dirs)) {
    env[k] = path.join(runDir, rel);
    fs.mkdirSync(env[k], { recursive: true });
  }
  return Object.assign(env, extra);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {{ folder?: string, extensionsDir?: string, env?: Record<string,string>, settings?: object,
 *           port?: number, serverMain?: string, readyTimeoutMs?: number }} opts
 */
async function startServer({ folder, extensionsDir, env = {}, settings = {}, port, serverMain, readyTimeoutMs = 30000 } = {}) {
  serverMain ??= (await ensureRuntime()).serverMain;
  const runDir = newRunDir();
  const dataDir = path.join(runDir, 'data');
  const allSettings = { ...DEFAULT_SETTINGS, ...settings };
  fs.mkdirSync(path.join(dataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'User', 'settings.json'), JSON.stringify(allSettings, null, 2));
  extensionsDir ??= path.join(runDir, 'extensions');
  fs.mkdirSync(extensionsDir, { recursive: true });
  port ??= await freePort();

  const args = [serverMain, '--host', '127.0.0.1', '--port', String(port), '--without-connection-token',
    '--accept-server-license-terms', '--enable-smoke-test-driver', '--disable-telemetry',
    '--user-data-dir', dataDir, '--server-data-dir', dataDir, '--extensions-dir', extensionsDir];
  if (allSettings['security.workspace.trust.enabled'] !== true) args.push('--disable-workspace-trust');

  const logFile = path.join(runDir, 'server.log');
  const out = fs.openSync(logFile, 'a');
  // detached: own process group, so stop() also ends the extension host and pty host it forks.
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', out, out], env: privateEnv(runDir, env) });
  fs.closeSync(out);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const killGroup = (signal) => { try { process.kill(-child.pid, signal); } catch { /* already gone */ } };
  const onParentExit = () => { if (child.exitCode === null && child.signalCode === null) killGroup('SIGKILL'); };
  process.on('exit', onParentExit);

  const baseUrl = `http://127.0.0.1:${port}`;
  const remoteUri = (p) => `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`;
  let stopped = false;
  const server = {
    baseUrl, port, userDataDir: dataDir, extensionsDir, logFile, runDir, pid: child.pid, remoteUri, exited,
    /** payload: [[key, value], ...] or {key: value}, e.g. extensionDevelopmentPath as a remoteUri. */
    workbenchUrl(dir = folder, payload) {
      let url = `${baseUrl}/?folder=${encodeURIComponent(path.resolve(dir)).replace(/%2F/g, '/')}`;
      if (payload) {
        const pairs = Array.isArray(payload) ? payload : Object.entries(payload);
        url += `&payload=${encodeURIComponent(JSON.stringify(pairs))}`;
      }
      return url;
    },
    /** keep: leave the run dir (logs, user data) on disk; also REPO_WIKI_KEEP_RUNS=1. */
    async stop({ keep = !!process.env.REPO_WIKI_KEEP_RUNS } = {}) {
      if (!stopped) {
        stopped = true;
        if (child.exitCode === null && child.signalCode === null) {
          killGroup('SIGTERM');
          const timer = setTimeout(() => killGroup('SIGKILL'), 5000);
          await exited;
          clearTimeout(timer);
        }
        killGroup('SIGKILL'); // children that outlived the server
        process.off('exit', onParentExit);
      }
      if (!keep) fs.rmSync(runDir, { recursive: true, force: true });
    },
  };

  const deadline = Date.now() + readyTimeoutMs;
  let early = false;
  exited.then(() => { early = true; });
  for (;;) {
    if (early) break;
    try {
      const res = await fetch(baseUrl + '/', { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return server;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  await server.stop({ keep: true });
  const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
  throw new Error(`VS Code server on port ${port} did not answer (${early ? 'it exited' : 'timeout'}); log ${logFile}:\n${tail}`);
}

/** Installs a .vsix into extensionsDir, the way `code --install-extension` would. */
async function installVsix(vsixPath, extensionsDir, { serverMain } = {}) {
  serverMain ??= (await ensureRuntime()).serverMain;
  const runDir = newRunDir('install-');
  const dataDir = path.join(runDir, 'data');
  fs.mkdirSync(extensionsDir, { recursive: true });
  const r = spawnSync(process.execPath, [serverMain, '--install-extension', path.resolve(vsixPath), '--force',
    '--extensions-dir', extensionsDir, '--user-data-dir', dataDir, '--server-data-dir', dataDir],
  { encoding: 'utf8', env: privateEnv(runDir) });
  fs.rmSync(runDir, { recursive: true, force: true });
  if (r.status !== 0 || /\bfailed\b/i.test(r.stdout + r.stderr)) {
    throw new Error(`installing ${vsixPath} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  return r.stdout.trim();
}

module.exports = { startServer, installVsix, freePort, isPortFree, DEFAULT_SETTINGS };
