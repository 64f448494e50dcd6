// Symbol index of one TS/JS file for drift checks: parse the single file (never a Program) and
// name its declarations; fingerprints are computed from the text with the TS scanner when first
// read, so a drift pass only pays for the symbols its pages cite.
//
// Names: `Foo`, `Class.member`, `Iface.member`, `Enum.Member`, `Ns.Inner.fn`, `default`. Every
// declaration directly in the file or in a namespace counts, exported or not; nothing inside
// function bodies does. `declare module 'x'` and `declare global` are transparent (no name).
// All declarations of one name (overloads, declaration merging) make one symbol: the first
// one's kind wins, lines span them all, and sig and body hash their pieces in source order.
//
// Fingerprint = FNV-1a 32 over the normalised tokens, each followed by one space: the scanner's
// tokens without comments or whitespace, string literals as "value" (quote style and escapes
// do not matter), trailing commas before `)` `]` `}` `>` and the leading `|` or `&` of a union
// or intersection dropped, so formatters never cause drift. JSX text counts as one string, its
// value as JSX reads it (line breaks and indentation dropped): the scanner alone would read an
// apostrophe in it as the start of a string and `//` as a comment.
//
// Each declaration has one split point: sig = tokens before it (for variables, also the
// `export const` of their statement), body = tokens after it; with nothing after it, body = sig.
// Split points: the body block of functions, methods, accessors and constructors; the `{` after
// the header of classes, interfaces, enums and namespaces (so a class's body changes with any
// member); the value of variables, properties, enum members and `export default`, or the body
// of that value when it is an arrow function or function expression; the type of a type alias.
import ts from 'typescript';
import { TS_LIKE } from '../../core/drift/citations';
import { hex8, type FileSymbols, type ReExport, type SourceSymbol, type SymbolKind, type SymbolParser } from '../../core/drift/symbols';
import { LruCache } from '../lruCache';
import { declarationRuns, runsDeclaring, type DeclarationRuns } from './declarationChunks';
import { findReExports } from './reExports';
import { regexMayFollow } from './scan';

export const TS_EXTENSIONS: readonly string[] = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

export function isTsLike(path: string): boolean {
  return TS_LIKE.test(path);
}

function scriptKind(fileName: string): ts.ScriptKind {
  const ext = /\.[^./\\]*$/.exec(fileName)?.[0].toLowerCase();
  if (ext === '.tsx') return ts.ScriptKind.TSX;
  if (ext === '.jsx') return ts.ScriptKind.JSX;
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs') return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

const K = ts.SyntaxKind;

/** Punctuation after which `|` or `&` cannot be binary, so it leads a multi-line union (a formatter's choice). */
function closesNothing(prev: ts.SyntaxKind): boolean {
  return prev >= K.FirstPunctuation && prev <= K.LastPunctuation && !ENDS_OPERAND.has(prev);
}

// Punctuation that can end an operand: `(x) | y`, `a[0] | y`, `T<U> | V`, `i++ | y`, `x! | y`.
const ENDS_OPERAND = new Set([K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken, K.GreaterThanToken, K.PlusPlusToken, K.MinusMinusToken, K.ExclamationToken]);

/** Start → end of each JSX text in the file, so hashing reads it as text rather than code. */
function jsxTexts(file: ts.SourceFile): Map<number, number> {
  const texts = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node)) texts.set(node.pos, node.end);
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return texts;
}

/** JSX text as JSX reads it: lines trimmed where they meet a line break, blank lines dropped, joined by a space. */
function jsxTextValue(raw: string): string {
  const lines = raw.split(/\r\n|[\r\n\u2028\u2029]/);
  return lines
    .map((line, i) => (i > 0 ? line.trimStart() : line))
    .map((line, i) => (i < lines.length - 1 ? line.trimEnd() : line))
    .filter((line) => line !== '')
    .join(' ');
}

