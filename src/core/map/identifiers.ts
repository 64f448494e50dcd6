import { COUNT_WORDS_WASM } from './countWordsWasm';

/**
 * The identifiers of a source file and how often it uses each: the references of the map's graph.
 * A plain scan, no parser: every word that could name a declaration counts, in code, strings and
 * comments alike (a name in a docstring is a reference to a reader too). Identifiers of one
 * character name nothing another file declares worth a map; only ASCII letters, digits, `_` and
 * `$` make a word.
 *
 * A file's words are counted from its bytes in a table of their own (countWords.wat: in
 * WebAssembly, as it reads every byte of every file) and kept as the file's own list, each word
 * once. Nothing numbers them across the repository: the ranking looks each word up among the names
 * some file declares (DeclaredNames) when it makes the graph, and a word no file declares is never
 * looked up again. Numbering every word as it was read kept a table of megabytes (the map bench's
 * million lines: 164,000 words, 808,000 file-word pairs) that the parse threads pushed out of the
 * caches, and it never shrank: a cold map took 2 to 6% longer.
 */

/** A file's distinct words and how often it uses each (parallel arrays, each word once), their bytes one after another. */
export interface References {
  /** Each word's hash (wordHash). */
  readonly hashes: Int32Array;
  readonly counts: Int32Array;
  /** Where each word ends in `text`; it starts where the one before it ends. */
  readonly ends: Int32Array;
  /** The words' bytes (ASCII), one after another. */
  readonly text: Uint8Array;
}

/** How often each identifier of this UTF-8 (or ASCII) text occurs. */
export function referencesIn(bytes: Uint8Array): References {
  const words = countWords(bytes);
  const distinct = words.length >> 2;
  const hashes = new Int32Array(distinct);
  const counts = new Int32Array(distinct);
  const ends = new Int32Array(distinct);
  let size = 0;
  for (let at = 1; at < words.length; at += 4) size += words[at];
  const text = new Uint8Array(size);
  for (let entry = 0, at = 0, end = 0; entry < distinct; entry++, at += 4) {
    const start = words[at];
    const length = words[at + 1];
    for (let k = 0; k < length; k++) text[end + k] = bytes[start + k];
    end += length;
    ends[entry] = end;
    counts[entry] = words[at + 2];
    hashes[entry] = words[at + 3];
  }
  return { hashes, counts, ends, text };
}

/**
 * Declared names to look a file's words up among, each by the index it was given. Open
 * addressing, two numbers a slot (a name's hash, its index; -1: empty), at most half full; the
 * names' bytes one after another.
 */
export class DeclaredNames {
  private readonly table: Int32Array;
  private readonly starts: Int32Array;
  private readonly lengths: Int32Array;
  private readonly bytes: Uint8Array;

  /** `names[i]` gets index i; a name no text holds as a word (`operator+`, a non-ASCII one) is left out. */
  constructor(names: readonly string[]) {
    let slots = 16;
    while (slots < 2 * names.length) slots <<= 1;
    const table = (this.table = emptySlots(slots));
    const mask = slots - 1;
    this.starts = new Int32Array(names.length);
    this.lengths = new Int32Array(names.length);
    let size = 0;
    for (const name of names) size += name.length;
    this.bytes = new Uint8Array(size);
    let at = 0;
    names.forEach((name, index) => {
      if (!isWord(name)) return;
      // ASCII: each character's code is its byte.
      for (let i = 0; i < name.length; i++) this.bytes[at + i] = name.charCodeAt(i);
      this.starts[index] = at;
      this.lengths[index] = name.length;
      const hash = wordHash(this.bytes, at, name.length);
      at += name.length;
      let slot = hash & mask;
      while (table[2 * slot + 1] >= 0) slot = (slot + 1) & mask;
      table[2 * slot] = hash;
      table[2 * slot + 1] = index;
    });
  }

  /** By word of these references: the index of the name it is, or -1. */
  indexesOf({ hashes, ends, text }: References): Int32Array {
    const indexes = new Int32Array(hashes.length);
    const { table, starts, lengths, bytes } = this;
    const mask = (table.length >> 1) - 1;
    for (let i = 0, start = 0; i < hashes.length; start = ends[i++]) {
      const length = ends[i] - start;
      const hash = hashes[i];
      let found = -1;
      for (let slot = hash & mask; found < 0; slot = (slot + 1) & mask) {
        const index = table[2 * slot + 1];
        if (index < 0) break;
        if (table[2 * slot] !== hash || lengths[index] !== length) continue;
        const at = starts[index];
        let k = 0;
        while (k < length && bytes[at + k] === text[start + k]) k++;
        if (k === length) found = index;
      }
      indexes[i] = found;
    }
    return indexes;
  }
}

