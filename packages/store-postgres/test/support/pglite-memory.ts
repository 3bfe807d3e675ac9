// An in-memory PGlite for a test file, loaded from the machine's template dump
// like every new database the stores open: `new PGlite()` would run initdb in
// WebAssembly each time (5 s of a core idle, 14 s on a loaded machine).
import type { PGlite } from "@electric-sql/pglite";
import { defaultTemplatePath, openPglite } from "../../src/pglite-template.js";

export function pgliteInMemory(): Promise<PGlite> {
  return openPglite("memory", defaultTemplatePath());
}
