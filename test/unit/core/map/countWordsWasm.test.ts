import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/** The repository root, from out/test/unit/core/map/ where the compiled test runs. */
const ROOT = path.resolve(__dirname, '../../../../..');

describe('countWordsWasm.ts, the word counter\'s WebAssembly', () => {
  it('is countWords.wat as assembled now (npm run build:wasm)', function () {
    this.timeout(20000);
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'wasm.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 15000 });
    assert.equal(r.status, 0, `node scripts/wasm.mjs --check exited with ${r.status ?? r.signal}:\n${r.stdout}${r.stderr}`);
  });
});
