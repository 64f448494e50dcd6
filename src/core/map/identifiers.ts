/**
 * How often each identifier occurs in a source text: the references of a file, for the map's graph.
 * A plain scan, no parser: every word that could name a declaration counts, in code, strings and
 * comments alike (a name in a docstring is a reference to a reader too). Identifiers of one
 * character name nothing another file declares worth a map.
 *
 * Words are counted in a table of their own (hash, start, length) and made strings once each: a
 * file uses each name many times, and a string and a Map update per occurrence cost the cold map
 * of a large repository about twice as much.
 */
export function identifierCounts(text: string): Map<string, number> {
  const length = text.length;
  let size = MIN_TABLE;
  while (size < length >> 4) size <<= 1;
  let mask = size - 1;
  let table = emptyTable(size);
  let distinct = 0;
  for (let i = 0; i < length; ) {
    const code = text.charCodeAt(i);
    const kind = code < 128 ? KINDS[code] : OTHER;
    if (kind !== START) {
      // A number's digits and letters are not an identifier (0x1F, 10px).
      i++;
      if (kind === DIGIT) while (i < length && isIdentifierPart(text.charCodeAt(i))) i++;
      continue;
    }
    const start = i;
    let hash = code;
    for (i++; i < length; i++) {
      const part = text.charCodeAt(i);
      if (!isIdentifierPart(part)) break;
      hash = (Math.imul(hash, 31) + part) | 0;
    }
    const wordLength = i - start;
    if (wordLength < 2) continue;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot];
      if (entry < 0) {
        if (distinct === words.starts.length) words = grown(words);
        words.starts[distinct] = start;
        words.lengths[distinct] = wordLength;
        words.counts[distinct] = 1;
        words.hashes[distinct] = hash;
        table[slot] = distinct++;
        // At most half full: a probe ends soon.
        if (distinct * 2 > size) {
          size <<= 1;
          mask = size - 1;
          table = rehashed(size, distinct);
        }
        break;
      }
      if (words.hashes[entry] === hash && words.lengths[entry] === wordLength && sameWord(text, words.starts[entry], start, wordLength)) {
        words.counts[entry]++;
        break;
      }
    }
  }
  const counts = new Map<string, number>();
  for (let entry = 0; entry < distinct; entry++) counts.set(text.slice(words.starts[entry], words.starts[entry] + words.lengths[entry]), words.counts[entry]);
  return counts;
}

const MIN_TABLE = 1 << 8;
const [OTHER, START, DIGIT] = [0, 1, 2];
/** By ASCII code: a letter, `_` or `$` starts an identifier; a digit continues one. */
const KINDS = Uint8Array.from({ length: 128 }, (_, code) => ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36 ? START : code >= 48 && code <= 57 ? DIGIT : OTHER));

/** The words of the text being counted, by entry (one text at a time, on each thread): reused, so counting allocates little beyond its result. */
let words = { starts: new Int32Array(1 << 12), lengths: new Int32Array(1 << 12), counts: new Int32Array(1 << 12), hashes: new Int32Array(1 << 12) };
let spareTable = new Int32Array(MIN_TABLE);

function emptyTable(size: number): Int32Array {
  if (spareTable.length < size) spareTable = new Int32Array(size);
  const table = spareTable.subarray(0, size);
  table.fill(-1);
  return table;
}

function rehashed(size: number, distinct: number): Int32Array {
  const table = emptyTable(size);
  const mask = size - 1;
  for (let entry = 0; entry < distinct; entry++) {
    let slot = words.hashes[entry] & mask;
    while (table[slot] >= 0) slot = (slot + 1) & mask;
    table[slot] = entry;
  }
  return table;
}

function grown(from: typeof words): typeof words {
  const twice = (array: Int32Array) => {
    const larger = new Int32Array(array.length * 2);
    larger.set(array);
    return larger;
  };
  return { starts: twice(from.starts), lengths: twice(from.lengths), counts: twice(from.counts), hashes: twice(from.hashes) };
}

function sameWord(text: string, at: number, start: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (text.charCodeAt(at + k) !== text.charCodeAt(start + k)) return false;
  return true;
}

function isIdentifierPart(code: number): boolean {
  return code < 128 && KINDS[code] !== OTHER;
}
