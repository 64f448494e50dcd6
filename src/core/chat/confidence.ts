/**
 * Whether a match is strong enough to answer from, judged by the share of the query's weight a
 * page matched, each query term weighted by its rarity (BM25's idf) across the wiki. Terms no page
 * contains weigh the most, so an off-topic question ("the capital of France") scores near zero,
 * while a common word missing from the right page ("how does caching *work*") barely counts.
 * Off-topic questions that brush the wiki match one word; real ones match two or more. Measured on
 * test/fixtures/recall-wiki: off-topic questions matched at most 0.27 with one term.
 */
const FLOOR = { share: 0.25, terms: 2, shareOfOneTerm: 0.5 };

export function isStrongMatch(matched: readonly string[], weights: ReadonlyMap<string, number>): boolean {
  const share = matchedShare(matched, weights);
  return share >= FLOOR.shareOfOneTerm || (share >= FLOOR.share && new Set(matched).size >= FLOOR.terms);
}

/** `matchesPerTerm`: how many of the searched pages each query term matched. */
export function termWeights(terms: readonly string[], matchesPerTerm: ReadonlyMap<string, number>, pageCount: number): Map<string, number> {
  return new Map(terms.map((term) => {
    const matches = matchesPerTerm.get(term) ?? 0;
    return [term, Math.log(1 + (pageCount - matches + 0.5) / (matches + 0.5))];
  }));
}

/** The share (0..1) of the query's total weight carried by the terms a page matched. */
function matchedShare(matched: readonly string[], weights: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const found = [...new Set(matched)].reduce((sum, term) => sum + (weights.get(term) ?? 0), 0);
  return total ? found / total : 0;
}
