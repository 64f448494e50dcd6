// Transpiles src/ and test/ into out/, file by file, as CommonJS for mocha and the extension host.
// No type checking here (about a second instead of tsc's fifteen); `npm test` type-checks in its own step.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const SKIP = new Set(['node_modules', 'fixtures']);

function typeScriptFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : typeScriptFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

async function compileTests(root) {
  const esbuild = require('esbuild');
  const entryPoints = ['src', 'test'].flatMap((dir) => typeScriptFiles(path.join(root, dir)));
  await esbuild.build({
    entryPoints,
    outdir: path.join(root, 'out'),
    outbase: root,
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
    // As tsc's CommonJS output does: `import()` becomes a require, so extensionless paths resolve.
    supported: { 'dynamic-import': false },
  });
  return entryPoints.length;
}

module.exports = { compileTests };
