import type { References, Vocabulary } from '../../../../src/core/map/identifiers';

/** A text's references, counted as the map counts a file's bytes. */
export function referencesOf(vocabulary: Vocabulary, text: string): References {
  return vocabulary.referencesIn(new TextEncoder().encode(text));
}
