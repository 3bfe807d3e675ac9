import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A test's first import of a generated environment transforms its modules: on a loaded
    // 2-core machine that alone passed Vitest's 5-second default (a clean-clone CI run failed so).
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
