/** A weighted directed graph over nodes 0..length-1: each node's edges out, as parallel arrays, and the sum of their weights. */
export interface OutEdges {
  readonly targets: ArrayLike<number>;
  readonly weights: ArrayLike<number>;
  readonly total: number;
}

const DAMPING = 0.85;
const MAX_ITERATIONS = 100;
/** Converged when the ranks moved less than this per node (L1, as networkx: size × 1e-6 in all). */
const TOLERANCE = 1e-6;

/**
 * Personalised PageRank (as networkx computes it, which Aider's map uses): a walker follows an
 * edge in proportion to its weight, and jumps, with probability 1 - DAMPING or from a node with no
 * edges out, to a node chosen by `personal` (uniform when it is absent or all zeros). The ranks
 * sum to 1. `start`: where the walk starts, e.g. the ranks of the graph before a small change.
 */
export function pageRank(graph: readonly OutEdges[], personal?: ArrayLike<number>, start?: Float64Array): Float64Array {
  const size = graph.length;
  const jump = jumpDistribution(size, personal);
  // Ranks of a graph barely changed (a map after a save) converge in a few steps from the last ones.
  let rank = start?.length === size ? Float64Array.from(start) : Float64Array.from(jump);
  let next = new Float64Array(size);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let dangling = 0;
    for (let node = 0; node < size; node++) if (graph[node].total === 0) dangling += rank[node];
    for (let node = 0; node < size; node++) next[node] = (1 - DAMPING + DAMPING * dangling) * jump[node];
    for (let node = 0; node < size; node++) {
      const { targets, weights, total } = graph[node];
      if (total === 0) continue;
      const flow = (DAMPING * rank[node]) / total;
      for (let k = 0; k < targets.length; k++) next[targets[k]] += flow * weights[k];
    }
    let moved = 0;
    for (let node = 0; node < size; node++) moved += Math.abs(next[node] - rank[node]);
    [rank, next] = [next, rank];
    if (moved < size * TOLERANCE) break;
  }
  return rank;
}

function jumpDistribution(size: number, personal: ArrayLike<number> | undefined): Float64Array {
  const jump = new Float64Array(size);
  let total = 0;
  for (let node = 0; node < size && personal; node++) total += personal[node];
  for (let node = 0; node < size; node++) jump[node] = total > 0 ? personal![node] / total : 1 / size;
  return jump;
}