const PARAMETER_PROPERTY = new Set([K.PublicKeyword, K.PrivateKeyword, K.ProtectedKeyword, K.ReadonlyKeyword, K.OverrideKeyword]);

function memberName(name: ts.PropertyName | undefined): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined; // computed names cannot be cited
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === kind);
}

/** Where the body part of an initialised declaration starts: a function value's body, else the value. */
function valueSplit(value: ts.Expression | undefined, end: number): number {
  if (!value) return end;
  let inner: ts.Expression = value;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  return ts.isArrowFunction(inner) || ts.isFunctionExpression(inner) ? inner.body.pos : value.pos;
}

/** One declaration of a name: sig = tokens of [headPos, headEnd) + [pos, split); body = tokens of [split, end). */
interface Piece {
  headPos: number;
  headEnd: number;
  pos: number;
  split: number;
  end: number;
}

/**
 * One qualified name. Hashes and lines are computed on first read (only cited symbols ever are)
 * and kept; the AST is not.
 */
class Entry {
  readonly pieces: Piece[] = [];
  private hashes?: { sig: string; body: string };
  private lines?: { start: number; end: number };

  constructor(private readonly source: SourceText, readonly kind: SymbolKind) {}

  fingerprints(): { sig: string; body: string } {
    if (!this.hashes) {
      let sig = FNV_OFFSET;
      let body = FNV_OFFSET;
      let hasBody = false;
      for (const p of this.pieces) {
        sig = this.source.hash(this.source.hash(sig, p.headPos, p.headEnd), p.pos, p.split);
        if (p.split < p.end) {
          body = this.source.hash(body, p.split, p.end);
          hasBody = true;
        }
      }
      this.hashes = { sig: hex8(sig), body: hex8(hasBody ? body : sig) };
    }
    return this.hashes;
  }

  lineRange(): { start: number; end: number } {
    if (!this.lines) {
      const first = this.pieces[0];
      const last = this.pieces[this.pieces.length - 1];
      this.lines = { start: this.source.line(this.source.tokenStart(first.headPos)), end: this.source.line(last.end) };
    }
    return this.lines;
  }

  symbol(name: string): SourceSymbol {
    const entry = this;
    // Own enumerable getters: spreads, deepEqual and postMessage all read them.
    return {
      name,
      kind: entry.kind,
      get startLine() { return entry.lineRange().start; },
      get endLine() { return entry.lineRange().end; },
      get sig() { return entry.fingerprints().sig; },
      get body() { return entry.fingerprints().body; },
    };
  }
}

/** What the lazy fingerprints of one file need: its text and the parser's (shared) scanner. */
class SourceText {
  private lineStarts?: number[];

  constructor(
    private readonly scanner: ts.Scanner,
    private readonly text: string,
    private readonly variant: ts.LanguageVariant,
    private readonly jsxTexts: ReadonlyMap<number, number>,
  ) {}

  /** 0-based line of `pos`; `\n`, `\r\n` and a lone `\r` end a line, as in VS Code. */
  line(pos: number): number {
    if (!this.lineStarts) {
      const starts = [0];
      const text = this.text;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
      }
      this.lineStarts = starts;
    }
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Where the first token at or after `pos` starts (skips comments and whitespace). */
  tokenStart(pos: number): number {
    this.scanner.setText(this.text, pos, this.text.length - pos);
    return this.scanner.scan() === K.EndOfFileToken ? pos : this.scanner.getTokenStart();
  }

