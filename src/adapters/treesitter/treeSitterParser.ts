// Symbol index of one file in a language other than TS/JS, with tree-sitter. Names follow the
// language's nesting: `Class.method`, Go methods by receiver (`UUID.String`), Rust impl methods by
// type (`Type.method`), nested classes and modules (`Outer.Inner.fn`); nothing inside a function
// counts. Fingerprints mean what they mean for TypeScript: FNV-1a over the text with comments,
// whitespace, trailing commas and line continuations left out, so formatting never counts (nor,
// unlike TypeScript, a change of whitespace inside a string; in Python, nor the choice of quotes);
// decorators and attributes are part of the signature; a docstring is part of the body. Overloads
// hash as a set: reordering them is no change. The declarations are walked from the root, function bodies never entered; comments are
// found only where a cited symbol is hashed; hashes are taken per symbol on first read. A batch of
// files can parse on other threads, which send back only what was wanted (see threadAnswers.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language, Node, Query, QueryCapture, Tree } from '@vscode/tree-sitter-wasm';
import { CONTAINER_KINDS, hex8, type FileSymbols, type SourceSymbol, type SymbolKind, type SymbolParser, type WantedSymbols } from '../../core/drift/symbols';
import { LANGUAGES, type DeclarationRule, type LanguageRules } from './languages';
import { ParsePool, type ReadBytes } from './parsePool';
import { packAnswers, unpackAnswers } from './threadAnswers';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const EQUALS = 61;
const COMMA = 44;
const BACKSLASH = 92;
const SINGLE_QUOTE = 39;
const DOUBLE_QUOTE = 34;
/** `)`, `]` and `}`: a comma before one of them is a formatter's. */
const CLOSERS: ReadonlySet<number> = new Set([41, 93, 125]);

/** Whether drift reads symbols of this file with tree-sitter. */
export function isTreeSitterFile(file: string): boolean {
  return path.extname(file).toLowerCase() in LANGUAGES;
}

/** A loaded grammar, its queries, and how to read its outline. */
interface Grammar {
  language: Language;
  /** Every declaration in a subtree, in document order (for the parts of a file that are not walked). */
  declarations: Query;
  /** Every comment of a file (the grammars name comments differently). */
  comments: Query;
  /** The comments' node types. */
  commentTypes: ReadonlySet<string>;
  /** Node types whose children are walked from JavaScript (statement blocks, preprocessor groups, ...). */
  walk: ReadonlySet<string>;
  /** Node types that never hold a declaration: skipped. */
  opaque: ReadonlySet<string>;
}

type Runtime = typeof import('@vscode/tree-sitter-wasm');

/** As ParseThreads, with a read that may find the answers known already: then there is nothing to parse. */
export interface TreeSitterThreads {
  parse(fileName: string, read: ReadBytes, wanted?: WantedSymbols): Promise<FileSymbols | undefined>;
  release(): Promise<void>;
}

// WebAssembly grammars are immutable: one load per process, shared by every parser.
let runtime: Promise<Runtime> | undefined;
const grammars = new Map<string, Promise<Grammar>>();
// One pool of parse threads per process; null when its worker script was not built.
let pool: ParsePool | null | undefined;
// The WebAssembly this process compiled, or a parse thread did and sent here, by file name. V8
// shares the compiled code of the same bytes among a process's threads while one of them holds it:
// held here, what the threads compile and optimise outlives them, and a parse on this thread
// afterwards (a save) runs at once at their speed, where a fresh compile cost the first parses of
// each language tens of milliseconds.
const compiled = new Map<string, WebAssembly.Module>();

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

  /**
   * The symbols of a file: with `wanted`, only the declarations that may be wanted (partial; see
   * WantedWords). Comments are looked for only where the wanted symbols will be hashed, while the
   * tree is here; a hash anywhere else that may hold one parses the text again.
   */
  parse(fileName: string, text: string, wanted?: WantedSymbols): FileSymbols {
    const { rules, grammar } = this.grammarOf(fileName);
    const tree = this.parseTree(fileName, text, grammar);
    try {
      const tokens = new TokenText(text, tokenSyntax(rules), grammar.commentTypes, () => this.allComments(fileName, text, grammar));
      const { index, partial } = outlineFor(tree.rootNode, grammar, rules, wanted && WantedWords.of(text, wanted));
      if (wanted?.wholeFile) tokens.addComments(grammar.comments.captures(tree.rootNode), 0, text.length);
      for (const name of wanted?.names ?? []) index.prepare(name, tokens);
      return symbolsOf(packOutline(index.pieces), tokens, partial);
    } finally {
      tree.delete(); // WebAssembly memory is not garbage-collected
    }
  }

  /**
   * Threads for a batch of files, with the grammars those files need loading at once; undefined
   * when none of the files is parsed here, or the pool was not built. The threads send back only
   * what was wanted of each file (partial symbols), so this thread keeps neither text nor grammar.
   * A file is read when a thread is ready for it; its parse is undefined when `read` found nothing to parse.
   */
  parseThreads(fileNames: readonly string[]): TreeSitterThreads | undefined {
    const files = fileNames.filter((file) => rulesOf(file));
    if (!files.length) return undefined;
    pool ??= ParsePool.beside(__dirname, (file) => rulesOf(file)!.grammar, (file, module) => compiled.set(file, module)) ?? null;
    if (!pool) return undefined;
    const threads = pool;
    threads.start(files);
    return {
      parse: async (fileName, read, wanted) => {
        const answers = await threads.answers(fileName, read, wanted);
        return answers === undefined ? undefined : unpackAnswers(fileName, answers, wanted);
      },
      release: () => threads.close(),
    };
  }

  /** What `wanted` reads of a file, hashed here, for a parse thread to send back (see threadAnswers.ts). */
  answersOf(fileName: string, text: string, wanted?: WantedSymbols): string {
    return packAnswers(this.parse(fileName, text, wanted), wanted);
  }

  private grammarOf(fileName: string): { rules: LanguageRules; grammar: Grammar } {
    const rules = rulesOf(fileName);
    const grammar = rules && this.loaded.get(rules.grammar);
    if (!rules || !grammar || !this.parser) throw new Error(`No grammar is loaded for ${fileName}: call prepare() first.`);
    return { rules, grammar };
  }

  private parseTree(fileName: string, text: string, grammar: Grammar): Tree {
    this.parser!.setLanguage(grammar.language);
    const tree = this.parser!.parse(text);
    if (!tree) throw new Error(`tree-sitter could not parse ${fileName}.`);
    return tree;
  }

  /** Every comment of a file, for a hash nobody asked for at parse time: parsed again. */
  private allComments(fileName: string, text: string, grammar: Grammar): number[] {
    const tree = this.parseTree(fileName, text, grammar);
    try {
      return grammar.comments.captures(tree.rootNode).flatMap(({ node }) => [node.startIndex, node.endIndex]);
    } finally {
      tree.delete();
    }
  }
}

