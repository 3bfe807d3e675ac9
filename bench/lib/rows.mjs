import { summarize } from "./stats.mjs";

/**
 * One row of a case's table: our samples, the anchor's, the ratio of the
 * medians (ours / anchor), and a target as a predicate on that ratio.
 */
export function compareRow(label, unit, oursSamples, anchorSamples, target) {
  const ours = summarize(oursSamples);
  const anchor = anchorSamples ? summarize(anchorSamples) : undefined;
  const ratio = anchor ? ours.median / anchor.median : Number.NaN;
  return {
    label,
    unit,
    ours,
    anchor,
    ratio,
    target: target?.text,
    met: target ? target.holds(ratio, ours, anchor) : undefined,
  };
}

export const atMost = (limit) => ({ text: `<= ${limit}x`, holds: (ratio) => ratio <= limit });
export const atLeast = (limit) => ({ text: `>= ${limit}x`, holds: (ratio) => ratio >= limit });
/** A target on our own figure (no anchor), e.g. a stall under 50 ms. */
export const valueAtMost = (limit, unit) => ({
  text: `<= ${limit} ${unit}`,
  holds: (_r, ours) => ours.median <= limit,
});
/** A target on our own figure from below (no anchor), e.g. a paired ratio of at least 0.8x. */
export const valueAtLeast = (limit, unit) => ({
  text: `>= ${limit} ${unit}`,
  holds: (_r, ours) => ours.median >= limit,
});
