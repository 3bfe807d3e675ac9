// PGlite is PostgreSQL compiled to WebAssembly, which V8 runs first in its
// baseline tier (Liftoff) and recompiles function by function with its
// optimising tier (TurboFan) once a function has run through a budget of
// code. With V8's default budget, a batch's journal work makes hundreds of
// PostgreSQL's functions hot within the first rows: recompiling them cost the
// launcher about 1 CPU-second per 400 rows on background threads, more than
// the journal's statements themselves (0.2 s on the launcher's thread), and
// was not paid back within thousands of rows (bench/findings.md, "PGlite's
// tier-up"). A budget a hundred times larger leaves that work to the
// functions a long batch really runs most.
import { setFlagsFromString } from "node:v8";

/** 100 times V8 11's default (1,800,000; V8 12 and later count 13,000,000). */
export const PGLITE_TIERING_BUDGET = 180_000_000;

// Any of these on the command line (or in NODE_OPTIONS) is the user's own
// choice of WebAssembly tiers, kept as given.
// (--liftoff, --liftoff-only, --wasm-tier-up, --wasm-tiering-budget,
// --wasm-dynamic-tiering, their --no- forms; V8 takes "_" for "-" too.)
const USER_TIERING_FLAGS = /--(no[-_])?(liftoff|wasm[-_]tier|wasm[-_]dynamic[-_]tiering)/;

/**
 * Raises V8's WebAssembly tiering budget for this process, before PGlite's
 * module is instantiated (V8 reads it then). Process-wide and not restored:
 * the launcher's process is its own, and the runtime's default cannot be read
 * back. Returns whether it changed anything.
 */
export function raiseWasmTieringBudget(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? "",
  setFlags: (flags: string) => void = setFlagsFromString,
): boolean {
  if (USER_TIERING_FLAGS.test([...execArgv, nodeOptions].join(" "))) return false;
  setFlags(`--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`);
  return true;
}
