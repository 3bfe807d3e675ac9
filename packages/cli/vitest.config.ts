import { defineConfig } from "vitest/config";
import { builtWorkspaceModules } from "../../vitest.shared.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One module graph for all the package's test files (they still run one after another):
    // importing the sources again for each file was most of the suite's CPU time.
    isolate: false,
    // Two files at a time (Vitest's default is cores - 1, one on a 2-core machine): the commands'
    // tests mostly wait on the child processes they start, so a second file fills that wait.
    maxWorkers: 2,
    testTimeout: 180000,
    hookTimeout: 120000,
    server: { deps: { external: builtWorkspaceModules } },
  },
});
