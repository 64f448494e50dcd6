import { referencesIn, type References } from '../../../../src/core/map/identifiers';

/** A text's references, counted as the map counts a file's bytes. */
export function referencesOf(text: string): References {
  return referencesIn(new TextEncoder().encode(text));
}

/** Each reference's word, in the references' order. */
export function wordsOf({ ends, text }: References): string[] {
  return Array.from(ends, (end, i) => String.fromCharCode(...text.subarray(i ? ends[i - 1] : 0, end)));
}
