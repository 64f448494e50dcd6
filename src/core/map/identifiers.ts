import { COUNT_WORDS_WASM } from './countWordsWasm';

/**
 * The identifiers of a repository's source files, each given a number once, and how often each
 * file uses each one: the references of the map's graph. A plain scan, no parser: every word that
 * could name a declaration counts, in code, strings and comments alike (a name in a docstring is a
 * reference to a reader too). Identifiers of one character name nothing another file declares
 * worth a map; only ASCII letters, digits, `_` and `$` make a word.
 *
 * A file's words are counted from its bytes in a table of their own (countWords.wat: in
 * WebAssembly, as it reads every byte of every file), then looked up once each in the vocabulary:
 * no string is made for a word, and the ranking follows a reference by its number. A cold map of
 * a million lines has about 800,000 (file, word) pairs: as strings in a Map per file, each was a
 * string and an entry kept as long as the map, and a string lookup whenever the graph was made
 * (the ranking's edges took about three times as long).
 */
export class Vocabulary {
  /** Open addressing, two numbers a slot: a word's hash and its number (-1: empty). At most half full. The hash is in the slot so that a probe reads nothing else until it matches. */
  private table: Int32Array = emptySlots(1 << 12);
  private hashes: Int32Array = new Int32Array(1 << 11);
  private starts: Int32Array = new Int32Array(1 << 11);
  private lengths: Int32Array = new Int32Array(1 << 11);
  /** Every word's bytes, one after another. */
  private bytes: Uint8Array = new Uint8Array(1 << 14);
  private used = 0;
  private count = 0;
  /** The bytes of the name idOf looks up, reused: the ranking looks up every declared name. */
  private name = new Uint8Array(64);

  /** How many words have numbers. */
  get size(): number {
    return this.count;
  }

  /** How often each identifier of this UTF-8 (or ASCII) text occurs, by word number. */
  referencesIn(bytes: Uint8Array): References {
    const words = countWords(bytes);
    const distinct = words.length >> 2;
    const ids = new Int32Array(distinct);
    const counts = new Int32Array(distinct);
    for (let entry = 0, at = 0; entry < distinct; entry++, at += 4) {
      ids[entry] = this.numberOf(bytes, words[at], words[at + 1], words[at + 3]);
      counts[entry] = words[at + 2];
    }
    return { ids, counts };
  }

  /** A name's number, or undefined when no text counted so far holds it as a word. */
  idOf(name: string): number | undefined {
    const length = name.length;
    if (length < 2 || KINDS[name.charCodeAt(0)] !== START) return undefined;
    if (length > this.name.length) this.name = new Uint8Array(2 * length);
    const bytes = this.name;
    bytes[0] = name.charCodeAt(0);
    for (let i = 1; i < length; i++) {
      const code = name.charCodeAt(i);
      if (!isIdentifierPart(code)) return undefined;
      bytes[i] = code; // ASCII: its byte is its character
    }
    const found = this.find(bytes, 0, length, wordHash(bytes, 0, length));
    return found >= 0 ? found : undefined;
  }

  /** The table, twice as many slots. */
  private rehashed(length: number): Int32Array {
    const table = emptySlots(length);
    const mask = length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (table[2 * slot + 1] >= 0) slot = (slot + 1) & mask;
      table[2 * slot] = this.hashes[id];
      table[2 * slot + 1] = id;
    }
    return table;
  }

  /** The number of the word at bytes[start, start + length) with this hash, or -(its empty slot + 1) when it has none. */
  private find(bytes: Uint8Array, start: number, length: number, hash: number): number {
    const table = this.table;
    const mask = (table.length >> 1) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const id = table[2 * slot + 1];
      if (id < 0) return -(slot + 1);
      if (table[2 * slot] !== hash || this.lengths[id] !== length) continue;
      const at = this.starts[id];
      let k = 0;
      while (k < length && this.bytes[at + k] === bytes[start + k]) k++;
      if (k === length) return id;
    }
  }

  /** The number of the word at bytes[start, start + length), given one when it has none. */
  private numberOf(bytes: Uint8Array, start: number, length: number, hash: number): number {
    const found = this.find(bytes, start, length, hash);
    if (found >= 0) return found;
    const slot = -found - 1;
    const table = this.table;
    const id = this.count++;
    if (id === this.hashes.length) {
      this.hashes = grown(this.hashes);
      this.starts = grown(this.starts);
      this.lengths = grown(this.lengths);
    }
    while (this.used + length > this.bytes.length) {
      const larger = new Uint8Array(this.bytes.length * 2);
      larger.set(this.bytes);
      this.bytes = larger;
    }
    this.bytes.set(bytes.subarray(start, start + length), this.used);
    this.hashes[id] = hash;
    this.starts[id] = this.used;
    this.lengths[id] = length;
    this.used += length;
    table[2 * slot] = hash;
    table[2 * slot + 1] = id;
    if (this.count * 4 > table.length) this.table = this.rehashed(table.length);
    return id;
  }
}

function emptySlots(slots: number): Int32Array {
  const table = new Int32Array(2 * slots);
  for (let slot = 1; slot < table.length; slot += 2) table[slot] = -1;
  return table;
}

/** How often a file uses each word, by the word's number in its vocabulary (parallel arrays, each word once). */
export interface References {
  readonly ids: Int32Array;
  readonly counts: Int32Array;
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

function grown(array: Int32Array): Int32Array {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

function isIdentifierPart(code: number): boolean {
  return code < 128 && KINDS[code] !== OTHER;
}
