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
    // V8 compiles PGlite's 9 MB of WebAssembly again with its optimising tier, in the background,
    // for each database a test opens, and a test's database lives too short to gain from it (the
    // security, browser and two-instance tests run the desk on PGlite in this process: 16.0 to
    // 14.0 CPU-s for the first two, measured side by side). The flag changes how fast WebAssembly
    // runs, not what it does; the crash tests give it to their desk processes likewise.
    execArgv: ["--liftoff-only"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    server: { deps: { external: builtWorkspaceModules } },
  },
});
