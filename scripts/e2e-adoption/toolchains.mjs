// The toolchain versions a team gets today: read from the registry when the test runs, so that
// the matrix follows `latest` without an edit here. Only the oldest TypeScript wfr supports is
// pinned: it is a promise the packages make (`peerDependencies`), not a version that floats.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";

/** The oldest TypeScript wfr supports: the packages' `peerDependencies` and the README say so. */
export const OLDEST_TYPESCRIPT = "5.9.3";

function run(command, args) {
  return new Promise((done, reject) =>
    execFile(command, args, { encoding: "utf8" }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stderr}`))
        : done(stdout),
    ),
  );
}

/**
 * The registry npm is configured with and the certificate authorities it trusts (its `cafile`,
 * where one is set), read by one npm process: every package but the @wfr scope comes from there.
 */
export async function npmRegistry() {
  const lines = (await run("npm", ["config", "get", "registry", "cafile"])).trim().split("\n");
  const value = (key) =>
    lines
      .find((l) => l.startsWith(`${key}=`))
      ?.slice(key.length + 1)
      .trim() ?? "";
  const cafile = value("cafile");
  const registry = value("registry");
  if (!/^https?:\/\//.test(registry)) throw new Error(`npm config get registry said ${lines}`);
  return {
    registry: registry.endsWith("/") ? registry : `${registry}/`,
    caFile: ["", "null", "undefined"].includes(cafile) ? undefined : cafile,
  };
}

/**
 * A package's `latest` dist-tag, as `npm view <name>@latest version` reads it, by one request
 * from this process: five `npm view` processes cost about 3 CPU-seconds under load.
 */
function latestOf(registry, caFile, name) {
  const url = new URL(`-/package/${name.replace("/", "%2f")}/dist-tags`, registry);
  return new Promise((done, reject) => {
    const req = request(
      url,
      { headers: { accept: "application/json" }, ...(caFile ? { ca: readFileSync(caFile) } : {}) },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => {
          const latest = res.statusCode === 200 ? JSON.parse(body).latest : undefined;
          if (typeof latest === "string") done(latest);
          else
            reject(
              new Error(`${url}: HTTP ${res.statusCode}, no latest tag: ${body.slice(0, 200)}`),
            );
        });
      },
    );
    req.on("error", (error) => reject(new Error(`${url}: ${error.message}`)));
    req.end();
  });
}

/** `latest` of each tool the matrix runs, looked up side by side. */
export async function latestToolchains({ registry, caFile }) {
  const [typescript, pnpm, yarn, bun, deno] = await Promise.all(
    // Yarn 2 and later are published as @yarnpkg/cli-dist (the `yarn` package is Yarn 1).
    ["typescript", "pnpm", "@yarnpkg/cli-dist", "bun", "deno"].map((name) =>
      latestOf(registry, caFile, name),
    ),
  );
  return { typescript, pnpm, yarn, bun, deno };
}

/**
 * The path of a tool's executable, installed once per exact version into the test's shared
 * cache: `npx --yes -p <spec>` re-resolved the package on every run (about 3 CPU-seconds each
 * under load, five tools a run), and an installed version never changes. Installed aside and
 * renamed into place, so a run beside this one never sees half of one.
 */
export async function toolBin(cache, spec, bin) {
  const tools = join(cache, "tools");
  const dir = join(tools, spec.replace("/", "+"));
  const path = join(dir, "node_modules", ".bin", bin);
  if (existsSync(path)) return path;
  mkdirSync(tools, { recursive: true });
  const aside = mkdtempSync(join(tools, ".installing-"));
  try {
    await run("npm", [
      "install",
      "--prefix",
      aside,
      "--cache",
      join(cache, "npm"),
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--loglevel=error",
      spec,
    ]);
    try {
      renameSync(aside, dir);
    } catch (error) {
      // Another run installed the same version first: theirs is as good.
      if (!existsSync(path)) throw error;
    }
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  if (!existsSync(path)) throw new Error(`npm install ${spec} gave no ${bin} executable`);
  return path;
}
