import { describe, expect, it } from "vitest";
import {
  BASELINE_ONLY_MAX_ROWS,
  PGLITE_TIERING_BUDGET,
  setWasmTieringFor,
  wasmTieringFlagsFor,
} from "../src/wasm-tiering.js";

// The flags themselves are V8's; what the launcher decides is which to set, and whether to.
describe("WebAssembly tiers for a PGlite journal", () => {
  const setWith = (rows: number, execArgv: string[], nodeOptions = "") => {
    const set: string[] = [];
    const flags = setWasmTieringFor(rows, execArgv, nodeOptions, (f) => set.push(f));
    return { flags, set };
  };

  it("keeps PostgreSQL's code in the baseline tier up to the threshold", () => {
    expect(wasmTieringFlagsFor(1)).toBe("--liftoff-only");
    expect(wasmTieringFlagsFor(400)).toBe("--liftoff-only");
    expect(wasmTieringFlagsFor(BASELINE_ONLY_MAX_ROWS)).toBe("--liftoff-only");
  });

  it("lets a longer batch tier up, with a budget a hundred times V8's", () => {
    expect(wasmTieringFlagsFor(BASELINE_ONLY_MAX_ROWS + 1)).toBe(
      `--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`,
    );
    expect(wasmTieringFlagsFor(100_000)).toBe(`--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`);
  });

  it("sets the batch's flags when the user chose no WebAssembly tiers", () => {
    expect(setWith(150, ["--enable-source-maps"], "--max-old-space-size=4096")).toEqual({
      flags: "--liftoff-only",
      set: ["--liftoff-only"],
    });
    expect(setWith(20_000, [])).toEqual({
      flags: `--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`,
      set: [`--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`],
    });
  });

  it.each([
    [["--liftoff-only"], ""],
    [["--no-liftoff"], ""],
    [["--wasm_tiering_budget=1000"], ""],
    [[], "--no-wasm-dynamic-tiering"],
    [["--no-wasm-tier-up"], ""],
  ])("keeps the user's own choice (%j, NODE_OPTIONS %j)", (execArgv, nodeOptions) => {
    expect(setWith(400, execArgv, nodeOptions)).toEqual({ flags: undefined, set: [] });
    expect(setWith(20_000, execArgv, nodeOptions)).toEqual({ flags: undefined, set: [] });
  });
});