  /**
   * Continues FNV-1a `hash` over the normalised tokens in [from, to), each followed by a space:
   * string literals and JSX text as `"value"`, trailing commas dropped, comments and whitespace skipped.
   */
  hash(hash: number, from: number, to: number): number {
    if (from >= to) return hash;
    const { scanner, text } = this;
    scanner.setText(text, from, to - from);
    scanner.setLanguageVariant(this.variant);
    let prev: ts.SyntaxKind = K.Unknown;
    let braces = 0;
    const templates: number[] = []; // brace depth at each open `${`
    for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
      // The scanner alone cannot tell template continuations and regexes apart: the parser's rules, in brief.
      if (token === K.OpenBraceToken) braces++;
      else if (token === K.CloseBraceToken) {
        if (templates.length && templates[templates.length - 1] === braces) {
          token = scanner.reScanTemplateToken(false);
          if (token === K.TemplateTail) templates.pop();
        } else braces--;
      } else if (token === K.TemplateHead) templates.push(braces);
      else if ((token === K.SlashToken || token === K.SlashEqualsToken) && regexMayFollow(prev)) token = scanner.reScanSlashToken();

      if (prev === K.CommaToken && !(token === K.CloseParenToken || token === K.CloseBracketToken || token === K.CloseBraceToken || token === K.GreaterThanToken)) {
        hash = Math.imul(Math.imul(hash ^ 0x2c, FNV_PRIME) ^ 0x20, FNV_PRIME); // the held-back comma was not trailing
      }
      const leadingBar = (token === K.BarToken || token === K.AmpersandToken) && (prev === K.Unknown || closesNothing(prev));
      prev = token;
      if (token === K.CommaToken || leadingBar) continue;
      if (token === K.StringLiteral) hash = hashString(hash, scanner.getTokenValue());
      else {
        for (let i = scanner.getTokenStart(), end = scanner.getTokenEnd(); i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
        hash = Math.imul(hash ^ 0x20, FNV_PRIME);
      }
      // JSX text starts right after a token (`>` or `}`); hash its value and scan on after it.
      const jsxTextEnd = this.jsxTexts.get(scanner.getTokenEnd());
      if (jsxTextEnd !== undefined) {
        const end = Math.min(jsxTextEnd, to);
        const value = jsxTextValue(text.slice(scanner.getTokenEnd(), end));
        if (value) hash = hashString(hash, value);
        scanner.resetTokenState(end);
        prev = K.JsxText;
      }
    }
    if (prev === K.CommaToken) hash = Math.imul(Math.imul(hash ^ 0x2c, FNV_PRIME) ^ 0x20, FNV_PRIME);
    return hash;
  }
}

/** Continues `hash` over `"value" `. */
function hashString(hash: number, value: string): number {
  hash = Math.imul(hash ^ 0x22, FNV_PRIME);
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), FNV_PRIME);
  hash = Math.imul(hash ^ 0x22, FNV_PRIME);
  return Math.imul(hash ^ 0x20, FNV_PRIME);
}

interface ParseCounts {
  wholeFiles: number;
  runs: number;
}

const PARSE_OPTIONS: ts.CreateSourceFileOptions = {
  languageVersion: ts.ScriptTarget.Latest,
  // No JSDoc parsing: comments never matter here, and JSDoc is a large share of parse time.
  jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
};

export class TsSymbolParser implements SymbolParser {
  // One scanner for every file this parser reads; parsing and the lazy getters are synchronous.
  private readonly scanner = ts.createScanner(ts.ScriptTarget.Latest, /*skipTrivia*/ true);
  /** How many parses were of whole files and how many of runs of statements. */
  readonly parses: ParseCounts = { wholeFiles: 0, runs: 0 };

  /** Nothing is parsed until a symbol or the fingerprint is asked for. */
  parse(fileName: string, text: string): FileSymbols {
    return new ParsedFile(this.scanner, this.parses, fileName, text);
  }
}

/**
 * One file's declarations. A lookup of a TypeScript file parses only the runs of statements that
 * may declare the name's first part (see declarationChunks.ts); `symbols`, a JSX-capable file, or a
 * run that does not parse on its own, parse the whole file.
 */
