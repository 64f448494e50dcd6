// `npm start`: builds and packages Repo Wiki, installs it into a real VS Code (web) and opens a copy
// of demo/ in it. Usage: node scripts/run-demo.mjs [--workspace DIR] [--port N] [--check]
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const harness = (m) => require(path.join(ROOT, 'test', 'harness', m));
const VSIX = path.join(ROOT, 'dist-vsix', 'repo-wiki.vsix');
process.chdir(ROOT);
let server;
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    stopping = true;
    if (server) console.log('\nstopping the VS Code server');
    await server?.stop();
    process.exit(0);
  });
}

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const check = process.argv.includes('--check');
const T0 = Date.now();
const say = (msg) => console.log(`[demo ${((Date.now() - T0) / 1000).toFixed(1)}s] ${msg}`);
function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

try {
  const { ensureNodeModules, ensureRuntime, CACHE } = harness('runtime.cjs');
  ensureNodeModules();
  say('building and packaging the extension');
  run(process.execPath, ['esbuild.mjs', '--production']);
  run('npm', ['run', 'package']);
  if (!fs.existsSync(VSIX)) throw new Error(`npm run package did not produce ${VSIX}`);
  await ensureRuntime({ log: say });

  const { prepareWorkspace } = harness('ext-tests.cjs');
  let workspace;
  if (arg('--workspace')) {
    workspace = prepareWorkspace(null, path.resolve(arg('--workspace'))); // used in place; git-initialised if needed
  } else {
    const demo = path.join(ROOT, 'demo');
    if (!fs.existsSync(demo)) throw new Error('demo/ is missing: nothing to open (or pass --workspace DIR)');
    workspace = prepareWorkspace(demo, path.join(CACHE, `demo-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`));
  }
  say(`workspace: ${workspace}`);

  const { startServer, installVsix, isPortFree } = harness('server.cjs');
  const extensionsDir = path.join(CACHE, 'demo-extensions');
  await installVsix(VSIX, extensionsDir);
  const wanted = Number(arg('--port') ?? 8765);
  const port = (await isPortFree(wanted)) ? wanted : undefined; // undefined: startServer picks a free one
  if (!port) say(`port ${wanted} is busy; using a free one`);
  server = await startServer({ folder: workspace, extensionsDir, port, settings: { 'git.enabled': true, 'repoWiki.upkeep.interval': 'daily' } });
  const url = server.workbenchUrl(workspace);

  if (check) {
    const res = await fetch(url);
    const ok = res.status === 200 && (await res.text()).includes('workbench');
    console.log(`${ok ? 'OK' : 'FAILED'}: ${url} answered ${res.status}`);
    await server.stop();
    if (!arg('--workspace')) fs.rmSync(workspace, { recursive: true, force: true });
    process.exit(ok ? 0 : 1);
  }

  console.log(`\nRepo Wiki is running: open ${url}`);
  console.log('No API key is needed. Press Ctrl+C to stop the server.\n');
  const code = await server.exited;
  if (stopping) await new Promise(() => {}); // the signal handler finishes and exits
  console.error(`the VS Code server exited (${code}); log: ${server.logFile}`);
  process.exit(1);
} catch (err) {
  console.error(`run-demo: ${err.message}`);
  process.exit(1);
}
