import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { defineConfig } from "vitest/config";
import { builtWorkspaceModules } from "../../vitest.shared.js";

// The generated code the tests write into their temp folders (test/helpers.ts `tempDir`) is
// imported by Node itself, as an app imports it, not through Vite's transform: transforming
// every generated validator of the JSON-Schema-Test-Suite and the corpus cost a tenth of the
// package's suite in CPU (docs/suite-time.md). It resolves `@wfr/runtime` and `zod` through the
// folder's own node_modules, so a test that needs the same module instance imports it from there.
const TMP = realpathSync(tmpdir()).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One module graph for all the package's test files (they still run one after another):
    // importing the sources again for each file was most of the suite's CPU time.
    isolate: false,
    // Two files at a time (Vitest's default is cores - 1, one on a 2-core machine): a file that
    // waits on a child process (the built CLI, tsc) leaves a core to the other.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    server: {
      deps: { external: [...builtWorkspaceModules, new RegExp(`^${TMP}/wfr-[^/]+/.*\\.m?js$`)] },
    },
  },
});
