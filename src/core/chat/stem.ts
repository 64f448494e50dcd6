import { stemmer } from 'stemmer';

const STEMS = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

/** The stem of a lower-cased word; memoised, since a wiki repeats its words many thousand times. */
export function stem(word: string): string {
  let found = STEMS.get(word);
  if (found === undefined) {
    if (STEMS.size >= MAX_CACHED_STEMS) STEMS.clear();
    found = stemmer(word);
    STEMS.set(word, found);
  }
  return found;
}