class ParsedFile implements FileSymbols {
  private readonly kind: ts.ScriptKind;
  private whole?: { source: SourceText; symbols: Map<string, SourceSymbol> };
  private runs?: { split: DeclarationRuns; entries: Map<number, Map<string, Entry>> };
  private plain?: SourceText;
  private runsFailed = false;
  private readonly found = new Map<string, SourceSymbol | undefined>();
  private fileHash?: string;
  private exportedFrom?: readonly ReExport[];

  constructor(
    private readonly scanner: ts.Scanner,
    private readonly counts: ParseCounts,
    private readonly fileName: string,
    private readonly text: string,
  ) {
    this.kind = scriptKind(fileName);
  }

  get symbols(): Map<string, SourceSymbol> {
    return this.parseWhole().symbols;
  }

  get fingerprint(): string {
    // Telling JSX text from code needs the parse; plain TypeScript needs only the scanner.
    const source = this.kind === ts.ScriptKind.TS ? this.plainSource() : this.parseWhole().source;
    return (this.fileHash ??= hex8(source.hash(FNV_OFFSET, 0, this.text.length)));
  }

  /** Parsed on first use: only a citation that the file does not declare asks. */
  reExports(): readonly ReExport[] {
    return (this.exportedFrom ??= findReExports(this.fileName, this.text, this.kind));
  }

  get(name: string): SourceSymbol | undefined {
    if (this.whole || this.runsFailed || this.kind !== ts.ScriptKind.TS) return this.symbols.get(name);
    if (!this.found.has(name)) {
      const symbol = this.lookUp(name);
      if (symbol === null) return this.symbols.get(name);
      this.found.set(name, symbol);
    }
    return this.found.get(name);
  }

  /** A container's direct members from the runs that declare it, so a shape never parses the whole file. */
  members(name: string): SourceSymbol[] {
    const prefix = `${name}.`;
    const direct = (names: Iterable<string>) => [...new Set(names)].filter((member) => member.startsWith(prefix) && !member.includes('.', prefix.length));
    if (!this.whole && !this.runsFailed && this.kind === ts.ScriptKind.TS) {
      const names: string[] = [];
      for (const run of runsDeclaring(this.text, this.runState().split, name.split('.')[0])) {
        const entries = this.runEntries(run);
        if (!entries) {
          this.runsFailed = true;
          break;
        }
        names.push(...entries.keys());
      }
      if (!this.runsFailed) return direct(names).map((member) => this.get(member)).filter((symbol): symbol is SourceSymbol => symbol !== undefined);
    }
    return direct(this.symbols.keys()).map((member) => this.symbols.get(member)!);
  }

  /** The symbol from the runs that may declare it; null when one of them does not parse alone. */
  private lookUp(name: string): SourceSymbol | undefined | null {
    const runs = this.runState();
    let merged: Entry | undefined;
    for (const run of runsDeclaring(this.text, runs.split, name.split('.')[0])) {
      const entries = this.runEntries(run);
      if (!entries) {
        this.runsFailed = true;
        return null;
      }
      const entry = entries.get(name);
      if (!entry) continue;
      merged ??= new Entry(this.plainSource(), entry.kind);
      merged.pieces.push(...entry.pieces);
    }
    return merged?.symbol(name);
  }

  private runEntries(run: number): Map<string, Entry> | undefined {
    const runs = this.runState();
    let entries = runs.entries.get(run);
    if (!entries) {
      const start = runs.split.starts[run];
      this.counts.runs++;
      const file = ts.createSourceFile(this.fileName, this.text.slice(start, runs.split.starts[run + 1] ?? this.text.length), PARSE_OPTIONS, false, ts.ScriptKind.TS);
      if ((file as unknown as { parseDiagnostics: readonly unknown[] }).parseDiagnostics.length) return undefined;
      entries = new DeclarationIndex(this.plainSource(), start).index(file.statements);
      runs.entries.set(run, entries);
    }
    return entries;
  }

  private runState(): NonNullable<ParsedFile['runs']> {
    this.runs ??= { split: declarationRuns(this.text), entries: new Map() };
    return this.runs;
  }

