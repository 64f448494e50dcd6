// Activation cost: require() of the production bundle and activate(), each in a fresh Node process,
// against a bare require() of an empty module in the same run. `vscode` is a recording stub.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ms, sized, stats, verdict } from './lib.mjs';

const RUNS = sized(15, 2);
const bundle = resolve('dist/extension.js');
const dir = mkdtempSync(join(tmpdir(), 'repo-wiki-activation-'));
const empty = join(dir, 'empty.js');
writeFileSync(empty, 'module.exports = {};\n');

// One measurement per process: a module is only required cold once.
const probe = join(dir, 'probe.cjs');
writeFileSync(probe, `
const Module = require('module');
const stub = () => new Proxy(function () {}, {
  get: (_t, key) => key === Symbol.iterator ? function* () {} : key === 'then' || typeof key === 'symbol' ? undefined : key === 'workspaceFolders' ? [] : key === 'isTrusted' ? true : stub(),
  apply: () => stub(),
  construct: () => stub(),
  set: () => true,
});
// Any name the bundle reads from vscode (a namespace, an enum, a class) is a stub, so a new API
// the extension starts to use never breaks this bench. The names answer from the prototype of a
// plain object: the bundle's ESM interop builds its namespace on that prototype.
const vscode = Object.create(new Proxy({}, {
  get: (_t, key) => (key === 'then' || key === '__esModule' || typeof key === 'symbol' ? undefined : stub()),
}));
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? vscode : load.call(this, request, ...rest); };
const [target, mode] = process.argv.slice(2);
let t = performance.now();
const loaded = require(target);
const requireMs = performance.now() - t;
let activateMs = 0;
if (mode === 'activate') {
  // Every other member of the extension context (secrets, storage URIs, extension.packageJSON) is a stub too.
  const extension = { packageJSON: require(${JSON.stringify(resolve('package.json'))}), extensionPath: __dirname };
  const context = new Proxy({ subscriptions: [], extensionPath: __dirname, extension }, {
    get: (known, key) => (key in known ? known[key] : key === 'then' || typeof key === 'symbol' ? undefined : stub()),
  });
  t = performance.now();
  loaded.activate(context);
  activateMs = performance.now() - t;
}
// Exit once written: timers and watchers the activation started would keep the process alive.
process.stdout.write(JSON.stringify({ requireMs, activateMs }), () => process.exit(0));
`);

const measure = (target, mode) => JSON.parse(execFileSync(process.execPath, [probe, target, mode], { encoding: 'utf8' }));
const baseline = [];
const requires = [];
const activates = [];
for (let i = 0; i < RUNS; i++) {
  baseline.push(measure(empty, 'require').requireMs);
  const run = measure(bundle, 'activate');
  requires.push(run.requireMs);
  activates.push(run.activateMs);
}
const b = stats(baseline);
const r = stats(requires);
const a = stats(activates);
const added = r.p50 + a.p50 - b.p50;
console.log(`activation (${RUNS} fresh processes each, medians; vscode API stubbed)`);
console.log(`  baseline require(empty module)   ${ms(b.p50)}  (p95 ${ms(b.p95)})`);
console.log(`  require(dist/extension.js)       ${ms(r.p50)}  (p95 ${ms(r.p95)})  ratio ${(r.p50 / b.p50).toFixed(1)}x baseline`);
console.log(`  activate()                       ${ms(a.p50)}  (p95 ${ms(a.p95)})`);
console.log(`  added by require + activate      ${ms(added)}  goal < 30 ms: ${verdict(added < 30)}`);
