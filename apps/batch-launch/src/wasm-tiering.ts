// PGlite is PostgreSQL compiled to WebAssembly, which V8 runs first in its
// baseline tier (Liftoff) and recompiles function by function with its
// optimising tier (TurboFan) once a function has run through a budget of
// code. With V8's default budget, a batch's journal work makes hundreds of
// PostgreSQL's functions hot within the first rows: recompiling them cost the
// launcher about 1 CPU-second per 400 rows on background threads, more than
// the journal's statements themselves (0.2 s on the launcher's thread)
// (bench/findings.md, "PGlite's tier-up"). On a machine whose cores the
// emulator or the service's other work also needs, even a budget a hundred
// times larger lost to baseline code alone up to thousands of rows, and won
// only beyond about 8,000 (bench/findings.md, "The launcher's tiers by batch
// size"). The launcher knows its batch's size before it opens the journal,
// so it picks the tier for it.
import { setFlagsFromString } from "node:v8";

/** Up to this many rows, PostgreSQL's code stays in V8's baseline tier. */
export const BASELINE_ONLY_MAX_ROWS = 5_000;

/** Above it: 100 times V8 11's default budget (1,800,000; V8 12 and later count 13,000,000). */
export const PGLITE_TIERING_BUDGET = 180_000_000;

// Any of these on the command line (or in NODE_OPTIONS) is the user's own
// choice of WebAssembly tiers, kept as given.
// (--liftoff, --liftoff-only, --wasm-tier-up, --wasm-tiering-budget,
// --wasm-dynamic-tiering, their --no- forms; V8 takes "_" for "-" too.)
const USER_TIERING_FLAGS = /--(no[-_])?(liftoff|wasm[-_]tier|wasm[-_]dynamic[-_]tiering)/;

/** The V8 flags for a PGlite journal about to carry `rows` launches. */
export function wasmTieringFlagsFor(rows: number): string {
  return rows <= BASELINE_ONLY_MAX_ROWS
    ? "--liftoff-only"
    : `--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`;
}

/**
 * Sets V8's WebAssembly tiers for this process's batch of `rows`, before
 * PGlite's module is instantiated (V8 reads them then). Process-wide and not
 * restored: the launcher's process is its own, and the runtime's defaults
 * cannot be read back. Returns the flags it set, or undefined when the user
 * chose tiers of their own.
 */
export function setWasmTieringFor(
  rows: number,
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? "",
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (USER_TIERING_FLAGS.test([...execArgv, nodeOptions].join(" "))) return undefined;
  const flags = wasmTieringFlagsFor(rows);
  setFlags(flags);
  return flags;
}
