import { defineConfig } from "vitest/config";
import { builtWorkspaceModules } from "../../vitest.shared.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One module graph for all the package's test files (they still run one after another):
    // importing the sources again for each file was most of the suite's CPU time.
    isolate: false,
    // Two files at a time (Vitest's default is cores - 1, one on a 2-core machine): the kill and
    // restart tests mostly wait on the processes they start, and a second file fills that wait.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    server: { deps: { external: builtWorkspaceModules } },
  },
});
