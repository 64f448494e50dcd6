// Installs (once) and locates the real VS Code used by the tests: the VS Code server inside the
// npm package code-server (VS Code 1.100.3 on the system Node 20), plus Debian's chromium.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync, execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(ROOT, '.vscode-test');
const CS_VERSION = '4.100.3';
const RG_CACHE = 'vscode-ripgrep-cache-1.15.11'; // @vscode/ripgrep version pinned by code-server 4.100.3
const RG_TARBALL = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';
const CS_DIR = path.join(CACHE, 'cs');
const VSCODE_DIR = path.join(CS_DIR, 'node_modules', 'code-server', 'lib', 'vscode');
const MARKER = path.join(CS_DIR, `.ready-${CS_VERSION}`);
const APT_PACKAGES = ['chromium', 'libkrb5-dev', 'pkg-config', 'ripgrep'];

const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const serverMain = () => path.join(VSCODE_DIR, 'out', 'server-main.js');
const onPath = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;

/** Whether dpkg has a package installed (for packages the tests read files of). */
const dpkgInstalled = (name) => spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' }).stdout === 'install ok installed';

function missingAptPackages(packages = APT_PACKAGES) {
  const has = {
    chromium: fs.existsSync(chromiumPath()),
    'libkrb5-dev': fs.existsSync('/usr/include/gssapi/gssapi.h') && onPath('krb5-config'),
    'pkg-config': onPath('pkg-config'),
    ripgrep: onPath('rg'),
  };
  return packages.filter((p) => (p in has ? !has[p] : !dpkgInstalled(p)));
}

/** Installs the missing ones of `packages` (default: all the tests need); root only, otherwise throws the command to run. */
function ensureAptPackages(log = console.log, packages = APT_PACKAGES) {
  const missing = missingAptPackages(packages);
  if (!missing.length) return;
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.getuid && process.getuid() !== 0) {
    throw new Error(`Missing system packages (${missing.join(', ')}). Run as root:\n  ${cmd}`);
  }
  log(`[runtime] apt: installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-q'], ['install', '-y', '-q', '--no-install-recommends', ...missing]]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`apt-get ${args[0]} failed (exit ${r.status}); tried: ${cmd}`);
  }
}

/** Where a Debian source package's upstream code is unpacked (see ensureDebianSources). */
const debianSourceDir = (name) => path.join(CACHE, 'debian-src', name);

/**
 * Unpacks the upstream code of Debian source packages into debianSourceDir(name), once: real code
 * in a language whose sources no binary package ships (C#). apt reads the machine's own package
 * sources as deb-src, with its lists in a folder of its own, so the system's lists are untouched;
 * the tarball is checked against the hash apt lists for it.
 */
function ensureDebianSources(log, packages) {
  const missing = packages.filter((name) => !fs.existsSync(path.join(debianSourceDir(name), '.unpacked')));
  if (!missing.length) return;
  const apt = path.join(CACHE, 'apt-src');
  const parts = path.join(apt, 'sources');
  fs.rmSync(apt, { recursive: true, force: true });
  for (const dir of [parts, path.join(apt, 'lists', 'partial'), path.join(apt, 'cache', 'archives', 'partial')]) fs.mkdirSync(dir, { recursive: true });
  const etc = '/etc/apt/sources.list.d';
  for (const file of fs.existsSync(etc) ? fs.readdirSync(etc).filter((f) => f.endsWith('.sources')) : []) {
    fs.writeFileSync(path.join(parts, file), fs.readFileSync(path.join(etc, file), 'utf8').replace(/^Types:.*$/gm, 'Types: deb-src'));
  }
  const list = fs.existsSync('/etc/apt/sources.list') ? fs.readFileSync('/etc/apt/sources.list', 'utf8').replace(/^deb\s/gm, 'deb-src ') : '';
  fs.writeFileSync(path.join(apt, 'sources.list'), list);
  const options = ['-o', `Dir::Etc::SourceList=${path.join(apt, 'sources.list')}`, '-o', `Dir::Etc::SourceParts=${parts}`, '-o', `Dir::State::Lists=${path.join(apt, 'lists')}`, '-o', `Dir::Cache=${path.join(apt, 'cache')}`];
  const aptGet = (...args) => {
    const r = spawnSync('apt-get', [...options, ...args], { encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-3).join(' ')}`);
    return r.stdout;
  };
  log(`[runtime] apt: fetching the source of ${missing.join(' ')}`);
  aptGet('update', '-q');
  for (const name of missing) {
    // `'URI' file size SHA256:hash`, one line per file of the source package; the upstream tarball is the code.
    const line = aptGet('source', '--print-uris', name).split('\n').find((l) => /\.orig\.tar\.(gz|xz|bz2)' /.test(l));
    if (!line) throw new Error(`apt lists no upstream tarball for the source package ${name}`);
    const [, uri, file, hash] = /^'([^']+)' (\S+) \d+ (\S+)/.exec(line);
    const tarball = path.join(apt, file);
    const r = spawnSync('/usr/lib/apt/apt-helper', ['download-file', uri, tarball, hash], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`downloading ${file} failed (exit ${r.status}): ${r.stderr.trim()}`);
    const dir = debianSourceDir(name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xf', tarball, '-C', dir, '--strip-components=1']);
    fs.writeFileSync(path.join(dir, '.unpacked'), `${file}\n`);
  }
  fs.rmSync(apt, { recursive: true, force: true });
}