/** The WebAssembly modules this process holds (see `compiled`), by file name. */
export function compiledWebAssembly(): ReadonlyMap<string, WebAssembly.Module> {
  return compiled;
}

/** Compiles a WebAssembly file, and holds it: the runtime's and the grammar's own loads of the same bytes then share its code. */
async function compile(grammarDir: string, file: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(fs.readFileSync(path.join(grammarDir, file)));
  if (!compiled.has(file)) compiled.set(file, await WebAssembly.compile(bytes));
  return bytes;
}

async function loadGrammar(grammarDir: string, rules: LanguageRules): Promise<Grammar> {
  runtime ??= (async () => {
    const loaded = await import('@vscode/tree-sitter-wasm');
    await compile(grammarDir, RUNTIME);
    await loaded.Parser.init({ locateFile: (file: string) => path.join(grammarDir, file) });
    return loaded;
  })();
  const { Language, Query } = await runtime;
  const language = await Language.load(await compile(grammarDir, rules.grammar));
  const declarations = Object.keys(rules.declarations).filter((type) => language.idForNodeType(type, true) !== null).map((type) => `(${type}) @declaration`);
  const comments = new Set<string>((rules.commentLike ?? []).filter((type) => language.idForNodeType(type, true) !== null));
  for (let id = 0; id < language.nodeTypeCount; id++) {
    const type = language.nodeTypeForId(id);
    if (type && /comment/.test(type) && language.nodeTypeIsNamed(id) && language.nodeTypeIsVisible(id)) comments.add(type);
  }
  return {
    language,
    declarations: new Query(language, declarations.join('\n')),
    comments: new Query(language, [...comments].map((type) => `(${type}) @comment`).join('\n')),
    commentTypes: comments,
    walk: new Set([...WALKED, ...(rules.walk ?? [])].filter((type) => !rules.opaque?.includes(type))),
    opaque: new Set(rules.opaque),
  };
}

/**
 * Statement lists and groups that hold declarations in most grammars: walked, not queried. So is
 * an error the parser recovered from: a C header whose macros it cannot read is often one ERROR
 * node around the whole file, and querying that costs more than the parse.
 */
const WALKED = ['module', 'program', 'source_file', 'translation_unit', 'compilation_unit', 'block', 'declaration_list', 'body_statement', 'ERROR'];

/** What hashing a language's text needs to know: the characters a comment can start with (a range without them has no comment), and whether its quotes are alike. */
interface TokenSyntax {
  commentStarts: readonly number[];
  sameQuotes: boolean;
}

function tokenSyntax(rules: LanguageRules): TokenSyntax {
  return { commentStarts: [...(rules.commentStarts ?? '/')].map((char) => char.charCodeAt(0)), sameQuotes: rules.sameQuotes === true };
}

function rulesOf(file: string): LanguageRules | undefined {
  return LANGUAGES[path.extname(file).toLowerCase()];
}

/** The tree-sitter runtime's own WebAssembly, beside the grammars. */
const RUNTIME = 'tree-sitter.wasm';

