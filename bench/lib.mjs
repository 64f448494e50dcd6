// Shared helpers for benchmarks: timing statistics and printing.
export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), min: sorted[0], max: sorted.at(-1) };
}

export const ms = (value) => `${value.toFixed(2)} ms`;

export function verdict(ok) {
  return ok ? 'goal met' : 'GOAL MISSED';
}
