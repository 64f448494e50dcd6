// Symbol index of one file in a language other than TS/JS, with tree-sitter. Names follow the
// language's nesting: `Class.method`, Go methods by receiver (`UUID.String`), Rust impl methods by
// type (`Type.method`), nested classes and modules (`Outer.Inner.fn`); nothing inside a function
// counts. Fingerprints mean what they mean for TypeScript: FNV-1a over the leaf tokens (type and
// text), comments skipped, so whitespace and formatting never count; decorators and attributes are
// part of the signature; a docstring is part of the body.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language, Node, Parser as TreeParser } from '@vscode/tree-sitter-wasm';
import type { FileSymbols, SourceSymbol, SymbolKind, SymbolParser } from '../../core/drift/symbols';
import { LANGUAGES, type DeclarationRule, type LanguageRules } from './languages';

const FNV_OFFSET = 0x811c9dc5;

/** Whether drift reads symbols of this file with tree-sitter. */
export function isTreeSitterFile(file: string): boolean {
  return path.extname(file).toLowerCase() in LANGUAGES;
}

/** Parses the languages of `LANGUAGES`; each grammar loads on first use (`prepare`), in whatever process runs drift. */
export class TreeSitterParser implements SymbolParser {
  private runtime?: Promise<typeof import('@vscode/tree-sitter-wasm')>;
  private readonly languages = new Map<string, Promise<Language>>();
  private readonly loaded = new Map<string, Language>();
  private parser?: TreeParser;

  constructor(private readonly grammarDir = defaultGrammarDir()) {}

  /** Loads the grammar a file needs; parse() needs it loaded. */
  async prepare(file: string): Promise<void> {
    const rules = rulesOf(file);
    if (!rules || this.loaded.has(rules.grammar)) return;
    let language = this.languages.get(rules.grammar);
    if (!language) {
      language = this.load(rules.grammar);
      this.languages.set(rules.grammar, language);
    }
    this.loaded.set(rules.grammar, await language);
  }

  /** The loaded grammar of a file's language (for measuring a bare parse). */
  languageOf(fileName: string): Language | undefined {
    const rules = rulesOf(fileName);
    return rules && this.loaded.get(rules.grammar);
  }

  parse(fileName: string, text: string): FileSymbols {
    const rules = rulesOf(fileName);
    const language = rules && this.loaded.get(rules.grammar);
    if (!rules || !language || !this.parser) throw new Error(`No grammar is loaded for ${fileName}: call prepare() first.`);
    this.parser.setLanguage(language);
    const tree = this.parser.parse(text);
    if (!tree) throw new Error(`tree-sitter could not parse ${fileName}.`);
    try {
      return indexFile(tree.rootNode, rules);
    } finally {
      tree.delete(); // WebAssembly memory is not garbage-collected
    }
  }

  private async load(grammar: string): Promise<Language> {
    this.runtime ??= (async () => {
      const runtime = await import('@vscode/tree-sitter-wasm');
      await runtime.Parser.init({ locateFile: (file: string) => path.join(this.grammarDir, file) });
      return runtime;
    })();
    const runtime = await this.runtime;
    this.parser ??= new runtime.Parser();
    return runtime.Language.load(new Uint8Array(fs.readFileSync(path.join(this.grammarDir, grammar))));
  }
}

function rulesOf(file: string): LanguageRules | undefined {
  return LANGUAGES[path.extname(file).toLowerCase()];
}

/** dist/grammars next to the bundle; else the package's own folder (tests and the CLI run from source). */
function defaultGrammarDir(): string {
  const bundled = path.join(__dirname, 'grammars');
  if (fs.existsSync(path.join(bundled, 'tree-sitter.wasm'))) return bundled;
  return path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
}

interface Leaf {
  start: number;
  end: number;
  hash: number;
}

interface Piece {
  sigStart: number;
  sigEnd: number;
  bodyStart: number;
  bodyEnd: number;
  startLine: number;
  endLine: number;
}

/** Walks the tree once for its leaves and once for its declarations; hashes are taken per symbol on first read. */
function indexFile(root: Node, rules: LanguageRules): FileSymbols {
  const leaves = collectLeaves(root);
  const pieces = new Map<string, { kind: SymbolKind; pieces: Piece[] }>();
  // `inType`: the enclosing declaration is a type (a class, an impl), so its functions are methods.
  const visit = (node: Node, prefix: string, inType: boolean): void => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      const rule = rules.declarations[child.type];
      const names = (rule?.names(child) ?? []).map(citableName).filter(Boolean);
      if (!rule || !names.length) {
        visit(child, prefix, inType);
        continue;
      }
      const body = rule.body?.(child) ?? undefined;
      const kind = kindOf(rule, child);
      for (const name of names) {
        const qualified = prefix ? `${prefix}.${name}` : name;
        if (!rule.scope) record(pieces, qualified, kind === 'function' && inType ? 'method' : kind, piece(child, body, rules));
        if (body && (rule.scope || isContainer(rule, child))) visit(body, qualified, rule.scope === true || TYPE_KINDS.has(kind));
      }
    }
  };
  visit(root, '', false);
  const symbols = new Map<string, SourceSymbol>();
  for (const [name, entry] of pieces) symbols.set(name, toSymbol(name, entry.kind, entry.pieces, leaves));
  let fingerprint: string | undefined;
  return {
    symbols,
    get: (name) => symbols.get(name),
    get fingerprint() {
      return (fingerprint ??= hex(hashRange(leaves, 0, Number.MAX_SAFE_INTEGER)));
    },
  };
}

