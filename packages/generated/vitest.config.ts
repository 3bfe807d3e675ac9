import { defineConfig } from "vitest/config";
import { builtWorkspaceModules } from "../../vitest.shared.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A test's first import of a generated environment transforms its modules: on a loaded
    // 2-core machine that alone passed Vitest's 5-second default (a clean-clone CI run failed so).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    server: { deps: { external: builtWorkspaceModules } },
  },
});
