// The compiled code under test. index.mjs snapshots out/src and dist/driftWorker.js into its temp
// dir at start and hands the snapshot to every child (DRIFT_BENCH_CODE), so all methods of one run
// measure the same build even if out/ or dist/ is rebuilt meanwhile.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Directory holding out/src and dist/driftWorker.js (the repository unless a snapshot is set). */
export const codeDir = () => process.env.DRIFT_BENCH_CODE ?? repo;

/** A compiled module from out/src, e.g. `out('core/drift/driftEngine')`. */
export const out = (rel) => require(join(codeDir(), 'out', 'src', `${rel}.js`));
