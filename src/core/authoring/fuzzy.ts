/**
 * How well `query` matches `candidate` as a subsequence (case-insensitive), or undefined when it
 * does not: runs of consecutive characters, matches at word starts and a match at the very start
 * score higher, and shorter candidates win ties. An empty query matches everything with 0.
 */
export function fuzzyScore(query: string, candidate: string): number | undefined {
  if (!query) return 0;
  const q = query.toLowerCase();
  const c = candidate.toLowerCase();
  let score = 0;
  let from = 0;
  let previous = -2;
  for (let i = 0; i < q.length; i++) {
    const at = c.indexOf(q[i], from);
    if (at < 0) return undefined;
    score += 1;
    if (at === previous + 1) score += 3;
    if (at === 0) score += 4;
    else if (!isWordChar(c.charCodeAt(at - 1)) || (candidate[at] !== c[at] && candidate[at - 1] === c[at - 1])) score += 2;
    previous = at;
    from = at + 1;
  }
  return score - candidate.length / 1000;
}

/** The best score of `query` against any of `fields`, or undefined when none matches. */
export function bestFuzzyScore(query: string, fields: readonly string[]): number | undefined {
  let best: number | undefined;
  for (const field of fields) {
    const score = fuzzyScore(query, field);
    if (score !== undefined && (best === undefined || score > best)) best = score;
  }
  return best;
}

function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}
