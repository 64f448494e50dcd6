/** What a source parser reports about one file; the drift engine compares citations against it. */

export interface SourceSymbol {
  /** Qualified name as cited: `Foo`, `Foo.bar`, `Ns.Inner.fn`, `default`. */
  name: string;
  kind: SymbolKind;
  /** 0-based lines of the declaration (first overload to last, for overloads). */
  startLine: number;
  endLine: number;
  /** 8 hex chars: hash of the normalised declaration header (no body, comments or whitespace). */
  sig: string;
  /** 8 hex chars: hash of the normalised body (equal to `sig` when there is no body). */
  body: string;
  /** The body is empty (`{}`, `pass`): so many are alike that it identifies nothing, e.g. a rename. */
  emptyBody?: boolean;
}

export type SymbolKind =
  | 'function' | 'class' | 'method' | 'property' | 'accessor' | 'constructor' | 'interface'
  | 'type' | 'enum' | 'enum-member' | 'namespace' | 'variable' | 'default'
  | 'struct' | 'trait' | 'module';

/**
 * A name a module exports from another module. `export { a as b } from './m'` is
 * `{ exported: 'b', imported: 'a', from: './m' }`; `export * from './m'` exports `*`;
 * `export * as ns from './m'` imports `*` as `ns`. An imported binding exported again counts too.
 */
export interface ReExport {
  exported: string;
  imported: string;
  from: string;
}

export interface FileSymbols {
  /** The declaration with this qualified name; a parser may read only the parts of the file that can declare it. */
  get(name: string): SourceSymbol | undefined;
  /** Every declaration, keyed by qualified name; overloads are merged into one entry. */
  readonly symbols: Map<string, SourceSymbol>;
  /** 8 hex chars: hash of the whole file's normalised tokens (whitespace and comments ignored). */
  readonly fingerprint: string;
  /** What the file exports from other modules, for languages that have re-exports. */
  reExports?(): readonly ReExport[];
  /** A container's direct members, when the parser can find them without reading every declaration. */
  members?(name: string): SourceSymbol[];
  /**
   * Set when only what was wanted of the file was read (a parse on another thread, which keeps no
   * text here; or one here that walked only the declarations that may be wanted): `get` answers
   * these names, `fingerprint` the whole file only when it was wanted (or says so here),
   * `shapeOf` a wanted container's shape. Anything else needs the file parsed again.
   */
  readonly partial?: { readonly names: ReadonlySet<string>; readonly wholeFile: boolean; readonly outline?: boolean };
  /** Every top-level declaration's name, kind and first line, when the file's outline was wanted of a parse on another thread (nothing hashed). */
  outline?(): readonly DeclaredName[];
  /** A wanted container's shape (see containerShape), when the parser took it already. */
  shapeOf?(name: string): string | undefined;
}

/** The resolved type of cited symbols, from a type checker (semantic mode): a hash per symbol. */
export interface TypeFingerprints {
  /** 8 hex chars: hash of the symbol's type as the checker prints it; undefined when it has none. */
  typeOf(relPath: string, symbol: string): string | undefined;
  /** A file changed on disk. */
  invalidate(relPath: string): void;
}

/**
 * What a caller is about to read of a parse: these symbols' fingerprints, and the whole file's.
 * A parser may do the work for these while it still has the syntax tree, and read nothing else:
 * then its symbols say they are partial, and any other read needs a parse wanting nothing.
 */
export interface WantedSymbols {
  readonly names: Iterable<string>;
  readonly wholeFile?: boolean;
  /** Every top-level declaration's name, kind, first line number and that line, and nothing hashed: what the repository map reads of a file. */
  readonly outline?: boolean;
}

/** A declaration as an outline names it: no fingerprints. */
export interface DeclaredName {
  name: string;
  kind: SymbolKind;
  /** 0-based. */
  startLine: number;
  /** Its first line, as the repository map shows it, when the parse that outlined it took it (a parse thread's outline). */
  signature?: string;
}

/** Parses source text into symbols: TS/JS with the TypeScript compiler API, other languages with tree-sitter. */
export interface SymbolParser {
  /** Loads what parsing this file needs (a grammar); parse() may be called once it resolves. */
  prepare?(fileName: string): Promise<void>;
  parse(fileName: string, text: string, wanted?: WantedSymbols): FileSymbols;
  /** Threads for a batch of files (a full scan) to parse on every core; undefined where the parser has none. */
  threads?(fileNames: readonly string[]): ParseThreads | undefined;
}