/** dist/grammars next to the bundle; else the package's own folder (tests and the CLI run from source). */
function defaultGrammarDir(): string {
  const bundled = path.join(__dirname, 'grammars');
  if (fs.existsSync(path.join(bundled, RUNTIME))) return bundled;
  return path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
}

/**
 * A parse as plain data, cheap to keep: every declaration's numbers in one buffer (its kind's
 * index in KINDS, its piece count, five numbers per piece), the names in one string. Pieces
 * become objects only for the symbols read.
 */
interface Outline {
  numbers: Int32Array;
  names: string;
}

const KINDS: readonly SymbolKind[] = ['function', 'class', 'method', 'property', 'accessor', 'constructor', 'interface', 'type', 'enum', 'enum-member', 'namespace', 'variable', 'default', 'struct', 'trait', 'module'];
const PIECE_SIZE = 5;
const NEWLINE = 10;

function packOutline(declarations: Map<string, Entry>): Outline {
  let size = 0;
  for (const entry of declarations.values()) size += 2 + entry.pieces.length * PIECE_SIZE;
  const numbers = new Int32Array(size);
  let at = 0;
  for (const { kind, pieces } of declarations.values()) {
    numbers[at++] = KINDS.indexOf(kind);
    numbers[at++] = pieces.length;
    for (const p of pieces) {
      numbers[at++] = p.sigStart;
      numbers[at++] = p.bodyStart;
      numbers[at++] = p.bodyEnd;
      numbers[at++] = p.end;
      numbers[at++] = p.startLine;
    }
  }
  return { numbers, names: [...declarations.keys()].join('\n') };
}

/** A declaration's text: its signature is [sigStart, bodyStart), its body [bodyStart, bodyEnd). */
interface Piece {
  sigStart: number;
  bodyStart: number;
  bodyEnd: number;
  /** Where the declaration ends: its last line is counted from the text when it is read (asking the tree costs a call per declaration). */
  end: number;
  startLine: number;
}

interface Entry {
  kind: SymbolKind;
  pieces: Piece[];
  /** While the tree is alive: the smallest nodes around each piece's signature and body, to look for comments in. */
  roots?: Array<{ sig: Node; body?: Node }>;
}

/**
 * What a partial outline keeps: the wanted names, and the declarations whose text holds the last
 * part of one as a word (a declaration holds its own name, and a container its members'). A word
 * in a comment or a call only costs a walk. The text is read once, a word at a time, as the walk
 * goes: the cost does not grow with the number of names (a header can have a hundred cited).
 */
class WantedWords {
  private readonly words: ReadonlySet<string>;
  /** Marks, by length and by first character, of the words: most words of the text are neither, and are never sliced out. */
  private readonly lengths: Uint8Array;
  private readonly firsts = new Uint8Array(128);
  /** Where the text next holds a wanted word, from where the walk last asked; infinity when it holds none. */
  private next = -1;

  private constructor(private readonly text: string, readonly names: ReadonlySet<string>, words: readonly string[]) {
    this.words = new Set(words);
    this.lengths = new Uint8Array(words.reduce((longest, word) => Math.max(longest, word.length), 0) + 1);
    for (const word of words) {
      this.lengths[word.length] = 1;
      this.firsts[word.charCodeAt(0)] = 1;
    }
  }

  /** Undefined, for the whole outline, when a name's last part is no plain word: the text need not hold it as cited (`operator +`). */
  static of(text: string, wanted: WantedSymbols): WantedWords | undefined {
    const names = new Set(wanted.names);
    const words = [...names].map((name) => name.slice(name.lastIndexOf('.') + 1));
    return words.every((word) => PLAIN_WORD.test(word)) ? new WantedWords(text, names, words) : undefined;
  }

  /** Whether [start, end) holds a wanted word; `start` never goes back from one call to the next (the walk is in document order). */
  holds(start: number, end: number): boolean {
    if (this.next < start) this.next = this.find(start);
    return this.next < end;
  }

  /** Where the first wanted word at or after `from` starts: a word is a run of word characters, so one begun before `from` is none. */
  private find(from: number): number {
    const { text, lengths, firsts } = this;
    const length = text.length;
    let at = from;
    while (at > 0 && at < length && isWordCode(text.charCodeAt(at - 1))) at++;
    while (at < length) {
      const code = text.charCodeAt(at);
      if (!isWordCode(code)) {
        at++;
        continue;
      }
      let end = at + 1;
      while (end < length && isWordCode(text.charCodeAt(end))) end++;
      const size = end - at;
      if (size < lengths.length && lengths[size] === 1 && firsts[code] === 1 && this.words.has(text.slice(at, end))) return at;
      at = end;
    }
    return Number.POSITIVE_INFINITY;
  }
}

