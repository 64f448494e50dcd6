// Symbol index of one file in a language other than TS/JS, with tree-sitter. Names follow the
// language's nesting: `Class.method`, Go methods by receiver (`UUID.String`), Rust impl methods by
// type (`Type.method`), nested classes and modules (`Outer.Inner.fn`); nothing inside a function
// counts. Fingerprints mean what they mean for TypeScript: FNV-1a over the text with comments and
// whitespace left out, so formatting never counts (nor, unlike TypeScript, a change of whitespace
// inside a string); decorators and attributes are part of the signature; a docstring is part of
// the body. One query per grammar finds the declarations and comments inside WebAssembly, so
// JavaScript never walks the tree; hashes are taken per symbol on first read.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language, Node, Query, QueryCapture } from '@vscode/tree-sitter-wasm';
import type { FileSymbols, SourceSymbol, SymbolKind, SymbolParser } from '../../core/drift/symbols';
import { LANGUAGES, type DeclarationRule, type LanguageRules } from './languages';

const FNV_OFFSET = 0x811c9dc5;

/** Whether drift reads symbols of this file with tree-sitter. */
export function isTreeSitterFile(file: string): boolean {
  return path.extname(file).toLowerCase() in LANGUAGES;
}

/** A loaded grammar and its outline query (declarations and comments). */
interface Grammar {
  language: Language;
  outline: Query;
}

type Runtime = typeof import('@vscode/tree-sitter-wasm');

// WebAssembly grammars are immutable: one load per process, shared by every parser.
let runtime: Promise<Runtime> | undefined;
const grammars = new Map<string, Promise<Grammar>>();

/** Parses the languages of `LANGUAGES`; each grammar loads on first use (`prepare`), in whatever process runs drift. */
export class TreeSitterParser implements SymbolParser {
  private readonly loaded = new Map<string, Grammar>();
  private parser?: InstanceType<Runtime['Parser']>;

  constructor(private readonly grammarDir = defaultGrammarDir()) {}

  /** Loads the grammar a file needs; parse() needs it loaded. */
  async prepare(file: string): Promise<void> {
    const rules = rulesOf(file);
    if (!rules || this.loaded.has(rules.grammar)) return;
    let grammar = grammars.get(rules.grammar);
    if (!grammar) {
      grammar = loadGrammar(this.grammarDir, rules);
      grammars.set(rules.grammar, grammar);
      grammar.catch(() => grammars.delete(rules.grammar)); // a failed load is tried again next time
    }
    this.loaded.set(rules.grammar, await grammar);
    this.parser ??= new (await runtime!).Parser();
  }

  /** The loaded grammar of a file's language (for measuring a bare parse). */
  languageOf(fileName: string): Language | undefined {
    const rules = rulesOf(fileName);
    return rules && this.loaded.get(rules.grammar)?.language;
  }

  parse(fileName: string, text: string): FileSymbols {
    const rules = rulesOf(fileName);
    const grammar = rules && this.loaded.get(rules.grammar);
    if (!rules || !grammar || !this.parser) throw new Error(`No grammar is loaded for ${fileName}: call prepare() first.`);
    this.parser.setLanguage(grammar.language);
    const tree = this.parser.parse(text);
    if (!tree) throw new Error(`tree-sitter could not parse ${fileName}.`);
    try {
      const captures = grammar.outline.captures(tree.rootNode);
      return indexFile(captures.filter((capture) => capture.name === 'declaration').map((capture) => capture.node), rules, new TokenText(text, captures.filter((capture) => capture.name === 'comment')));
    } finally {
      tree.delete(); // WebAssembly memory is not garbage-collected
    }
  }
}

async function loadGrammar(grammarDir: string, rules: LanguageRules): Promise<Grammar> {
  runtime ??= (async () => {
    const loaded = await import('@vscode/tree-sitter-wasm');
    await loaded.Parser.init({ locateFile: (file: string) => path.join(grammarDir, file) });
    return loaded;
  })();
  const { Language, Query } = await runtime;
  const language = await Language.load(new Uint8Array(fs.readFileSync(path.join(grammarDir, rules.grammar))));
  return { language, outline: new Query(language, outlinePatterns(language, rules)) };
}

/**
 * One query per grammar finds its declarations and its comments (the grammars name comments
 * differently), so the tree is walked inside WebAssembly, once.
 */