/** Parses of one batch on other threads, started for its files' languages before the first file is read. */
export interface ParseThreads {
  /**
   * As parse(), with no prepare() first; the result may be partial. `read` gives the file's bytes
   * (up to the thread that parses them), called when a thread is ready for them: a batch holds
   * only the files being parsed, not every file it was given.
   */
  parse(fileName: string, read: () => Promise<Uint8Array>, wanted?: WantedSymbols): Promise<FileSymbols>;
  /** The batch is done: the threads, and their memory, go. */
  release(): Promise<void>;
}

/** Whether symbols answer these reads: all of them do, unless they are partial (see FileSymbols.partial); nothing wanted is everything. */
export function answersWanted(symbols: Pick<FileSymbols, 'partial'>, wanted: WantedSymbols | undefined): boolean {
  const partial = symbols.partial;
  if (!partial) return true;
  // An outline answers nothing else, and only an outline answers one.
  if (!wanted || (wanted.wholeFile && !partial.wholeFile) || wanted.outline !== partial.outline) return false;
  for (const name of wanted.names) if (!partial.names.has(name)) return false;
  return true;
}

/** Kinds whose citation means the declaration's shape (heritage, member names and signatures), not every line inside it. */
export const CONTAINER_KINDS: ReadonlySet<SymbolKind> = new Set<SymbolKind>(['class', 'interface', 'enum', 'namespace', 'struct', 'trait', 'module']);

/** The anchor string stored in page frontmatter for a symbol; a container's has its shape in place of its body. */
export function symbolAnchor(symbol: Pick<SourceSymbol, 'sig' | 'body'>, shape?: string): string {
  return shape === undefined ? `sig:${symbol.sig} body:${symbol.body}` : `sig:${symbol.sig} shape:${shape}`;
}

/**
 * A container's shape: the names and signatures of its direct members, by name (moving a member
 * or reformatting is not a change). A member's body is not part of it: its own citation tracks that.
 */
export function containerShape(file: Pick<FileSymbols, 'symbols' | 'members'>, container: Pick<SourceSymbol, 'name'>): string {
  const prefix = `${container.name}.`;
  const members = [...(file.members?.(container.name) ?? [...file.symbols.values()].filter((symbol) => symbol.name.startsWith(prefix) && !symbol.name.includes('.', prefix.length)))]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let hash = 0x811c9dc5;
  for (const member of members) {
    const text = `${member.name.slice(prefix.length)}:${member.sig};`;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  return hex8(hash);
}

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A 32-bit hash as the 8 hex characters fingerprints are written in (a byte table: toString(16) is slower). */
export function hex8(hash: number): string {
  return HEX_BYTES[hash >>> 24] + HEX_BYTES[(hash >>> 16) & 255] + HEX_BYTES[(hash >>> 8) & 255] + HEX_BYTES[hash & 255];
}

/** An anchor with the commit it was verified against, so "what changed" can show the code as it was. */
export function anchorAt(anchor: string, commit: string | undefined): string {
  return commit ? `${anchor} at:${commit.slice(0, 12)}` : anchor;
}

/** Whether two anchors record the same fingerprints, whatever commits they name. */
export function sameFingerprints(a: ParsedAnchor, b: ParsedAnchor): boolean {
  return a.sig === b.sig && a.body === b.body && a.shape === b.shape && a.file === b.file && a.type === b.type;
}

/** The anchor string for a whole-file citation. */
export function fileAnchor(fingerprint: string): string {
  return `file:${fingerprint}`;
}

export interface ParsedAnchor {
  sig?: string;
  body?: string;
  shape?: string;
  file?: string;
  /** The commit the citation was verified against, when the stamp knew it. */
  at?: string;
  /** The resolved type, when stamped in semantic mode. */
  type?: string;
}

const ANCHOR_KEYS: ReadonlySet<string> = new Set(['sig', 'body', 'shape', 'file', 'at', 'type']);

/** The parts of an anchor (`key:value` words; a value ends at a second colon). A save can re-check a thousand: no regular expressions. */
export function parseAnchor(anchor: string): ParsedAnchor {
  const out: ParsedAnchor = {};
  const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13);
  for (let start = 0; start < anchor.length; ) {
    while (start < anchor.length && isSpace(anchor.charCodeAt(start))) start++;
    let end = start;
    while (end < anchor.length && !isSpace(anchor.charCodeAt(end))) end++;
    const colon = anchor.indexOf(':', start);
    if (colon > start && colon < end - 1) {
      const key = anchor.slice(start, colon);
      const next = anchor.indexOf(':', colon + 1);
      const value = anchor.slice(colon + 1, next >= 0 && next < end ? next : end);
      if (ANCHOR_KEYS.has(key) && value) out[key as keyof ParsedAnchor] = value;
    }
    start = end;
  }
  return out;
}