/** ASCII only: a word is found as a run of the characters isWordCode knows. */
const PLAIN_WORD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An ASCII letter, digit or underscore (NaN, before the text or after it, is none). */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/**
 * The outline a parse needs: partial when only some names are wanted. Not finding one is no answer,
 * though: its declaration may not hold it as cited (`Cardinality Between`, after a macro), and a
 * whole outline decides. (A function of its own: a closure here would keep the syntax tree's nodes
 * alive with the symbols.)
 */
function outlineFor(root: Node, grammar: Grammar, rules: LanguageRules, only: WantedWords | undefined): { index: ReturnType<typeof outline>; partial?: FileSymbols['partial'] } {
  if (only) {
    const index = outline(root, grammar, rules, only);
    let found = true;
    for (const name of only.names) found &&= index.pieces.has(name);
    if (found) return { index, partial: { names: only.names, wholeFile: true } };
  }
  return { index: outline(root, grammar, rules) };
}

/**
 * The declarations of a file, walked from the root: a declaration inside a container or scope is
 * its member; one inside anything else (a function body) is not a symbol, so function bodies are
 * never visited. Statement blocks are walked from JavaScript; other subtrees (expressions, which
 * rarely hold a declaration) are searched with the declarations query, inside WebAssembly.
 */
function outline(root: Node, grammar: Grammar, rules: LanguageRules, only?: WantedWords) {
  const pieces = new Map<string, Entry>();
  // Open declarations around the current one: `prefix` names its members; `members` is false inside a function; `whole`: inside a wanted one.
  const open: Array<{ end: number; prefix: string; members: boolean; inType: boolean; whole: boolean }> = [];
  /** In a partial outline, whether a node at [start, end) is walked: when it may hold a wanted declaration, or is inside one (a container's shape is made of its members). */
  const walked = (wanted: WantedWords, start: number, end: number): boolean => {
    while (open.length && open[open.length - 1].end <= start) open.pop();
    return open[open.length - 1]?.whole === true || wanted.holds(start, end);
  };
  /** Indexes one declaration (in document order): 'closed' when nothing inside it can be a symbol, 'nameless' when it declares no name, else its body. */
  /** `place`: where the walk found the node (asking the tree for a parent or sibling costs a descent from the root). */
  const add = (node: Node, type: string, place?: Place): 'closed' | 'nameless' | { body?: Node } => {
    while (open.length && open[open.length - 1].end <= node.startIndex) open.pop();
    const around = open[open.length - 1];
    if (around && !around.members) return 'closed';
    const rule = rules.declarations[type];
    const names = rule.names(node).map(citableName).filter(Boolean);
    if (!names.length) return rule.leaf ? 'closed' : 'nameless';
    const body = rule.body?.(node) ?? undefined;
    const kind = kindOf(rule, node);
    const opens = body !== undefined && (rule.scope === true || isContainer(rule, node));
    const end = node.endIndex;
    const made = rule.scope ? undefined : piece(node, type, end, body, rule.bodyToEnd === true, place, rules, grammar.commentTypes);
    for (const name of names) {
      const qualified = around ? `${around.prefix}.${name}` : name;
      if (made) record(pieces, qualified, kind === 'function' && around?.inType ? 'method' : kind, made);
      // Pushed for the last name only: a declaration with several names (`A, B int`) has no members.
      if (name === names[names.length - 1]) {
        open.push({ end, prefix: qualified, members: opens, inType: rule.scope === true || TYPE_KINDS.has(kind), whole: around?.whole === true || only?.names.has(qualified) === true });
      }
    }
    return opens ? { body } : 'closed';
  };
  /**
   * Visits a node's children in order. Declarations and blocks are visited one by one; a run of
   * other siblings (statements, expressions) is searched with one query over its range.
   */
  const visitChildren = (node: Node, body?: Node): void => {
    // What a wrapper holds besides its declarations (decorators, modifiers, a template's parameters) declares nothing.
    const wrapper = rules.wrappers?.includes(node.type) === true;
    let runStart = -1;
    let runEnd = -1;
    // Whether a node of the run has named children: a name, a type or a literal alone holds no declaration, and needs no query.
    let runNested = false;
    const flush = () => {
      // The binding counts query ranges in bytes of UTF-16: two per character.
      if (runNested && runEnd > runStart) {
        for (const { node: found } of grammar.declarations.captures(node, { startIndex: runStart * 2, endIndex: runEnd * 2 })) {
          if (found.id !== node.id && (!only || walked(only, found.startIndex, found.endIndex))) add(found, found.type);
        }
      }
      runStart = -1;
      runNested = false;
    };
    const children = node.namedChildren;
    for (let index = 0; index < children.length; index++) {
      const child = children[index];
      if (!child) continue;
      const type = child.type;
      const isBody = body !== undefined && child.id === body.id;
      if (isBody || Object.prototype.hasOwnProperty.call(rules.declarations, type) || grammar.walk.has(type)) {
        flush(); // first: the run's declarations come before this child, and the walk keeps to document order
        // A child ends before the next one starts: that start bounds it, without asking the tree.
        if (only && !walked(only, child.startIndex, children[index + 1]?.startIndex ?? node.endIndex)) continue;
        if (isBody) visitChildren(child);
        else visit(child, type, { parent: node, wrapper, siblings: children, index });
      } else if (!wrapper && !grammar.commentTypes.has(type) && !grammar.opaque.has(type)) {
        if (runStart < 0) runStart = child.startIndex;
        runEnd = child.endIndex;
        runNested ||= child.namedChildCount > 0;
      }
    }
    flush();
  };
  const visit = (node: Node, type: string, place: Place): void => {
    if (!Object.prototype.hasOwnProperty.call(rules.declarations, type)) return visitChildren(node); // a block
    const added = add(node, type, place);
    if (added === 'closed') return;
    // A body that is no child of its declaration (a typedef's struct): its members are read from it.
    if (added !== 'nameless' && added.body && rules.declarations[type].nestedBody) return visitChildren(added.body);
    // A nameless declaration holds what any block holds; a container: its signature's parts as any subtree, its body's members one by one.
    visitChildren(node, added === 'nameless' ? undefined : added.body);
  };
  visitChildren(root);
  // Each container's direct members, grouped in one pass when a container is first wanted: a header can have hundreds of each.
  let members: Map<string, Entry[]> | undefined;
  return {
    pieces,
    /** Finds the comments a wanted symbol's fingerprint needs (a container's: its members' signatures). */
    prepare(name: string, tokens: TokenText) {
      const entry = pieces.get(name);
      if (!entry?.roots) return;
      const container = CONTAINER_KINDS.has(entry.kind);
      entry.pieces.forEach((p, i) => {
        tokens.cover(p.sigStart, p.bodyStart, entry.roots![i].sig);
        if (!container) tokens.cover(p.bodyStart, p.bodyEnd, entry.roots![i].body ?? entry.roots![i].sig);
      });
      if (!container) return;
      members ??= groupByParent(pieces);
      for (const { pieces: memberPieces, roots } of members.get(name) ?? []) {
        if (roots) memberPieces.forEach((p, i) => tokens.cover(p.sigStart, p.bodyStart, roots[i].sig));
      }
    },
  };
}

