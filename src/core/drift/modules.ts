// Where a re-export's module is in the workspace, by path alone (never a whole program): the
// files it may name, in the order a resolver tries them.
import * as path from 'node:path';
import { TS_LIKE } from './citations';

const MODULE_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The workspace files a module specifier of `fromPath` may name, most likely first; none for a
 * package outside the workspace. TS/JS: a relative specifier, with or without extension, or its
 * folder's index. Python (re-exports written as paths, see pythonReExports): `./core` is the
 * module `core.py` or the package `core/__init__.py` beside `fromPath`; an absolute `click/core`
 * is looked for under each folder above `fromPath`, nearest first (the package root is unknown).
 */
export function moduleCandidates(fromPath: string, specifier: string): string[] {
  const dir = path.posix.dirname(fromPath);
  if (fromPath.endsWith('.py')) {
    const relative = specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
    const bases = relative ? [path.posix.join(dir, specifier)] : ancestors(dir).map((folder) => path.posix.join(folder, specifier));
    return bases.filter(inWorkspace).flatMap((base) => [`${base}.py`, `${base}/__init__.py`]);
  }
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return []; // a package: not this workspace's code
  const base = path.posix.join(dir, specifier);
  if (!inWorkspace(base)) return [];
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  return TS_LIKE.test(base) ? [base, ...MODULE_EXTENSIONS.map((ext) => stem + ext)] : [...MODULE_EXTENSIONS.map((ext) => base + ext), ...MODULE_EXTENSIONS.map((ext) => `${base}/index${ext}`)];
}

/**
 * The word a module that re-exports `file` must contain to name it: its stem (`type-guards`,
 * `core`), or its folder's name for a folder's index or package (`utils`, `click`).
 */
export function moduleWord(file: string): string {
  const base = path.posix.basename(file).replace(/\.d\.ts$/, '').replace(/\.[^.]+$/, '');
  return base === 'index' || base === '__init__' ? path.posix.basename(path.posix.dirname(file)) : base;
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let folder = dir; ; folder = path.posix.dirname(folder)) {
    out.push(folder);
    if (folder === '.' || folder === '/' || !folder.includes('/')) break;
  }
  if (out.at(-1) !== '.') out.push('.');
  return out;
}

function inWorkspace(file: string): boolean {
  return file !== '..' && !file.startsWith('../') && !file.startsWith('/');
}