function installCodeServer(log) {
  fs.rmSync(CS_DIR, { recursive: true, force: true }); // a half-finished install is not worth repairing
  const tmp = path.join(CACHE, 'tmp-install');
  fs.rmSync(tmp, { recursive: true, force: true });
  // @vscode/ripgrep's postinstall downloads rg from GitHub (unreachable); seed its cache with Debian's rg.
  const rgDir = path.join(tmp, 'rg');
  fs.mkdirSync(path.join(tmp, RG_CACHE), { recursive: true });
  fs.mkdirSync(rgDir);
  fs.copyFileSync(execFileSync('sh', ['-c', 'command -v rg']).toString().trim(), path.join(rgDir, 'rg'));
  fs.chmodSync(path.join(rgDir, 'rg'), 0o755);
  execFileSync('tar', ['czf', path.join(tmp, RG_CACHE, RG_TARBALL), '-C', rgDir, 'rg']);

  // npm 11 only warns about install scripts not covered by allowScripts (it skips denied ones);
  // approving them here keeps code-server's postinstall (which builds VS Code's native modules) running.
  fs.mkdirSync(CS_DIR, { recursive: true });
  fs.writeFileSync(path.join(CS_DIR, 'package.json'), JSON.stringify({
    name: 'repo-wiki-vscode-runtime', private: true,
    dependencies: { 'code-server': CS_VERSION },
    allowScripts: { 'code-server': true, argon2: true },
  }, null, 2));
  const logFile = path.join(CACHE, 'cs-install.log');
  log(`[runtime] installing code-server@${CS_VERSION} (VS Code 1.100.3) into ${CS_DIR}; log: ${logFile}`);
  const out = fs.openSync(logFile, 'w');
  const r = spawnSync('npm', ['install', '--unsafe-perm', '--no-audit', '--no-fund'], {
    cwd: CS_DIR, stdio: ['ignore', out, out],
    env: {
      ...process.env,
      TMPDIR: tmp,
      npm_config_yes: 'true', // node-pty's postinstall runs `npx node-gyp`; ~/.npmrc may say yes=false
      npm_config_ignore_scripts: 'false',
      npm_config_strict_allow_scripts: 'false',
    },
  });
  fs.closeSync(out);
  if (r.status !== 0) {
    const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
    throw new Error(`npm install code-server@${CS_VERSION} failed (exit ${r.status}):\n${tail}`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

// The postinstall's work, checked directly: if npm skipped it these are missing or fail to load.
function verifyInstall() {
  const need = [
    serverMain(),
    path.join(VSCODE_DIR, 'node_modules.asar'),
    path.join(VSCODE_DIR, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg'),
    path.join(VSCODE_DIR, 'extensions', 'node_modules'),
  ];
  const absent = need.filter((p) => !fs.existsSync(p));
  if (absent.length) throw new Error(`code-server install is incomplete (postinstall skipped?): missing ${absent.join(', ')}`);
  const natives = ['node-pty', '@vscode/spdlog', 'kerberos', 'native-watchdog', '@parcel/watcher'];
  const r = spawnSync(process.execPath, ['-e', natives.map((m) => `require(${JSON.stringify(m)})`).join(';')],
    { cwd: VSCODE_DIR, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`VS Code native modules do not load:\n${r.stderr}`);
}

async function verifyServerStarts() {
  const { startServer } = require('./server.cjs');
  const folder = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'repo-wiki-probe-'));
  const server = await startServer({ folder, serverMain: serverMain() });
  try {
    const res = await fetch(server.workbenchUrl(folder));
    const html = await res.text();
    if (res.status !== 200 || !html.includes('workbench')) throw new Error(`workbench answered ${res.status}`);
  } finally {
    await server.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** `npm ci` when node_modules is missing or older than package-lock.json. Returns true if it ran. */
function ensureNodeModules({ log = console.log } = {}) {
  const lock = path.join(ROOT, 'package-lock.json');
  const installed = path.join(ROOT, 'node_modules', '.package-lock.json'); // npm rewrites it on every install
  const mtime = (f) => fs.statSync(f).mtimeMs;
  const stale = !fs.existsSync(installed) || (fs.existsSync(lock) && mtime(installed) < mtime(lock));
  if (!stale) return false;
  log('[deps] node_modules missing or older than package-lock.json: npm ci');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ci failed (exit ${r.status})`);
  return true;
}

// Cross-process lock so parallel runs on a cold cache do not install into the same dir at once.
async function withInstallLock(fn) {
  const lock = path.join(CACHE, 'install.lock');
  fs.mkdirSync(CACHE, { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(lock, 'utf8'));
      try {
        process.kill(holder, 0);
      } catch {
        fs.rmSync(lock, { force: true }); // its process died mid-install
        continue;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

let pending;
/** Idempotent; a second call (or a later process) finds the marker and returns at once. */
function ensureRuntime({ log = console.log } = {}) {
  pending ??= (async () => {
    ensureAptPackages(log);
    if (!fs.existsSync(MARKER)) {
      await withInstallLock(async () => {
        if (fs.existsSync(MARKER)) return; // another process finished it while we waited
        const t0 = Date.now();
        installCodeServer(log);
        verifyInstall();
        await verifyServerStarts();
        fs.writeFileSync(MARKER, `${new Date().toISOString()}\n`);
        log(`[runtime] VS Code server ready in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
      });
    }
    return { serverMain: serverMain(), chromiumPath: chromiumPath() };
  })();
  pending.catch(() => { pending = undefined; }); // let a later call retry
  return pending;
}

module.exports = { ensureRuntime, ensureNodeModules, ensureAptPackages, ensureDebianSources, debianSourceDir, serverMain, chromiumPath, ROOT, CACHE, VSCODE_DIR, CS_VERSION };