/** `Outer.Inner.fn` is a direct member of `Outer.Inner`: the values of each name, by the name before its last dot. */
function groupByParent<T>(named: Iterable<[string, T]>): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const [name, item] of named) {
    const dot = name.lastIndexOf('.');
    if (dot < 0) continue;
    const parent = name.slice(0, dot);
    const group = groups.get(parent);
    if (group) group.push(item);
    else groups.set(parent, [item]);
  }
  return groups;
}

/**
 * The symbols of a file; a symbol is made from the outline's numbers, and hashed, when first read.
 * Names are found in the outline's one string, through two number arrays built on the first
 * lookup: a table of every declaration's name would cost far more memory across thousands of files.
 */
function symbolsOf(outline: Outline, tokens: TokenText, partial?: FileSymbols['partial']): FileSymbols {
  const { numbers, names } = outline;
  const computed = new Map<string, SourceSymbol>();
  let index: NameIndex | undefined;
  const make = (name: string, offset: number) => {
    let symbol = computed.get(name);
    if (!symbol) computed.set(name, (symbol = new LazySymbol(name, KINDS[numbers[offset]], piecesAt(numbers, offset), tokens)));
    return symbol;
  };
  const get = (name: string) => {
    const known = computed.get(name);
    if (known || !name || name.includes('\n')) return known;
    const offset = offsetOf((index ??= indexNames(outline)), names, name);
    return offset === undefined ? undefined : make(name, offset);
  };
  const nameAt = ({ starts }: NameIndex, i: number) => names.slice(starts[i], i + 1 < starts.length ? starts[i + 1] - 1 : names.length);
  let all: Map<string, SourceSymbol> | undefined;
  /** Declarations by container, as indexes into the name index, in document order. */
  let byParent: Map<string, number[]> | undefined;
  let fingerprint: string | undefined;
  return {
    partial,
    get symbols() {
      if (partial) throw new Error('Only the wanted declarations of this file were read: parse it again, wanting nothing, to read every declaration.');
      if (!all) {
        const at = (index ??= indexNames(outline));
        all = new Map();
        for (let i = 0; i < at.starts.length; i++) {
          const symbol = make(nameAt(at, i), at.offsets[i]);
          all.set(symbol.name, symbol);
        }
      }
      return all;
    },
    get,
    members(name: string) {
      const at = (index ??= indexNames(outline));
      byParent ??= groupByParent(Array.from(at.starts, (_, i): [string, number] => [nameAt(at, i), i]));
      return (byParent.get(name) ?? []).map((i) => make(nameAt(at, i), at.offsets[i]));
    },
    get fingerprint() {
      return (fingerprint ??= hex8(tokens.hash(0, Number.MAX_SAFE_INTEGER).hash));
    },
  };
}

/** Where each name starts in the names string, and where its declaration's numbers start. */
interface NameIndex {
  starts: Int32Array;
  offsets: Int32Array;
}

