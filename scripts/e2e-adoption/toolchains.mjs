// The toolchain versions a team gets today: read from the registry when the test runs, so that
// the matrix follows `latest` without an edit here. Only the oldest TypeScript wfr supports is
// pinned: it is a promise the packages make (`peerDependencies`), not a version that floats.
import { execFile } from "node:child_process";

/** The oldest TypeScript wfr supports: the packages' `peerDependencies` and the README say so. */
export const OLDEST_TYPESCRIPT = "5.9.3";

function npmView(spec) {
  return new Promise((done, reject) =>
    execFile("npm", ["view", spec, "version"], { encoding: "utf8" }, (error, stdout) =>
      error
        ? reject(error)
        : done(
            stdout
              .trim()
              .split("\n")
              .at(-1)
              .replace(/^.*'(.*)'$/, "$1"),
          ),
    ),
  );
}

/** `latest` of each tool the matrix runs, looked up side by side. */
export async function latestToolchains() {
  const [typescript, pnpm, yarn, bun, deno] = await Promise.all([
    npmView("typescript@latest"),
    npmView("pnpm@latest"),
    // Yarn 2 and later are published as @yarnpkg/cli-dist (the `yarn` package is Yarn 1).
    npmView("@yarnpkg/cli-dist@latest"),
    npmView("bun@latest"),
    npmView("deno@latest"),
  ]);
  return { typescript, pnpm, yarn, bun, deno };
}

/**
 * The path of a tool's executable, fetched once through npx: each `npx --yes <pm>` call
 * re-resolves the package (1 to 3 CPU-seconds on 2 cores), and the passes call theirs a dozen
 * times.
 */
export function toolBin(spec, bin) {
  return new Promise((done, reject) =>
    execFile(
      "npx",
      ["--yes", "-p", spec, "-c", `command -v ${bin}`],
      { encoding: "utf8" },
      (error, stdout) => (error ? reject(error) : done(stdout.trim())),
    ),
  );
}
