// Messages name the command the person actually runs: `npx --no wfr generate` in
// an npm project, `pnpm generate` where `wfr init` wrote that script into a
// pnpm project, and so on. Detected from the committed lockfile and scripts,
// so it is the same on a laptop and in CI (the generated headers carry it).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type PackageManager = "npm" | "pnpm" | "yarn";

const LOCKFILES: readonly (readonly [string, PackageManager])[] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];

/** The package manager of the project at `root`: its lockfile, else `packageManager`, else npm. */
export function detectPackageManager(root: string): PackageManager {
  for (const [file, pm] of LOCKFILES) if (existsSync(join(root, file))) return pm;
  const declared = readScripts(root).packageManager;
  if (declared?.startsWith("pnpm@")) return "pnpm";
  if (declared?.startsWith("yarn@")) return "yarn";
  return "npm";
}

/**
 * Yarn 1 ("classic") or Yarn 2 and later ("Berry"): they install and refuse differently
 * (`--frozen-lockfile` against `--immutable`; the runner's Yarn 1 refuses a `packageManager:
 * yarn@4` project unless Corepack is enabled). Read from the `packageManager` field, else from
 * Berry's own files: its `.yarnrc.yml` (classic reads `.yarnrc`) or its lockfile's `__metadata`.
 */
export function yarnFlavour(root: string): YarnFlavour {
  const declared = readScripts(root).packageManager;
  const version = declared === undefined ? undefined : /^yarn@(\d+)\./.exec(declared)?.[1];
  if (version !== undefined) return Number(version) >= 2 ? "berry" : "classic";
  if (existsSync(join(root, ".yarnrc.yml"))) return "berry";
  try {
    if (/^__metadata:/m.test(readFileSync(join(root, "yarn.lock"), "utf8"))) return "berry";
  } catch {
    // No yarn.lock: nothing says Berry.
  }
  return "classic";
}

export type YarnFlavour = "classic" | "berry";

/**
 * Whether Yarn Berry installs this project with Plug'n'Play (its default: no node_modules), read
 * from `nodeLinker` in `.yarnrc.yml`. A line-level read: the file is YAML, and the key is top-level.
 */
export function usesPlugNPlay(root: string): boolean {
  if (detectPackageManager(root) !== "yarn" || yarnFlavour(root) !== "berry") return false;
  let text = "";
  try {
    text = readFileSync(join(root, ".yarnrc.yml"), "utf8");
  } catch {
    // No .yarnrc.yml: Berry's default linker, Plug'n'Play.
  }
  const linker = /^nodeLinker:\s*["']?([\w-]+)/m.exec(text)?.[1];
  return linker === undefined || linker === "pnp";
}

function readScripts(root: string): { scripts: Record<string, string>; packageManager?: string } {
  try {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
      packageManager?: string;
    };
    return {
      scripts: pkg.scripts ?? {},
      ...(pkg.packageManager ? { packageManager: pkg.packageManager } : {}),
    };
  } catch {
    return { scripts: {} };
  }
}

/** How to run `wfr <args>` in the project at `root`: its package script when one runs exactly that, else through the package manager. */
export function wfrCommand(root: string, args: string): string {
  const pm = detectPackageManager(root);
  const { scripts } = readScripts(root);
  const script = Object.keys(scripts)
    .sort()
    .find((name) => scripts[name]?.trim() === `wfr ${args}`);
  if (script !== undefined)
    return pm === "npm" ? `npm run ${script}` : pm === "yarn" ? `yarn ${script}` : `pnpm ${script}`;
  // `npx --no`: where the bin is missing, npx would otherwise install whatever the registry
  // serves under the name `wfr` (not this package's name), without asking off a terminal.
  const run = pm === "npm" ? "npx --no wfr" : pm === "yarn" ? "yarn wfr" : "pnpm exec wfr";
  return `${run} ${args}`;
}

/** The install command for a package in this project, as a devDependency or not. */
export function installCommand(root: string, pkg: string, dev: boolean): string {
  const pm = detectPackageManager(root);
  if (pm === "npm") return `npm i ${dev ? "-D " : ""}${pkg}`;
  return `${pm} add ${dev ? "-D " : ""}${pkg}`;
}
