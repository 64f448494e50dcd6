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
}

export type SymbolKind =
  | 'function' | 'class' | 'method' | 'property' | 'accessor' | 'constructor' | 'interface'
  | 'type' | 'enum' | 'enum-member' | 'namespace' | 'variable' | 'default';

export interface FileSymbols {
  /** The declaration with this qualified name; a parser may read only the parts of the file that can declare it. */
  get(name: string): SourceSymbol | undefined;
  /** Every declaration, keyed by qualified name; overloads are merged into one entry. */
  readonly symbols: Map<string, SourceSymbol>;
  /** 8 hex chars: hash of the whole file's normalised tokens (whitespace and comments ignored). */
  readonly fingerprint: string;
}

/** Parses TS/JS source text into symbols. Implemented in adapters with the TypeScript compiler API. */
export interface SymbolParser {
  parse(fileName: string, text: string): FileSymbols;
}

/** The anchor string stored in page frontmatter for a symbol. */
export function symbolAnchor(symbol: Pick<SourceSymbol, 'sig' | 'body'>): string {
  return `sig:${symbol.sig} body:${symbol.body}`;
}

/** The anchor string for a whole-file citation. */
export function fileAnchor(fingerprint: string): string {
  return `file:${fingerprint}`;
}

export function parseAnchor(anchor: string): { sig?: string; body?: string; file?: string } {
  const out: { sig?: string; body?: string; file?: string } = {};
  for (const part of anchor.trim().split(/\s+/)) {
    const [key, value] = part.split(':', 2);
    if ((key === 'sig' || key === 'body' || key === 'file') && value) out[key] = value;
  }
  return out;
}
