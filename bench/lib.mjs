// Shared helpers for benchmarks: timing statistics, printing, and the smoke run's sizes.

/**
 * A smoke run (`npm run bench -- --smoke`, or REPO_WIKI_BENCH_SMOKE=1, which the processes a bench
 * starts inherit): tiny inputs and few runs, to check that every bench runs to its end and prints
 * its figures. Its times mean nothing, so no goal is judged.
 */
export const smoke = process.argv.includes('--smoke') || process.env.REPO_WIKI_BENCH_SMOKE === '1';
if (smoke) process.env.REPO_WIKI_BENCH_SMOKE = '1';

/** `full` in a real run, `small` in a smoke run. */
export const sized = (full, small) => (smoke ? small : full);
export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), min: sorted[0], max: sorted.at(-1) };
}

export const ms = (value) => `${value.toFixed(2)} ms`;

export function verdict(ok) {
  if (smoke) return 'not judged (smoke run)';
  return ok ? 'goal met' : 'GOAL MISSED';
}

/** A seeded generator of random picks and filler sentences that mention `words` (for generated wikis). */
export function seededText(words, seed = 20261122) {
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const sentence = () => Array.from({ length: 12 }, () => (random() < 0.3 ? pick(words) : pick(['the', 'a', 'service', 'request', 'returns', 'when', 'module', 'calls', 'data', 'user']))).join(' ');
  return { random, pick, sentence };
}
