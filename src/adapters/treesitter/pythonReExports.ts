import type { Node } from '@vscode/tree-sitter-wasm';
import type { ReExport } from '../../core/drift/symbols';

/** Statements a module-level import may sit in (`try: from .speedups import x`); never a function or class body. */
const MODULE_LEVEL = new Set(['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'finally_clause', 'block', 'with_statement']);

/**
 * The names a Python module imports at module level with `from … import`, which it thereby
 * exports again (a package's `__init__.py` is the usual barrel; `__all__` is not needed). The
 * module is written as a path for moduleCandidates: `from .core import A as B` is
 * `{ exported: 'B', imported: 'A', from: './core' }`; `from . import x` names the submodule `./x`
 * whole (`imported: '*'`); `from click.core import A` is `click/core`; `import *` exports `*`.
 */
export function pythonReExports(root: Node): ReExport[] {
  const found: ReExport[] = [];
  const visit = (node: Node) => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'import_from_statement') found.push(...fromImport(child));
      else if (MODULE_LEVEL.has(child.type)) visit(child);
    }
  };
  visit(root);
  return found;
}

function fromImport(statement: Node): ReExport[] {
  const module = statement.childForFieldName('module_name');
  if (!module) return [];
  const from = modulePath(module);
  const names = statement.childrenForFieldName('name').filter((name): name is Node => !!name);
  if (!names.length) return statement.namedChildren.some((child) => child?.type === 'wildcard_import') ? [{ exported: '*', imported: '*', from }] : [];
  // `from . import x`: x is a submodule of the package (a name in it is the package's own file).
  const bare = module.type === 'relative_import' && !module.namedChildren.some((child) => child?.type === 'dotted_name');
  return names.flatMap((name) => {
    const imported = (name.type === 'aliased_import' ? name.childForFieldName('name') : name)?.text;
    const exported = name.type === 'aliased_import' ? name.childForFieldName('alias')?.text : imported;
    if (!imported || !exported || imported.includes('.')) return [];
    return bare ? [{ exported, imported: '*', from: joinPath(from, imported) }] : [{ exported, imported, from }];
  });
}

/** `.core` → `./core`, `..pkg.mod` → `../pkg/mod`, `.` → `.`, `click.core` → `click/core`. */
function modulePath(module: Node): string {
  if (module.type !== 'relative_import') return module.text.replace(/\s+/g, '').split('.').join('/');
  const dots = module.namedChildren.find((child) => child?.type === 'import_prefix')?.text.replace(/\s+/g, '').length ?? 1;
  const dotted = module.namedChildren.find((child) => child?.type === 'dotted_name')?.text.replace(/\s+/g, '');
  const up = dots === 1 ? '.' : Array.from({ length: dots - 1 }, () => '..').join('/');
  return dotted ? `${up}/${dotted.split('.').join('/')}` : up;
}

function joinPath(base: string, name: string): string {
  return base === '.' ? `./${name}` : `${base}/${name}`;
}
