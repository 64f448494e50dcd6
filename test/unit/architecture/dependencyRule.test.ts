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

  it('no import cycle anywhere in src/, type imports included (as structure viewers draw them)', () => {
    assert.deepEqual(importCycles(sourceFiles(SRC)).map((cycle) => cycle.map((file) => path.relative(SRC, file)).sort()), []);
  });

  it('only extension.ts sits at the top of src/', () => {
    const top = fs.readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
    assert.deepEqual(top, ['extension.ts']);
  });
});

/** The strongly connected groups of more than one file in the relative-import graph (Tarjan). */
function importCycles(files: string[]): string[][] {
  const known = new Set(files);
  const resolve = (from: string, spec: string) => [`${path.resolve(path.dirname(from), spec)}.ts`, path.join(path.resolve(path.dirname(from), spec), 'index.ts')].find((file) => known.has(file));
  const edges = new Map(files.map((file) => [file, imports(file).filter((spec) => spec.startsWith('.')).map((spec) => resolve(file, spec)).filter((target): target is string => !!target)]));
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const next of edges.get(file)!) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== file);
    if (group.length > 1) cycles.push(group);
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return cycles;
}
