import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// shared ← core ← adapters ← vscode ← extension.ts; webview: shared only; mcp: core and adapters; cli: those and mcp.
const ALLOWED: Record<string, string[]> = {
  shared: ['shared'],
  core: ['shared', 'core'],
  adapters: ['shared', 'core', 'adapters'],
  vscode: ['shared', 'core', 'adapters', 'vscode'],
  webview: ['shared', 'webview'],
  cli: ['shared', 'core', 'adapters', 'mcp', 'cli'],
  mcp: ['shared', 'core', 'adapters', 'mcp'],
};
const NO_VSCODE = ['shared', 'core', 'adapters', 'webview', 'mcp', 'cli'];
const SRC = path.resolve(__dirname, '../../../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

describe('dependency rule', () => {
  for (const layer of Object.keys(ALLOWED)) {
    it(`src/${layer} imports only ${ALLOWED[layer].join(', ')}${NO_VSCODE.includes(layer) ? ', never vscode' : ''}`, () => {
      const dir = path.join(SRC, layer);
      if (!fs.existsSync(dir)) return;
      const violations: string[] = [];
      for (const file of sourceFiles(dir)) {
        for (const spec of imports(file)) {
          if (spec === 'vscode' && NO_VSCODE.includes(layer)) violations.push(`${path.relative(SRC, file)} -> vscode`);
          if (!spec.startsWith('.')) continue;
          const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep)[0];
          if (!ALLOWED[layer].includes(target)) violations.push(`${path.relative(SRC, file)} -> ${spec}`);
        }
      }
      assert.deepEqual(violations, []);
    });
  }

  it('only extension.ts sits at the top of src/', () => {
    const top = fs.readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
    assert.deepEqual(top, ['extension.ts']);
  });
});
