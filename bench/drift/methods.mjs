// One measurement in a fresh process: `node methods.mjs '<json>'` with { method, root, citationsFile }
// (and targetsFile, iterations for d).
// Prints one JSON line: the time measured inside this process (modules are loaded before the clock
// starts) and this process's peak RSS. Methods:
//   a  naive baseline: a ts-morph Project loading the whole program
//   b  floor: ts.createSourceFile on just the cited files, plus a walk over top-level statements
//   c  our engine, cold: a fresh DriftEngine, nothing cached
//   d  our engine, warm: after one full check, one cited file is changed on disk and re-checked
//   s  semantic mode (--semantic): our engine plus the resolved type of every cited symbol, from a
//      ts-morph program over tsconfig.json read through the guarded file access
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { out } from './code.mjs';

const require = createRequire(import.meta.url);
const config = JSON.parse(process.argv[2]);
const { root } = config;
const citations = JSON.parse(readFileSync(config.citationsFile, 'utf8'));
const peakRssMB = () => process.resourceUsage().maxRSS / 1024;

function fnv(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const methods = {
  // (a) What a straightforward ts-morph implementation does: `new Project({ tsConfigFilePath })` parses
  // every file the tsconfig includes and resolves their imports; the Program's TypeChecker is then
  // created, which binds every file (no type checking, no diagnostics). Each citation is then found
  // with ts-morph's navigation API (statements, class/interface/enum/type-literal members, namespaces)
  // and its symbol and text read. Building the checker is what "loading the whole program" means here:
  // it is what a ts-morph user gets the moment they ask anything semantic (getSymbol, getType,
  // getExportedDeclarations).
  async a() {
    const { Project, Node } = require('ts-morph');
    const start = performance.now();
    const project = new Project({ tsConfigFilePath: join(root, 'tsconfig.json') });
    project.getProgram().compilerObject.getTypeChecker();
    let found = 0;
    let digest = 0;
    for (const c of citations) {
      const file = project.getSourceFileOrThrow(join(root, c.path));
      const node = c.symbol ? findDeclaration(Node, file, c.symbol.split('.')) : file;
      if (!node) continue;
      found++;
      node.getSymbol?.();
      digest ^= fnv(node.getText());
    }
    const ms = performance.now() - start;
    return { ms, found, files: project.getSourceFiles().length, digest, ts: require('ts-morph').ts.version };
  },

  // (b) The floor: read the cited files (synchronously), parse each once and walk its top-level
  // statements into a name table. The parse skips JSDoc and parent pointers, as the engine's does:
  // the cheapest parse the compiler offers (createSourceFile's default would also parse JSDoc).
  async b() {
    const ts = require('typescript');
    const byFile = groupByFile(citations);
    const start = performance.now();
    let found = 0;
    for (const [file, cited] of byFile) {
      const text = readFileSync(join(root, file), 'utf8');
      const source = ts.createSourceFile(file, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
      const names = new Map();
      for (const statement of source.statements) {
        if (ts.isVariableStatement(statement)) {
          for (const decl of statement.declarationList.declarations) if (ts.isIdentifier(decl.name)) names.set(decl.name.text, decl);
        } else if (statement.name && ts.isIdentifier(statement.name)) names.set(statement.name.text, statement);
      }
      for (const c of cited) if (!c.symbol || names.has(c.symbol.split('.')[0])) found++;
    }
    const ms = performance.now() - start;
    return { ms, found, files: byFile.size, ts: ts.version };
  },

  // (c) The engine as the worker runs it, nothing cached. Page loading is timed separately.
  async c() {
    const { engine, wiki } = makeEngine();
    let start = performance.now();
    const pages = await wiki.loadPages();
    const pageLoadMs = performance.now() - start;
    start = performance.now();
    const report = await engine.check(pages);
    const ms = performance.now() - start;
    return { ms, pageLoadMs, pages: pages.length, invalidPages: pages.filter((p) => !p.valid).length, citationsChecked: report.citationsChecked, issues: report.issues.length, codes: codes(report.issues) };
  },

  // (s) What `repo-wiki drift --semantic` does on pages stamped with types: the syntactic check, and
  // each cited symbol's type from the checker (the first question loads the whole program).
  async s() {
    const { SemanticTypes } = out('adapters/typescript/semanticTypes');
    const { WorkspaceFiles } = out('adapters/files/workspaceFiles');
    const types = new SemanticTypes(root, new WorkspaceFiles(root, { syncReads: true }));
    const { engine, wiki } = makeEngine(types);
    const pages = await wiki.loadPages();
    const start = performance.now();
    const report = await engine.check(pages);
    let typed = 0;
    for (const c of citations) if (c.symbol && types.typeOf(c.path, c.symbol) !== undefined) typed++;
    const ms = performance.now() - start;
    return { ms, typed, issues: report.issues.length };
  },

  // (d) Warm: one full check, then per iteration one cited file is saved with a changed body,
  // invalidated, and only the pages citing it are re-checked. The file write is not timed.
  // For scale, each iteration also times a bare createSourceFile of the saved text (warm JIT).
  async d() {
    const { citingSlugs, edited, loadTargets } = await import('./edits.mjs');
    const ts = require('typescript');
    const { engine, wiki } = makeEngine();
    const pages = await wiki.loadPages();
    const full = await engine.check(pages);
    if (full.issues.length) throw new Error(`warm: the full check found ${full.issues.length} issues`);
    const citing = citingSlugs(pages);
    const targets = loadTargets(root, JSON.parse(readFileSync(config.targetsFile, 'utf8')));
    const samples = [];
    const parseSamples = [];
    const seen = {};
    for (let n = 0; n < config.iterations; n++) {
      const target = targets[n % targets.length];
      const text = edited(target, n);
      writeFileSync(join(root, target.file), text);
      const slugs = citing.get(target.file);
      const selected = pages.filter((p) => slugs.has(p.slug));
      const start = performance.now();
      engine.invalidate(target.file);
      const report = await engine.check(selected);
      samples.push(performance.now() - start);
      const parseStart = performance.now();
      ts.createSourceFile(target.file, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
      parseSamples.push(performance.now() - parseStart);
      if (!report.issues.length || report.issues.some((i) => i.data.path !== target.file)) throw new Error(`warm: unexpected issues after editing ${target.file}: ${JSON.stringify(codes(report.issues))}`);
      for (const [code, count] of Object.entries(codes(report.issues))) seen[code] = (seen[code] ?? 0) + count;
      // Undo the edit (untimed), so each iteration changes exactly one file against clean pages.
      writeFileSync(join(root, target.file), target.text);
      engine.invalidate(target.file);
      await engine.check(selected);
    }
    const after = await engine.check(pages);
    if (after.issues.length) throw new Error(`warm: ${after.issues.length} issues after restoring the edited files`);
    return { samples, parseSamples, targets: targets.length, codes: seen };
  },
};

function makeEngine(types) {
  const { DriftEngine } = out('core/drift/driftEngine');
  // The file system the drift worker and the CLI use.
  const { WorkspaceFiles } = out('adapters/files/workspaceFiles');
  const { CachingSymbolParser, TsSymbolParser } = out('adapters/typescript/tsSymbolParser');
  const { WorkspaceSearch } = out('adapters/workspaceSearch');
  const { Wiki } = out('core/wiki/wiki');
  const fs = new WorkspaceFiles(root, { syncReads: true });
  return {
    engine: new DriftEngine(root, fs, new CachingSymbolParser(new TsSymbolParser()), new WorkspaceSearch(root, fs), types),
    wiki: new Wiki(root, fs, { now: () => new Date() }),
  };
}

function codes(issues) {
  const out = {};
  for (const issue of issues) out[issue.code] = (out[issue.code] ?? 0) + 1;
  return out;
}

function groupByFile(list) {
  const byFile = new Map();
  for (const c of list) (byFile.get(c.path) ?? byFile.set(c.path, []).get(c.path)).push(c);
  return byFile;
}

/** The declaration a qualified name cites, found with ts-morph's navigation API; all same-named declarations are tried. */
function findDeclaration(Node, scope, segments) {
  if (!segments.length) return scope;
  for (const [name, node] of namedChildren(Node, scope)) {
    const parts = name.split('.'); // `namespace A.B` is one declaration named "A.B"
    if (parts.every((part, i) => segments[i] === part)) {
      const found = findDeclaration(Node, node, segments.slice(parts.length));
      if (found) return found;
    }
  }
  return undefined;
}

function namedChildren(Node, node) {
  const out = [];
  if (Node.isSourceFile(node) || Node.isModuleDeclaration(node)) {
    for (const statement of Node.isModuleDeclaration(node) && !node.hasBody() ? [] : node.getStatements()) {
      if (Node.isVariableStatement(statement)) {
        for (const decl of statement.getDeclarations()) for (const name of bindingNames(Node, decl.getNameNode())) out.push([name, decl]);
      } else if (Node.isModuleDeclaration(statement) && (statement.getDeclarationKind() === 'global' || Node.isStringLiteral(statement.getNameNode()))) {
        out.push(...namedChildren(Node, statement)); // `declare module 'x'` and `declare global` add no name
      } else if (Node.isExportAssignment(statement)) {
        if (!statement.isExportEquals()) out.push(['default', statement]);
      } else if (statement.getName) {
        if (Node.isExportable?.(statement) && statement.isDefaultExport?.()) out.push(['default', statement]);
        const name = statement.getName();
        if (name) out.push([name, statement]);
      }
    }
  } else if (Node.isClassDeclaration(node)) {
    for (const member of node.getMembers()) {
      if (Node.isConstructorDeclaration(member)) {
        out.push(['constructor', member]);
        for (const param of member.getParameters()) if (param.isParameterProperty()) out.push([param.getName(), param]);
      } else if (member.getName) out.push([member.getName(), member]);
    }
  } else if (Node.isInterfaceDeclaration(node) || Node.isEnumDeclaration(node)) {
    for (const member of node.getMembers()) if (member.getName) out.push([member.getName(), member]);
  } else if (Node.isTypeAliasDeclaration(node)) {
    const type = node.getTypeNode();
    if (Node.isTypeLiteral(type)) for (const member of type.getMembers()) if (member.getName) out.push([member.getName(), member]);
  }
  return out;
}

function bindingNames(Node, name) {
  if (Node.isIdentifier(name)) return [name.getText()];
  return name.getElements().flatMap((element) => (Node.isOmittedExpression(element) ? [] : bindingNames(Node, element.getNameNode())));
}

const result = await methods[config.method]();
process.stdout.write(`${JSON.stringify({ ...result, peakRssMB: peakRssMB() })}\n`);