function outlinePatterns(language: Language, rules: LanguageRules): string {
  const patterns = Object.keys(rules.declarations).filter((type) => language.idForNodeType(type, true) !== null).map((type) => `(${type}) @declaration`);
  const comments = new Set<string>();
  for (let id = 0; id < language.nodeTypeCount; id++) {
    const type = language.nodeTypeForId(id);
    if (type && /comment/.test(type) && language.nodeTypeIsNamed(id) && language.nodeTypeIsVisible(id)) comments.add(type);
  }
  return [...patterns, ...[...comments].map((type) => `(${type}) @comment`)].join('\n');
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

interface Piece {
  sigStart: number;
  sigEnd: number;
  bodyStart: number;
  bodyEnd: number;
  startLine: number;
  endLine: number;
}

/**
 * Names the declarations (in document order) by their nesting: a declaration inside a container or
 * scope is its member; one inside anything else (a function body) is not a symbol.
 */
function indexFile(declarations: Node[], rules: LanguageRules, tokens: TokenText): FileSymbols {
  const pieces = new Map<string, { kind: SymbolKind; pieces: Piece[] }>();
  // Open declarations around the current one: `prefix` names its members; `members` is false inside a function.
  const open: Array<{ end: number; prefix: string; members: boolean; inType: boolean }> = [];
  for (const node of declarations) {
    while (open.length && open[open.length - 1].end <= node.startIndex) open.pop();
    const around = open[open.length - 1];
    if (around && !around.members) continue;
    const rule = rules.declarations[node.type];
    const names = rule.names(node).map(citableName).filter(Boolean);
    if (!names.length) continue;
    const body = rule.body?.(node) ?? undefined;
    const kind = kindOf(rule, node);
    const opens = body !== undefined && (rule.scope === true || isContainer(rule, node));
    for (const name of names) {
      const qualified = around ? `${around.prefix}.${name}` : name;
      if (!rule.scope) record(pieces, qualified, kind === 'function' && around?.inType ? 'method' : kind, piece(node, body, rules));
      // Pushed for the last name only: a declaration with several names (`A, B int`) has no members.
      if (name === names[names.length - 1]) open.push({ end: node.endIndex, prefix: qualified, members: opens, inType: rule.scope === true || TYPE_KINDS.has(kind) });
    }
  }
  const computed = new Map<string, SourceSymbol>();
  const get = (name: string) => {
    let symbol = computed.get(name);
    const entry = pieces.get(name);
    if (!symbol && entry) computed.set(name, (symbol = toSymbol(name, entry.kind, entry.pieces, tokens)));
    return symbol;
  };
  let all: Map<string, SourceSymbol> | undefined;
  let fingerprint: string | undefined;
  return {
    get symbols() {
      return (all ??= new Map([...pieces.keys()].map((name) => [name, get(name)!])));
    },
    get,
    get fingerprint() {
      return (fingerprint ??= hex(tokens.hash(0, Number.MAX_SAFE_INTEGER).hash));
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

/** A symbol whose body hash is taken only when read: a container's anchor records its shape instead. */
function toSymbol(name: string, kind: SymbolKind, pieces: Piece[], tokens: TokenText): SourceSymbol {
  let sig = FNV_OFFSET;
  for (const p of pieces) sig = tokens.hash(p.sigStart, p.sigEnd, sig).hash;
  let body: { hash: string; empty: boolean } | undefined;
  const bodyOf = () => {
    if (!body) {
      let hash = FNV_OFFSET;
      let chars = 0;
      let hasBody = false;
      for (const p of pieces) {
        if (p.bodyStart >= p.bodyEnd) continue;
        const hashed = tokens.hash(p.bodyStart, p.bodyEnd, hash);
        hash = hashed.hash;
        chars += hashed.chars;
        hasBody = true;
      }
      // Delimiters at most (`{}`, `:`, `end`): nothing to tell one such body from another.
      body = { hash: hex(hasBody ? hash : sig), empty: hasBody && chars <= 3 };
    }
    return body;
  };
  return {
    name,
    kind,
    startLine: Math.min(...pieces.map((p) => p.startLine)),
    endLine: Math.max(...pieces.map((p) => p.endLine)),
    sig: hex(sig),
    get body() {
      return bodyOf().hash;
    },
    get emptyBody() {
      return bodyOf().empty;
    },
  };
}

/** A file's text with its comments located, hashed as tokens. */
class TokenText {
  private readonly comments: Array<[number, number]>;

  constructor(private readonly text: string, comments: QueryCapture[]) {
    this.comments = comments.map(({ node }): [number, number] => [node.startIndex, node.endIndex]).sort((a, b) => a[0] - b[0]);
  }

  /** FNV-1a over [start, end), comments and whitespace skipped; also how many characters were hashed. */
  hash(start: number, end: number, seed = FNV_OFFSET): { hash: number; chars: number } {
    const text = this.text;
    const stop = Math.min(end, text.length);
    let hash = seed;
    let chars = 0;
    let comment = firstEndingAfter(this.comments, start);
    for (let i = start; i < stop; i++) {
      while (comment < this.comments.length && this.comments[comment][1] <= i) comment++;
      if (comment < this.comments.length && this.comments[comment][0] <= i) {
        i = this.comments[comment][1] - 1;
        continue;
      }
      const code = text.charCodeAt(i);
      if (code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11) continue;
      hash = Math.imul(hash ^ code, 0x01000193);
      chars++;
    }
    return { hash: hash >>> 0, chars };
  }
}

/** The first range that may cover `index` or come after it (ranges sorted by start). */
function firstEndingAfter(ranges: Array<[number, number]>, index: number): number {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ranges[mid][0] < index) low = mid + 1;
    else high = mid;
  }
  // A range starting before `index` may still cover it.
  while (low > 0 && ranges[low - 1][1] > index) low--;
  return low;
}

function hex(hash: number): string {
  return (hash >>> 0).toString(16).padStart(8, '0');
}
