import { describe, expect, it } from "vitest";
import { PGLITE_TIERING_BUDGET, raiseWasmTieringBudget } from "../src/wasm-tiering.js";

// The flag itself is V8's; what the launcher decides is whether to set it.
describe("the WebAssembly tiering budget for a PGlite journal", () => {
  const setWith = (execArgv: string[], nodeOptions = "") => {
    const set: string[] = [];
    const changed = raiseWasmTieringBudget(execArgv, nodeOptions, (flags) => set.push(flags));
    return { changed, set };
  };

  it("raises the budget when the user chose no WebAssembly tiers", () => {
    expect(setWith(["--enable-source-maps"], "--max-old-space-size=4096")).toEqual({
      changed: true,
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
    expect(setWith(execArgv, nodeOptions)).toEqual({ changed: false, set: [] });
  });
});