function indexNames({ numbers, names }: Outline): NameIndex {
  let count = names ? 1 : 0;
  for (let i = names.indexOf('\n'); i >= 0; i = names.indexOf('\n', i + 1)) count++;
  const starts = new Int32Array(count);
  const offsets = new Int32Array(count);
  for (let i = 0, start = 0, offset = 0; i < count; i++) {
    starts[i] = start;
    offsets[i] = offset;
    start = names.indexOf('\n', start) + 1;
    offset += 2 + numbers[offset + 1] * PIECE_SIZE;
  }
  return { starts, offsets };
}

/** Where a declaration's numbers start, found by its name's place among the names. */
function offsetOf({ starts, offsets }: NameIndex, names: string, name: string): number | undefined {
  for (let at = names.indexOf(name); at >= 0; at = names.indexOf(name, at + 1)) {
    const end = at + name.length;
    if ((at > 0 && names.charCodeAt(at - 1) !== NEWLINE) || (end < names.length && names.charCodeAt(end) !== NEWLINE)) continue;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= at) low = mid;
      else high = mid - 1;
    }
    return offsets[low];
  }
  return undefined;
}

const TYPE_KINDS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(['class', 'struct', 'interface', 'trait', 'enum']);

/** A name as citations write it: template arguments (`Foo<T>`, not an operator such as `<=>`) and whitespace left out. */
function citableName(name: string): string {
  if (/^[\w.$]*$/.test(name)) return name; // the common case: nothing to drop
  let plain = name;
  for (let previous = ''; previous !== plain; ) {
    previous = plain;
    plain = plain.replace(/(?<=[\w$])<(?![=<])[^<>]*>/g, '');
  }
  return plain.replace(/\s+/g, '');
}

function kindOf(rule: DeclarationRule, node: Node): SymbolKind {
  return typeof rule.kind === 'function' ? rule.kind(node) : rule.kind;
}

function isContainer(rule: DeclarationRule, node: Node): boolean {
  return typeof rule.container === 'function' ? rule.container(node) : rule.container === true;
}

function record(pieces: Map<string, Entry>, name: string, kind: SymbolKind, made: { piece: Piece; roots: { sig: Node; body?: Node } }): void {
  const entry = pieces.get(name);
  // Overloads and redefinitions make one symbol: the first one's kind, every piece hashed in order.
  if (entry) {
    entry.pieces.push(made.piece);
    entry.roots?.push(made.roots);
  } else pieces.set(name, { kind, pieces: [made.piece], roots: [made.roots] });
}

/** Where the walk found a declaration: its parent, and its parent's named children around it. */
interface Place {
  parent: Node;
  /** The parent is one of the language's wrappers. */
  wrapper: boolean;
  siblings: ReadonlyArray<Node | null>;
  index: number;
}

function piece(node: Node, type: string, end: number, body: Node | undefined, bodyToEnd: boolean, place: Place | undefined, rules: LanguageRules, commentTypes: ReadonlySet<string>): { piece: Piece; roots: { sig: Node; body?: Node } } {
  // Decorators, attributes and modifiers belong to the signature: of the first declaration they wrap,
  // so that `public const A = 1, B = 2;` does not make A's value part of B's signature. Wrappers
  // are walked, so a wrapped declaration always has its place (one a query found is inside an expression).
  const wrapped = place?.wrapper && !hasEarlier(type, place);
  const start = wrapped ? place.parent : node;
  let first = start;
  if (rules.leadingAttributes) {
    // A comment between an attribute and its item does not part them. The walk's list of siblings
    // answers without asking the tree, which finds a sibling by descending from the root.
    const known = !wrapped && place;
    let at = known ? place.index : 0;
    const previous = (sibling: Node): Node | null => (known ? (--at >= 0 ? place.siblings[at] : null) : sibling.previousNamedSibling);
    for (let sibling = previous(start); sibling && (rules.leadingAttributes.includes(sibling.type) || commentTypes.has(sibling.type)); sibling = previous(sibling)) {
      if (!commentTypes.has(sibling.type)) first = sibling;
    }
  }
  const bodyStart = body ? body.startIndex : end;
  return {
    piece: {
      sigStart: first.startIndex,
      bodyStart,
      bodyEnd: body ? (bodyToEnd ? end : body.endIndex) : end,
      end,
      startLine: first.startPosition.row,
    },
    // Attributes before a declaration are its siblings: their parent holds the whole signature.
    roots: { sig: first === start ? start : ((wrapped ? undefined : place?.parent) ?? start.parent ?? start), body: body && bodyToEnd ? node : body },
  };
}

/** Whether a declaration of the same type comes before this one in its parent. */
function hasEarlier(type: string, { siblings, index }: Place): boolean {
  for (let i = 0; i < index; i++) if (siblings[i]?.type === type) return true;
  return false;
}