/** Whether countWords would count this name as a word: two characters or more, ASCII, not starting with a digit. */
function isWord(name: string): boolean {
  if (name.length < 2 || KINDS[name.charCodeAt(0)] !== START) return false;
  for (let i = 1; i < name.length; i++) if (!isIdentifierPart(name.charCodeAt(i))) return false;
  return true;
}

function emptySlots(slots: number): Int32Array {
  const table = new Int32Array(2 * slots);
  for (let slot = 1; slot < table.length; slot += 2) table[slot] = -1;
  return table;
}

const MIN_TABLE = 1 << 8;
const [OTHER, START, DIGIT] = [0, 1, 2];
/** By byte: a letter, `_` or `$` starts an identifier; a digit continues one; any other byte (a non-ASCII one too) is neither. */
const KINDS = Uint8Array.from({ length: 256 }, (_, code) => ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36 ? START : code >= 48 && code <= 57 ? DIGIT : OTHER));

/** Where countWords.wat finds the text: after the kinds of bytes. */
const TEXT_AT = KINDS.length;

interface CountWordsExports {
  memory: WebAssembly.Memory;
  count(text: number, length: number, words: number, wordsCap: number, table: number, size: number, tableCap: number): number;
}

/** The counter of this thread (countWords.wat), made on first use: one text at a time, its memory reused. */
let counter: CountWordsExports | undefined;

/**
 * Counts the words of `bytes` in WebAssembly: a record of four numbers per distinct word (its
 * start, length, count and hash), until the next count. Room is made for a typical text (a word in
 * eight bytes); one with more distinct words is counted again with room for any.
 */
function countWords(bytes: Uint8Array): Int32Array {
  counter ??= countWordsModule();
  const length = bytes.length;
  let size = MIN_TABLE;
  while (size < length >> 4) size <<= 1;
  const typical = (length >> 3) + MIN_TABLE;
  // Words of two bytes and more, each after a byte that is none: at most a third of the bytes.
  return countIn(counter, bytes, size, typical) ?? countIn(counter, bytes, size, Math.floor((length + 1) / 3) + 1)!;
}

/** The records of `bytes`'s words with room for `wordsCap` of them, or undefined when it has more. */
function countIn(wasm: CountWordsExports, bytes: Uint8Array, size: number, wordsCap: number): Int32Array | undefined {
  const words = (TEXT_AT + bytes.length + 15) & ~15;
  // The table is at most half full: it never holds more than four slots a word.
  let tableCap = size;
  while (tableCap < 4 * wordsCap) tableCap <<= 1;
  const table = words + 16 * wordsCap;
  const needed = table + 4 * tableCap;
  const pages = Math.ceil((needed - wasm.memory.buffer.byteLength) / 65536);
  if (pages > 0) wasm.memory.grow(pages);
  new Uint8Array(wasm.memory.buffer, TEXT_AT, bytes.length).set(bytes);
  const distinct = wasm.count(TEXT_AT, bytes.length, words, wordsCap, table, size, tableCap);
  return distinct < 0 ? undefined : new Int32Array(wasm.memory.buffer, words, 4 * distinct);
}

function countWordsModule(): CountWordsExports {
  const bytes = Uint8Array.from(atob(COUNT_WORDS_WASM), (char) => char.charCodeAt(0));
  const wasm = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as CountWordsExports;
  new Uint8Array(wasm.memory.buffer).set(KINDS);
  return wasm;
}

/** The hash countWords takes of a word as it scans it. */
function wordHash(bytes: Uint8Array, start: number, length: number): number {
  let hash = bytes[start];
  for (let i = start + 1; i < start + length; i++) hash = (Math.imul(hash, 31) + bytes[i]) | 0;
  return mixed(hash);
}

/** Murmur3's finaliser: similar words (`name1`, `name2`) differ in a hash's low bits, which pick the slot. */
function mixed(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

function isIdentifierPart(code: number): boolean {
  return code < 128 && KINDS[code] !== OTHER;
}
