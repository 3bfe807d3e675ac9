#!/usr/bin/env node
// Lints every publishable package as it would be published: packed once
// (`pnpm -r pack`, so `workspace:` ranges are rewritten as on publish), then
// publint (strict) and are-the-types-wrong (profile esm-only: every entry must
// resolve for ESM importers, bundlers and require(esm)) on each tarball, in
// this one process. The per-package `publint && attw --pack` it replaces packed
// each package twice and started TypeScript once per package: 136 s of CPU
// for the suite, most of it start-up.
//
// node scripts/lint-packages.mjs [--keep <dir>]   exit 1 on any problem
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getExitCode } from "@arethetypeswrong/cli/internal/getExitCode";
import { typed as renderTyped } from "@arethetypeswrong/cli/internal/render";
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const ATTW_PROFILE = { ignoreResolutions: ["node10", "node16-cjs"], ignoreRules: [] };

function publishablePackages() {
  const found = [];
  for (const dir of readdirSync(join(ROOT, "packages")).sort()) {
    const file = join(ROOT, "packages", dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    if (!pkg.private) found.push(pkg);
  }
  return found;
}

/** `pnpm` as the running package manager started it, else the pinned one through npx. */
function pnpmCommand() {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath)) return [process.execPath, [execPath]];
  return ["npx", ["--yes", "pnpm@10.34.8"]];
}

/**
 * The repository's URL is written once, in the root package.json (where a fork or a new home
 * changes it); each publishable package must repeat it with its own folder as `directory`, or
 * npm's "Repository" link and source-map consumers point elsewhere.
 */
function repositoryProblems() {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).repository;
  if (!root?.url) return ["package.json (root): no repository.url, the one place it is written"];
  const problems = [];
  for (const dir of readdirSync(join(ROOT, "packages")).sort()) {
    const file = join(ROOT, "packages", dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    if (pkg.private) continue;
    const wanted = { type: root.type ?? "git", url: root.url, directory: `packages/${dir}` };
    if (JSON.stringify(pkg.repository) !== JSON.stringify(wanted))
      problems.push(
        `packages/${dir}/package.json: repository must be ${JSON.stringify(wanted)} (the root package.json's URL, this folder)`,
      );
  }
  return problems;
}

/**
 * What a tarball holds, on purpose (the README's "Packaging"): the built modules and their
 * declarations; `src/` with the declaration and source maps that point into it, so that an
 * editor's "go to definition" and a stack trace land on the TypeScript a user can read; the
 * README, LICENSE and CHANGELOG. Never tests, build info or a map whose source is not shipped.
 */
function contentProblems(name, files) {
  const problems = [];
  for (const required of ["package.json", "README.md", "LICENSE", "CHANGELOG.md"])
    if (!files.includes(required)) problems.push(`${name}: the tarball has no ${required}`);
  for (const file of files) {
    if (/(^|\/)(test|tests|__snapshots__)\//.test(file) || /\.test(-d)?\.[cm]?[jt]s$/.test(file))
      problems.push(`${name}: the tarball ships a test file, ${file}`);
    if (file.endsWith(".tsbuildinfo")) problems.push(`${name}: the tarball ships ${file}`);
  }
  const shipsSources = files.some((f) => f.startsWith("src/"));
  if (files.some((f) => f.endsWith(".map")) && !shipsSources)
    problems.push(`${name}: the tarball ships source maps but not the src/ they point into`);
  return problems;
}

/** The files of a tarball, relative to its package/ folder, and its unpacked size in bytes. */
function tarballListing(file) {
  const lines = execFileSync("tar", ["-tvzf", file], { encoding: "utf8" }).trim().split("\n");
  let unpacked = 0;
  const files = [];
  for (const line of lines) {
    const fields = line.trim().split(/\s+/);
    unpacked += Number(fields[2]) || 0;
    files.push(
      fields
        .slice(5)
        .join(" ")
        .replace(/^package\//, ""),
    );
  }
  return { files, unpacked };
}

const keepAt = process.argv.indexOf("--keep");
const packs = keepAt > 0 ? process.argv[keepAt + 1] : mkdtempSync(join(tmpdir(), "wfr-lint-"));
mkdirSync(packs, { recursive: true });
const failures = repositoryProblems();
try {
  const [command, prefix] = pnpmCommand();
  execFileSync(
    command,
    [...prefix, "-r", "--filter", "./packages/*", "pack", "--pack-destination", packs],
    { cwd: ROOT, stdio: "pipe" },
  );
  for (const pkg of publishablePackages()) {
    const file = join(packs, `${pkg.name.replace("@", "").replace("/", "-")}-${pkg.version}.tgz`);
    if (!existsSync(file)) {
      failures.push(`${pkg.name}: pnpm pack did not write ${file}`);
      continue;
    }
    const tarball = readFileSync(file);
    const data = new Uint8Array(tarball);
    const { files, unpacked } = tarballListing(file);
    failures.push(...contentProblems(pkg.name, files));

    const { messages, pkg: packed } = await publint({
      pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) },
      strict: true,
    });
    // Strict, as `publint --strict`: a warning fails like an error; a suggestion is printed.
    for (const message of messages) {
      const line = `${pkg.name}: publint ${message.type}: ${formatMessage(message, packed)}`;
      if (message.type === "suggestion") console.log(line);
      else failures.push(line);
    }

    const analysis = await checkPackage(createPackageFromTarballData(data));
    if (!analysis.types) failures.push(`${pkg.name}: are-the-types-wrong found no types`);
    else if (getExitCode(analysis, ATTW_PROFILE) !== 0)
      failures.push(
        `${pkg.name}: are-the-types-wrong (esm-only)\n${await renderTyped(analysis, {
          ...ATTW_PROFILE,
          summary: true,
          emoji: false,
          color: false,
          format: "table",
        })}`,
      );
    console.log(
      `lint-packages: ${pkg.name}: ${(tarball.length / 1024).toFixed(1)} KiB packed, ${(unpacked / 1024).toFixed(1)} KiB unpacked, ${files.length} files; publint ${messages.length} message(s), are-the-types-wrong ${analysis.types ? `${analysis.problems.length} problem(s) before the profile` : "no types"}`,
    );
  }
} finally {
  if (keepAt < 0) rmSync(packs, { recursive: true, force: true });
}
if (failures.length > 0) {
  for (const failure of failures) console.error(failure);
  process.exit(1);
}
console.log("lint-packages: every publishable package is clean");