const TYPE_KINDS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(['class', 'struct', 'interface', 'trait', 'enum']);

/** A name as citations write it: template arguments (`Foo<T>`) and whitespace left out. */
function citableName(name: string): string {
  let plain = name;
  for (let previous = ''; previous !== plain; ) {
    previous = plain;
    plain = plain.replace(/<[^<>]*>/g, '');
  }
  return plain.replace(/\s+/g, '');
}

function kindOf(rule: DeclarationRule, node: Node): SymbolKind {
  return typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
}

function isContainer(rule: DeclarationRule, node: Node): boolean {
  return typeof rule.container === 'function' ? rule.container(node) : rule.container === true;
}

function record(pieces: Map<string, { kind: SymbolKind; pieces: Piece[] }>, name: string, kind: SymbolKind, piece: Piece): void {
  const entry = pieces.get(name);
  // Overloads and redefinitions make one symbol: the first one's kind, every piece hashed in order.
  if (entry) entry.pieces.push(piece);
  else pieces.set(name, { kind, pieces: [piece] });
}

function piece(node: Node, body: Node | undefined, rules: LanguageRules): Piece {
  let start = node;
  // Decorators and attributes belong to the signature.
  if (node.parent && rules.wrappers?.includes(node.parent.type)) start = node.parent;
  let first = start;
  for (let sibling = start.previousNamedSibling; sibling && rules.leadingAttributes?.includes(sibling.type); sibling = sibling.previousNamedSibling) first = sibling;
  const bodyStart = body ? body.startIndex : node.endIndex;
  return {
    sigStart: first.startIndex,
    sigEnd: bodyStart,
    bodyStart,
    bodyEnd: body ? body.endIndex : node.endIndex,
    startLine: first.startPosition.row,
    endLine: node.endPosition.row,
  };
}

function toSymbol(name: string, kind: SymbolKind, pieces: Piece[], leaves: Leaf[]): SourceSymbol {
  let sig = FNV_OFFSET;
  let body = FNV_OFFSET;
  let hasBody = false;
  let bodyTokens = 0;
  for (const p of pieces) {
    sig = hashRange(leaves, p.sigStart, p.sigEnd, sig);
    if (p.bodyStart < p.bodyEnd) {
      body = hashRange(leaves, p.bodyStart, p.bodyEnd, body);
      bodyTokens += countRange(leaves, p.bodyStart, p.bodyEnd);
      hasBody = true;
    }
  }
  return {
    name,
    kind,
    startLine: Math.min(...pieces.map((p) => p.startLine)),
    endLine: Math.max(...pieces.map((p) => p.endLine)),
    sig: hex(sig),
    body: hex(hasBody ? body : sig),
    // Delimiters at most (`{}`, `end`): nothing to tell one such body from another.
    ...(hasBody && bodyTokens <= 2 ? { emptyBody: true } : {}),
  };
}

/** Every token of the file, in order, with the hash of its type and text; comments are left out. */
function collectLeaves(root: Node): Leaf[] {
  const leaves: Leaf[] = [];
  const cursor = root.walk();
  let more = true;
  while (more) {
    const node = cursor.currentNode;
    if (node.childCount === 0 || node.type.includes('comment')) {
      if (!node.type.includes('comment') && node.endIndex > node.startIndex) leaves.push({ start: node.startIndex, end: node.endIndex, hash: tokenHash(node.type, node.text) });
    } else if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        more = false;
        break;
      }
    }
  }
  cursor.delete();
  return leaves;
}

function tokenHash(type: string, text: string): number {
  let hash = FNV_OFFSET;
  const token = `${type}\u0000${text} `;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Folds the hashes of the leaves inside [start, end) into `hash`. */
function hashRange(leaves: Leaf[], start: number, end: number, hash = FNV_OFFSET): number {
  for (let i = firstLeaf(leaves, start); i < leaves.length && leaves[i].end <= end; i++) hash = Math.imul(hash ^ leaves[i].hash, 0x01000193) >>> 0;
  return hash;
}

function countRange(leaves: Leaf[], start: number, end: number): number {
  let i = firstLeaf(leaves, start);
  const first = i;
  while (i < leaves.length && leaves[i].end <= end) i++;
  return i - first;
}

/** The first leaf starting at or after `start` (binary search: leaves are in order). */
function firstLeaf(leaves: Leaf[], start: number): number {
  let low = 0;
  let high = leaves.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (leaves[mid].start < start) low = mid + 1;
    else high = mid;
  }
  return low;
}

function hex(hash: number): string {
  return (hash >>> 0).toString(16).padStart(8, '0');
}
