import ts from 'typescript';
import type { ReExport } from '../../core/drift/symbols';

/** The start of an export declaration, the only statement that can re-export. */
const EXPORT_DECLARATION = /\bexport\s*(?:type\s*)?[{*]/;

/**
 * The names a TS/JS file exports from other modules: `export … from`, and imported bindings that
 * an `export { … }` without `from` exports again. Top-level statements only.
 */
export function findReExports(fileName: string, text: string, kind: ts.ScriptKind): ReExport[] {
  // Only an export declaration (`export {…}`, `export *`, `export type {…}`) re-exports: a file
  // without one is not parsed. A changed-since search parses every file naming a changed module,
  // and most only import it (5,000 files: half a second of parsing saved).
  if (!EXPORT_DECLARATION.test(text)) return [];
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const imported = new Map<string, { imported: string; from: string }>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !statement.importClause) continue;
    const from = statement.moduleSpecifier.text;
    const clause = statement.importClause;
    if (clause.name) imported.set(clause.name.text, { imported: 'default', from });
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) imported.set(bindings.name.text, { imported: '*', from });
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) imported.set(element.name.text, { imported: (element.propertyName ?? element.name).text, from });
    }
  }
  const found: ReExport[] = [];
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (statement.moduleSpecifier) {
      if (!ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const from = statement.moduleSpecifier.text;
      if (!clause) found.push({ exported: '*', imported: '*', from });
      else if (ts.isNamespaceExport(clause)) found.push({ exported: clause.name.text, imported: '*', from });
      else for (const element of clause.elements) found.push({ exported: element.name.text, imported: (element.propertyName ?? element.name).text, from });
    } else if (clause && ts.isNamedExports(clause)) {
      for (const element of clause.elements) {
        const binding = imported.get((element.propertyName ?? element.name).text);
        if (binding) found.push({ exported: element.name.text, ...binding });
      }
    }
  }
  return found;
}
