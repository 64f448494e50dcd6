// A file's outline packed into plain data (numbers and one string), kept across a scan for
// thousands of files; its pieces become objects only when a symbol is read (see lazySymbols.ts).
import type { SymbolKind } from '../../core/drift/symbols';

/**
 * A parse as plain data, cheap to keep: every declaration's numbers in one buffer (its kind's
 * index in KINDS, its piece count, five numbers per piece), the names in one string. Pieces
 * become objects only for the symbols read.
 */
export interface Outline {
  numbers: Int32Array;
  names: string;
}

/** A declaration's text: its signature is [sigStart, bodyStart), its body [bodyStart, bodyEnd). */
export interface Piece {
  sigStart: number;
  bodyStart: number;
  bodyEnd: number;
  /** Where the declaration ends: its last line is counted from the text when it is read (asking the tree costs a call per declaration). */
  end: number;
  startLine: number;
}

/** A declaration as the outline packs it: its kind, and its pieces in document order. */
export interface OutlineEntry {
  kind: SymbolKind;
  pieces: Piece[];
}

export const KINDS: readonly SymbolKind[] = ['function', 'class', 'method', 'property', 'accessor', 'constructor', 'interface', 'type', 'enum', 'enum-member', 'namespace', 'variable', 'default', 'struct', 'trait', 'module'];
const PIECE_SIZE = 5;
const NEWLINE = 10;

export function packOutline(declarations: ReadonlyMap<string, OutlineEntry>): Outline {
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

export function piecesAt(numbers: Int32Array, offset: number): Piece[] {
  const pieces: Piece[] = [];
  for (let count = numbers[offset + 1], at = offset + 2; count > 0; count--, at += PIECE_SIZE) {
    pieces.push({ sigStart: numbers[at], bodyStart: numbers[at + 1], bodyEnd: numbers[at + 2], end: numbers[at + 3], startLine: numbers[at + 4] });
  }
  return pieces;
}

/** Where each name starts in the names string, and where its declaration's numbers start. */
export interface NameIndex {
  starts: Int32Array;
  offsets: Int32Array;
}

export function indexNames({ numbers, names }: Outline): NameIndex {
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
export function offsetOf({ starts, offsets }: NameIndex, names: string, name: string): number | undefined {
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

/** `Outer.Inner.fn` is a direct member of `Outer.Inner`: the values of each name, by the name before its last dot. */
export function groupByParent<T>(named: Iterable<[string, T]>): Map<string, T[]> {
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
