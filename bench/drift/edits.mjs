// The "one file saved" edit of the warm benchmarks: a statement inserted at the top of a function
// body inside a cited symbol, so a cited symbol's body (never its signature) really changes.
// The parent picks the targets; the measuring children only apply them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { out } from './code.mjs';
import { rng } from './corpus.mjs';

const require = createRequire(import.meta.url);

/** Page slugs citing each file, as the extension computes them before re-checking. */
export function citingSlugs(pages) {
  const { findCitations } = out('core/drift/citations');
  const byFile = new Map();
  for (const page of pages) {
    for (const c of findCitations(page)) {
      if (!byFile.has(c.path)) byFile.set(c.path, new Set());
      byFile.get(c.path).add(page.slug);
    }
  }
  return byFile;
}

/**
 * Up to `max` cited files (seeded choice), each `{ file, offset }` with `offset` just after the `{`
 * of the first function body whose edit changes the body, and no signature, of a cited symbol in
 * that file. The engine's own parser judges that (line spans alone mislead: merged declarations).
 */
export function editTargets(root, citations, max = 20, seed = 7) {
  const ts = require('typescript');
  const { TsSymbolParser } = out('adapters/typescript/tsSymbolParser');
  const { CONTAINER_KINDS } = out('core/drift/symbols');
  const parser = new TsSymbolParser();
  const byFile = new Map();
  for (const c of citations) if (c.symbol) (byFile.get(c.path) ?? byFile.set(c.path, []).get(c.path)).push(c.symbol);
  const targets = [];
  for (const [file, symbols] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const text = readFileSync(join(root, file), 'utf8');
    const before = parser.parse(file, text).symbols;
    // A container's citation tracks its shape, not its members' bodies: only the others see a body edit.
    const cited = symbols.map((s) => before.get(s)).filter((s) => s && !CONTAINER_KINDS.has(s.kind));
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const bodies = [];
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body && ts.isBlock(node.body)) bodies.push(node.body.getStart(source) + 1);
      ts.forEachChild(node, visit);
    };
    visit(source);
    for (const offset of bodies) {
      const line = source.getLineAndCharacterOfPosition(offset).line;
      if (!cited.some((s) => s.startLine <= line && line <= s.endLine)) continue;
      const after = parser.parse(file, edited({ text, offset }, 0)).symbols;
      const containers = symbols.map((s) => before.get(s)).filter((s) => s && CONTAINER_KINDS.has(s.kind));
      if (cited.some((s) => after.get(s.name)?.body !== s.body) && cited.every((s) => after.get(s.name)?.sig === s.sig) && containers.every((s) => after.get(s.name)?.sig === s.sig)) {
        targets.push({ file, offset });
        break;
      }
    }
  }
  const random = rng(seed);
  for (let i = targets.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [targets[i], targets[j]] = [targets[j], targets[i]];
  }
  return targets.slice(0, max);
}

/** Targets with their original text read from disk, ready for `edited`. */
export function loadTargets(root, targets) {
  return targets.map((target) => ({ ...target, text: readFileSync(join(root, target.file), 'utf8') }));
}

/** The target's text with a new statement at the top of the body; `n` makes each save distinct. */
export function edited(target, n) {
  return `${target.text.slice(0, target.offset)} void ${n};${target.text.slice(target.offset)}`;
}
