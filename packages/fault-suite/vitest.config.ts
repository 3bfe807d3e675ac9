import { defineConfig } from "vitest/config";
import { builtWorkspaceModules } from "../../vitest.shared.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    isolate: false,
    // The suite's one long test mostly waits on the servers and processes it starts; the unit
    // tests are milliseconds. One file at a time keeps the suite's CPU inside its budget.
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 180_000,
    server: { deps: { external: builtWorkspaceModules } },
  },
});
