import { defineConfig } from "vitest/config";
import { builtWorkspaceModules } from "../../vitest.shared.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One module graph for all the package's test files (they still run one after another):
    // importing the sources again for each file was most of the suite's CPU time.
    isolate: false,
    // test/*.test-d.ts holds type-level rules only; the repository's typecheck task
    // (tsconfig.typecheck.json at the root, which includes test/) fails on any of them, so
    // Vitest does not run the whole program through tsc a second time.
    testTimeout: 15_000,
    server: { deps: { external: builtWorkspaceModules } },
  },
});