  /** The text for hashing when no JSX is possible: no parse needed. */
  private plainSource(): SourceText {
    return (this.plain ??= new SourceText(this.scanner, this.text, ts.LanguageVariant.Standard, new Map()));
  }

  private parseWhole(): NonNullable<ParsedFile['whole']> {
    if (!this.whole) {
      this.counts.wholeFiles++;
      const file = ts.createSourceFile(this.fileName, this.text, PARSE_OPTIONS, false, this.kind);
      // JSX is allowed in .js files too, as in the parser.
      const jsx = file.languageVariant === ts.LanguageVariant.JSX;
      const source = new SourceText(this.scanner, this.text, file.languageVariant, jsx ? jsxTexts(file) : new Map());
      const symbols = new Map<string, SourceSymbol>();
      for (const [name, entry] of new DeclarationIndex(source).index(file.statements)) symbols.set(name, entry.symbol(name));
      this.whole = { source, symbols };
    }
    return this.whole;
  }
}

/** Names the declarations of a statement list; `offset` places a run parsed alone within its file. */
class DeclarationIndex {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly source: SourceText, private readonly offset = 0) {}

  index(statements: readonly ts.Statement[]): Map<string, Entry> {
    this.statements(statements, '');
    return this.entries;
  }

  private add(name: string, kind: SymbolKind, pos: number, split: number, end: number, headPos = pos, headEnd = headPos): void {
    let entry = this.entries.get(name);
    if (!entry) this.entries.set(name, (entry = new Entry(this.source, kind)));
    const at = this.offset;
    entry.pieces.push({ headPos: headPos + at, headEnd: headEnd + at, pos: pos + at, split: split + at, end: end + at });
  }

  /** Names a declaration gets: its own and, with `export default`, also `default`. */
  private names(node: ts.Node, own: string | undefined, prefix: string): string[] {
    const names = own !== undefined ? [prefix + own] : [];
    if (!prefix && hasModifier(node, K.DefaultKeyword)) names.unshift('default');
    return names;
  }

  private statements(statements: readonly ts.Statement[], prefix: string): void {
    for (const node of statements) this.statement(node, prefix);
  }

  private statement(node: ts.Statement, prefix: string): void {
    if (ts.isFunctionDeclaration(node)) {
      for (const name of this.names(node, node.name?.text, prefix)) this.add(name, 'function', node.pos, node.body?.pos ?? node.end, node.end);
    } else if (ts.isClassDeclaration(node)) {
      const names = this.names(node, node.name?.text, prefix);
      for (const name of names) this.add(name, 'class', node.pos, node.members.pos, node.end);
      if (names.length) this.classMembers(node.members, names[names.length - 1] + '.');
    } else if (ts.isInterfaceDeclaration(node)) {
      for (const name of this.names(node, node.name.text, prefix)) this.add(name, 'interface', node.pos, node.members.pos, node.end);
      this.typeMembers(node.members, prefix + node.name.text + '.');
    } else if (ts.isTypeAliasDeclaration(node)) {
      this.add(prefix + node.name.text, 'type', node.pos, node.type.pos, node.end);
      if (ts.isTypeLiteralNode(node.type)) this.typeMembers(node.type.members, prefix + node.name.text + '.');
    } else if (ts.isEnumDeclaration(node)) {
      const enumName = prefix + node.name.text;
      this.add(enumName, 'enum', node.pos, node.members.pos, node.end);
      for (const member of node.members) {
        const name = memberName(member.name);
        if (name !== undefined) this.add(`${enumName}.${name}`, 'enum-member', member.pos, valueSplit(member.initializer, member.end), member.end);
      }
    } else if (ts.isModuleDeclaration(node)) {
      this.namespace(node, prefix);
    } else if (ts.isVariableStatement(node)) {
      const list = node.declarationList;
      for (const decl of list.declarations) {
        const split = valueSplit(decl.initializer, decl.end);
        for (const name of bindingNames(decl.name)) this.add(prefix + name, 'variable', decl.pos, split, decl.end, node.pos, list.declarations.pos);
      }
    } else if (ts.isExportAssignment(node) && !node.isExportEquals && !prefix) {
      this.add('default', 'default', node.pos, valueSplit(node.expression, node.end), node.end);
    }
  }

  private namespace(node: ts.ModuleDeclaration, prefix: string): void {
    let inner = prefix;
    // `declare module 'x'` and `declare global` add no name; `namespace A.B` nests B inside A.
    if (ts.isIdentifier(node.name) && !(node.flags & ts.NodeFlags.GlobalAugmentation)) {
      inner = prefix + node.name.text;
      this.add(inner, 'namespace', node.pos, node.body?.pos ?? node.end, node.end);
      inner += '.';
    }
    if (!node.body) return;
    if (ts.isModuleDeclaration(node.body)) this.namespace(node.body, inner);
    else if (ts.isModuleBlock(node.body)) this.statements(node.body.statements, inner);
  }

  private classMembers(members: readonly ts.ClassElement[], prefix: string): void {
    for (const member of members) {
      if (ts.isConstructorDeclaration(member)) {
        this.add(prefix + 'constructor', 'constructor', member.pos, member.body?.pos ?? member.end, member.end);
        for (const param of member.parameters) {
          const name = ts.isIdentifier(param.name) ? param.name.text : undefined;
          if (name && ts.getModifiers(param)?.some((m) => PARAMETER_PROPERTY.has(m.kind))) this.add(prefix + name, 'property', param.pos, param.end, param.end);
        }
        continue;
      }
      const name = memberName(member.name);
      if (name === undefined) continue;
      if (ts.isMethodDeclaration(member)) this.add(prefix + name, 'method', member.pos, member.body?.pos ?? member.end, member.end);
      else if (ts.isGetAccessor(member) || ts.isSetAccessor(member)) this.add(prefix + name, 'accessor', member.pos, member.body?.pos ?? member.end, member.end);
      else if (ts.isPropertyDeclaration(member)) this.add(prefix + name, 'property', member.pos, valueSplit(member.initializer, member.end), member.end);
    }
  }

  private typeMembers(members: readonly ts.TypeElement[], prefix: string): void {
    for (const member of members) {
      const name = memberName(member.name);
      if (name === undefined) continue;
      const kind: SymbolKind | undefined = ts.isMethodSignature(member) ? 'method'
        : ts.isPropertySignature(member) ? 'property'
          : ts.isGetAccessor(member) || ts.isSetAccessor(member) ? 'accessor' : undefined;
      if (kind) this.add(prefix + name, kind, member.pos, member.end, member.end);
    }
  }
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  const out: string[] = [];
  for (const element of name.elements) if (!ts.isOmittedExpression(element)) out.push(...bindingNames(element.name));
  return out;
}

/**
 * Wraps a parser with a bounded LRU cache per script kind, keyed by the text itself (the cached
 * symbols keep the text anyway, and a Map compares it faster than a digest could be taken), so an
 * unchanged file is never parsed twice. Results are shared between callers: treat them as read-only.
 */
export class CachingSymbolParser implements SymbolParser {
  hits = 0;
  misses = 0;
  private readonly caches = new Map<ts.ScriptKind, LruCache<string, FileSymbols>>();

  constructor(private readonly inner: SymbolParser, private readonly maxEntries = 2000) {}

  parse(fileName: string, text: string): FileSymbols {
    const kind = scriptKind(fileName);
    let cache = this.caches.get(kind);
    if (!cache) this.caches.set(kind, (cache = new LruCache(this.maxEntries)));
    const cached = cache.get(text);
    if (cached) {
      this.hits++;
      return cached;
    }
    this.misses++;
    const parsed = this.inner.parse(fileName, text);
    cache.set(text, parsed);
    return parsed;
  }
}