function piecesAt(numbers: Int32Array, offset: number): Piece[] {
  const pieces: Piece[] = [];
  for (let count = numbers[offset + 1], at = offset + 2; count > 0; count--, at += PIECE_SIZE) {
    pieces.push({ sigStart: numbers[at], bodyStart: numbers[at + 1], bodyEnd: numbers[at + 2], end: numbers[at + 3], startLine: numbers[at + 4] });
  }
  return pieces;
}

/** A symbol whose hashes are taken only when read: a container's anchor records its shape instead of its body. */
class LazySymbol implements SourceSymbol {
  readonly startLine: number;
  private lastLine?: number;
  private sigHash?: number;
  private bodyHash?: string;
  private empty = false;

  constructor(
    readonly name: string,
    readonly kind: SymbolKind,
    private readonly pieces: Piece[],
    private readonly tokens: TokenText,
  ) {
    let startLine = pieces[0].startLine;
    for (const p of pieces) startLine = Math.min(startLine, p.startLine);
    this.startLine = startLine;
  }

  get endLine(): number {
    if (this.lastLine === undefined) {
      let endLine = 0;
      for (const p of this.pieces) endLine = Math.max(endLine, p.startLine + this.tokens.newlines(p.sigStart, p.end));
      this.lastLine = endLine;
    }
    return this.lastLine;
  }

  private sigOf(): number {
    if (this.sigHash === undefined) {
      // A container's citation reads only signatures: its body was never looked into for comments.
      const sigs = this.pieces.map((p) => this.tokens.hash(p.sigStart, p.bodyStart).hash);
      this.sigHash = sigs.length === 1 ? sigs[0] : combined(sigs.sort((a, b) => a - b));
    }
    return this.sigHash;
  }

  private bodyOf(): string {
    if (this.bodyHash === undefined) {
      const pieces = this.pieces.length === 1 ? undefined : this.hashedPieces();
      let hash = FNV_OFFSET;
      let chars = 0;
      let hasBody = false;
      if (pieces) {
        const bodies = pieces.filter((p) => p.body !== undefined);
        hash = combined(bodies.map((p) => p.body!));
        for (const p of bodies) chars += p.chars;
        hasBody = bodies.length > 0;
      } else if (this.pieces[0].bodyStart < this.pieces[0].bodyEnd) {
        ({ hash, chars } = this.tokens.hash(this.pieces[0].bodyStart, this.pieces[0].bodyEnd));
        hasBody = true;
      }
      // Delimiters at most (`{}`, `:`, `end`): nothing to tell one such body from another.
      this.bodyHash = hex8(hasBody ? hash : this.sigOf());
      this.empty = hasBody && chars <= 3;
    }
    return this.bodyHash;
  }

  /** Each piece's hashes, in the order of their signatures then bodies: overloads moved around are the same symbol (sigOf sorts the same way). */
  private hashedPieces(): Array<{ sig: number; body?: number; chars: number }> {
    return this.pieces.map((p) => {
      const body = p.bodyStart < p.bodyEnd ? this.tokens.hash(p.bodyStart, p.bodyEnd) : undefined;
      return { sig: this.tokens.hash(p.sigStart, p.bodyStart).hash, body: body?.hash, chars: body?.chars ?? 0 };
    }).sort((a, b) => a.sig - b.sig || (a.body ?? -1) - (b.body ?? -1));
  }

  get sig(): string {
    return hex8(this.sigOf());
  }

  get body(): string {
    return this.bodyOf();
  }

  get emptyBody(): boolean {
    this.bodyOf();
    return this.empty;
  }
}

/**
 * A file's text, hashed as tokens: comments, whitespace, a comma before a closing bracket and a
 * backslash ending a line skipped (in Python, `'` hashed as `"`). Comments are known only in
 * the ranges `cover` looked into while the tree was alive; a hash elsewhere that may hold one
 * (a comment's first character is in it) gets every comment of the file, from a second parse.
 */
class TokenText {
  /** The comments known, as [start, end) pairs in one flat list; sorted when `sorted`. */
  private comments: number[] = [];
  private sorted = true;
  /** Where comments were looked for, as [start, end) pairs. */
  private readonly covered: number[] = [];
  private all = false;
  private readonly first: number;
  private readonly second: number;
  private readonly sameQuotes: boolean;

  constructor(
    private readonly text: string,
    syntax: TokenSyntax,
    private readonly commentTypes: ReadonlySet<string>,
    private readonly loadAll: () => number[],
  ) {
    this.first = syntax.commentStarts[0];
    this.second = syntax.commentStarts[1] ?? syntax.commentStarts[0];
    this.sameQuotes = syntax.sameQuotes;
  }

  /** How many lines end in [start, end). */
  newlines(start: number, end: number): number {
    let count = 0;
    for (let at = this.text.indexOf('\n', start); at >= 0 && at < end; at = this.text.indexOf('\n', at + 1)) count++;
    return count;
  }

  /** Whether a comment may start at `i`: a character comments start with (Ruby's `=begin` only at the start of a line). */
  private mayStartComment(i: number): boolean {
    const code = this.text.charCodeAt(i);
    if (code !== this.first && code !== this.second) return false;
    return code !== EQUALS || i === 0 || this.text.charCodeAt(i - 1) === NEWLINE;
  }

