// A file's symbols, made from its packed outline and hashed only when read: a scan reads a few
// symbols of each of thousands of files.
import { hex8, type FileSymbols, type ReExport, type SourceSymbol, type SymbolKind } from '../../core/drift/symbols';
import { groupByParent, indexNames, KINDS, offsetOf, piecesAt, type NameIndex, type Outline, type Piece } from './packedOutline';
import { combined, FNV_OFFSET, type TokenText } from './tokenHash';

/**
 * The symbols of a file; a symbol is made from the outline's numbers, and hashed, when first read.
 * Names are found in the outline's one string, through two number arrays built on the first
 * lookup: a table of every declaration's name would cost far more memory across thousands of files.
 */
export function symbolsOf(outline: Outline, tokens: TokenText, partial?: FileSymbols['partial'], reExports?: readonly ReExport[]): FileSymbols {
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
    ...(reExports ? { reExports: () => reExports } : {}),
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
