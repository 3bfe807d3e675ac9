// The emulator-soak case's arithmetic, kept pure.

/** The p-th percentile (nearest rank) of ascending `sorted`. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

/**
 * Heap growth in MB per 10,000 runs: the least-squares slope of heap (bytes) against runs
 * launched, over the points at or past `fromRuns` (once the finished-run limit is reached;
 * before that, every run is meant to stay in memory). NaN with fewer than two such points.
 */
export function heapSlopePer10k(points, fromRuns) {
  const use = points.filter((p) => p.runs >= fromRuns);
  if (use.length < 2) return Number.NaN;
  const mx = use.reduce((s, p) => s + p.runs, 0) / use.length;
  const my = use.reduce((s, p) => s + p.heap, 0) / use.length;
  let num = 0;
  let den = 0;
  for (const p of use) {
    num += (p.runs - mx) * (p.heap - my);
    den += (p.runs - mx) ** 2;
  }
  return den === 0 ? Number.NaN : ((num / den) * 10_000) / 1e6;
}
