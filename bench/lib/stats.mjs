// Median and spread of repeated samples: the machines are noisy, so a figure
// is always a median of several runs with its min and max beside it.
export function summarize(samples) {
  const sorted = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (sorted.length === 0) return { n: 0, min: Number.NaN, median: Number.NaN, max: Number.NaN };
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { n: sorted.length, min: sorted[0], median, max: sorted[sorted.length - 1] };
}

/** Runs `measure` `repeats` times (after `warmup` unrecorded runs) and returns the samples. */
export async function repeat(repeats, measure, { warmup = 0 } = {}) {
  for (let i = 0; i < warmup; i++) await measure(-1 - i);
  const samples = [];
  for (let i = 0; i < repeats; i++) samples.push(await measure(i));
  return samples;
}
