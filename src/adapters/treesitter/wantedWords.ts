// Which declarations a partial outline keeps: those whose text holds a wanted name (see outlineWalk.ts).
import type { WantedSymbols } from '../../core/drift/symbols';

/**
 * What a partial outline keeps: the wanted names, and the declarations whose text holds the last
 * part of one as a word (a declaration holds its own name, and a container its members'). A word
 * in a comment or a call only costs a walk. The text is read once, a word at a time, as the walk
 * goes: the cost does not grow with the number of names (a header can have a hundred cited).
 */
export class WantedWords {
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
