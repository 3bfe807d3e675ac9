// The fault proxy's schedule: which fault the n-th connection gets, from a seed alone. Pure, so a
// failing run is replayed by its seed (the suite prints it): connection n of that run gets the
// same fault again. Which launch opens connection n still depends on timing.

/** The network faults the proxy applies, one per connection (fault-proxy.ts says how). */
export const NETWORK_FAULTS = [
  "reset-mid-request",
  "reset-after-request",
  "truncated-response",
  "stall-past-timeout",
  "twice-on-two-connections",
  "gateway-502",
] as const;

export type NetworkFault = (typeof NETWORK_FAULTS)[number];

/** What one connection gets: a fault, or a plain pass-through. */
export type ConnectionPlan = NetworkFault | "none";

/** What a reader of the table sees for each fault. */
export const FAULT_LABELS: Readonly<Record<NetworkFault, string>> = {
  "reset-mid-request": "reset mid-request",
  "reset-after-request": "reset after the request was sent",
  "truncated-response": "truncated response",
  "stall-past-timeout": "stall past the client's timeout",
  "twice-on-two-connections": "the same request twice, on two connections",
  "gateway-502": "gateway 502 (HTML body, no code)",
};

/** mulberry32: a small, fast 32-bit PRNG; the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The plan of connection `index` (0, 1, 2, ...) under `seed`: a fault with probability
 * `faultRate`, each fault equally likely. O(1) per connection, independent of the others.
 */
export function planFor(seed: number, index: number, faultRate: number): ConnectionPlan {
  const random = seededRandom((seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0);
  if (random() >= faultRate) return "none";
  return NETWORK_FAULTS[Math.floor(random() * NETWORK_FAULTS.length)] ?? "none";
}

/** A seed for a run that was given none: printed with the table so the run can be replayed. */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
