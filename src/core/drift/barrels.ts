// Barrels that reach changed files: a citation of `src/index.ts:isHTTPError` checks the code of
// the file index.ts re-exports it from, so a change there is a change to the citation too.
import { TS_LIKE } from './citations';
import { moduleCandidates, moduleWord } from './modules';
import type { ReExport } from './symbols';

/** Barrels of barrels rarely nest deeply; this bounds the search. */
const MAX_HOPS = 8;
/** The languages with re-exports drift follows. */
const HAS_REEXPORTS = (file: string) => TS_LIKE.test(file) || file.endsWith('.py');

export interface BarrelSearch {
  search: { filesContaining(words: string | readonly string[], only?: (file: string) => boolean): Promise<string[]> };
  reExportsOf(file: string): Promise<readonly ReExport[] | undefined>;
  sameLanguage(a: string, b: string): boolean;
}

/**
 * The files that re-export from one of `changed`, directly or through other barrels. A module
 * that names a file contains its word (moduleWord): one text search per hop finds the few
 * candidates, and only those are parsed for their re-exports.
 */
export async function reExportersOf(changed: readonly string[], { search, reExportsOf, sameLanguage }: BarrelSearch): Promise<string[]> {
  const reached = new Set(changed);
  const found: string[] = [];
  let frontier = changed.filter(HAS_REEXPORTS);
  for (let hop = 0; hop < MAX_HOPS && frontier.length; hop++) {
    const words = [...new Set(frontier.map(moduleWord))];
    const languages = [...new Map(frontier.map((file) => [file.slice(file.lastIndexOf('.')).toLowerCase(), file])).values()];
    const candidates = await search.filesContaining(words, (file) => languages.some((other) => sameLanguage(file, other)));
    const next: string[] = [];
    for (const candidate of candidates) {
      if (reached.has(candidate)) continue;
      const entries = (await reExportsOf(candidate)) ?? [];
      if (!entries.some((entry) => moduleCandidates(candidate, entry.from).some((file) => reached.has(file)))) continue;
      next.push(candidate);
    }
    for (const file of next) reached.add(file);
    found.push(...next);
    frontier = next;
  }
  return found.sort();
}
