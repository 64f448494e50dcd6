// What a parse thread sends back for one file: what was wanted of it, hashed there, so that this
// thread keeps no text. One line per wanted name (`name kind startLine endLine sig body empty
// shape`, tab-separated; a name the file does not declare has nothing after it), after a first
// line with the whole file's fingerprint when that was wanted. Names never hold a tab or a newline.
import { CONTAINER_KINDS, containerShape, type FileSymbols, type SourceSymbol, type SymbolKind, type WantedSymbols } from '../../core/drift/symbols';

/** The answers to `wanted`, from a parse on this thread. A container's body is not hashed (a body often holds comments not looked for): its shape stands for it. */
export function packAnswers(symbols: FileSymbols, wanted: WantedSymbols | undefined): string {
  const lines = [wanted?.wholeFile ? symbols.fingerprint : ''];
  for (const name of wanted?.names ?? []) {
    const symbol = symbols.get(name);
    if (!symbol) {
      lines.push(name);
      continue;
    }
    const container = CONTAINER_KINDS.has(symbol.kind);
    const body = container ? '' : symbol.body;
    const empty = !container && symbol.emptyBody ? '1' : '';
    lines.push(`${name}\t${symbol.kind}\t${symbol.startLine}\t${symbol.endLine}\t${symbol.sig}\t${body}\t${empty}\t${container ? containerShape(symbols, symbol) : ''}`);
  }
  return lines.join('\n');
}

/** A file's symbols from a thread's answers: partial, so the drift engine parses the file again to read anything else. */
export function unpackAnswers(fileName: string, packed: string, wanted: WantedSymbols | undefined): FileSymbols {
  const lines = packed.split('\n');
  const found = new Map<string, SourceSymbol>();
  const shapes = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const [name, kind, startLine, endLine, sig, body, empty, shape] = lines[i].split('\t');
    if (kind === undefined) continue;
    const [first, last] = [Number(startLine), Number(endLine)];
    // Literals, not spreads: V8 gives each spread copy a hidden class of its own.
    const symbol: SourceSymbol = shape
      ? new ContainerAnswer(name, kind as SymbolKind, first, last, sig, fileName)
      : empty
        ? { name, kind: kind as SymbolKind, startLine: first, endLine: last, sig, body, emptyBody: true }
        : { name, kind: kind as SymbolKind, startLine: first, endLine: last, sig, body };
    found.set(name, symbol);
    if (shape) shapes.set(name, shape);
  }
  const wholeFile = wanted?.wholeFile === true;
  return {
    partial: { names: new Set(wanted?.names ?? []), wholeFile },
    get: (name) => found.get(name),
    get symbols(): Map<string, SourceSymbol> {
      throw new Error(`Only the wanted symbols of ${fileName} were parsed (on another thread): parse it again to read every declaration.`);
    },
    get fingerprint(): string {
      if (!wholeFile) throw new Error(`The whole of ${fileName} was not wanted when it was parsed on another thread: parse it again to fingerprint it.`);
      return lines[0];
    },
    shapeOf: (name) => shapes.get(name),
  };
}

/** A container answered by its signature and shape; reading its body is a mistake to hear about, not a hash of nothing. */
class ContainerAnswer implements SourceSymbol {
  constructor(
    readonly name: string,
    readonly kind: SymbolKind,
    readonly startLine: number,
    readonly endLine: number,
    readonly sig: string,
    private readonly fileName: string,
  ) {}

  get body(): string {
    throw new Error(`The body of ${this.name} in ${this.fileName} was not hashed on the parse thread (its shape was): parse the file again to read it.`);
  }
}