  /** Whether [start, end) may hold a comment: a comment may start in it. */
  private mayHaveComment(start: number, end: number): boolean {
    const stop = Math.min(end, this.text.length);
    for (let i = start; i < stop; i++) if (this.mayStartComment(i)) return true;
    return false;
  }

  /**
   * Finds the comments in [start, end) under `root`: where a comment may start, the syntax node
   * there says whether one does (far fewer calls than a query over every node of a body).
   */
  cover(start: number, end: number, root: Node): void {
    if (start >= end || this.all || this.isCovered(start, end)) return;
    const comments = this.comments;
    const stop = Math.min(end, this.text.length);
    for (let i = start; i < stop; i++) {
      if (!this.mayStartComment(i)) continue;
      for (let node: Node | null = root.descendantForIndex(i); node && node.startIndex === i; node = node.parent) {
        if (this.commentTypes.has(node.type)) {
          const commentEnd = node.endIndex;
          comments.push(i, commentEnd);
          this.sorted = false;
          i = commentEnd - 1;
          break;
        }
        if (node.id === root.id) break;
      }
    }
    this.covered.push(start, end);
  }

  addComments(captures: QueryCapture[], start: number, end: number): void {
    const comments = this.comments;
    for (const { node } of captures) comments.push(node.startIndex, node.endIndex);
    this.sorted = false;
    if (start === 0 && end >= this.text.length) this.all = true;
    else this.covered.push(start, end);
  }

  private isCovered(start: number, end: number): boolean {
    const covered = this.covered;
    for (let i = 0; i < covered.length; i += 2) if (covered[i] <= start && end <= covered[i + 1]) return true;
    return false;
  }

  private sort(): void {
    if (this.sorted) return;
    const flat = this.comments;
    const order = Array.from({ length: flat.length / 2 }, (_, pair) => 2 * pair).sort((a, b) => flat[a] - flat[b] || flat[a + 1] - flat[b + 1]);
    this.comments = order.flatMap((at) => [flat[at], flat[at + 1]]);
    this.sorted = true;
  }

  /** FNV-1a over [start, end), comments and whitespace skipped; also how many characters were hashed. */
  hash(start: number, end: number, seed = FNV_OFFSET): { hash: number; chars: number } {
    const text = this.text;
    const stop = Math.min(end, text.length);
    if (!this.all && start < stop && !this.isCovered(start, stop) && this.mayHaveComment(start, stop)) {
      this.comments = this.loadAll();
      this.sorted = false;
      this.all = true;
    }
    this.sort();
    const comments = this.comments;
    let hash = seed;
    let chars = 0;
    // `comment`: the flat index of the first comment that may cover or follow i.
    let comment = firstEndingAfter(comments, start);
    for (let i = start; i < stop; i++) {
      while (comment < comments.length && comments[comment + 1] <= i) comment += 2;
      if (comment < comments.length && comments[comment] <= i) {
        i = comments[comment + 1] - 1;
        continue;
      }
      let code = text.charCodeAt(i);
      if (isSpace(code)) continue;
      if (code === COMMA && this.closerFollows(i + 1, stop, comment)) continue;
      if (code === BACKSLASH && (text.charCodeAt(i + 1) === NEWLINE || (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === NEWLINE))) continue;
      if (code === SINGLE_QUOTE && this.sameQuotes) code = DOUBLE_QUOTE;
      hash = Math.imul(hash ^ code, FNV_PRIME);
      chars++;
    }
    return { hash: hash >>> 0, chars };
  }

  /** Whether the next token after `from` (before `stop`, past whitespace and comments) closes a bracket. */
  private closerFollows(from: number, stop: number, comment: number): boolean {
    const comments = this.comments;
    for (let i = from; i < stop; i++) {
      while (comment < comments.length && comments[comment + 1] <= i) comment += 2;
      if (comment < comments.length && comments[comment] <= i) {
        i = comments[comment + 1] - 1;
        continue;
      }
      const code = this.text.charCodeAt(i);
      if (!isSpace(code)) return CLOSERS.has(code);
    }
    return false;
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

/** The flat index of the first [start, end) pair that may cover `index` or come after it (pairs sorted by start). */
function firstEndingAfter(pairs: ArrayLike<number>, index: number): number {
  let low = 0;
  let high = pairs.length / 2;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (pairs[2 * mid] < index) low = mid + 1;
    else high = mid;
  }
  // A pair starting before `index` may still cover it.
  while (low > 0 && pairs[2 * low - 1] > index) low--;
  return 2 * low;
}

/** FNV-1a over a list of 32-bit hashes, a byte at a time. */
function combined(hashes: readonly number[]): number {
  let hash = FNV_OFFSET;
  for (const value of hashes) for (let shift = 0; shift < 32; shift += 8) hash = Math.imul(hash ^ ((value >>> shift) & 0xff), FNV_PRIME);
  return hash >>> 0;
}
