#!/usr/bin/env node
// Each package that names its own version in code (the runtime's User-Agent, the MCP server's and
// the CLI's `--version`) imports it from `src/version.ts`, written here from its package.json: the
// one place `changeset version` bumps. `pnpm version-packages` runs this after changesets;
// `--check` (in `pnpm test`) fails when a version.ts differs from its package.json.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const VERSIONED_PACKAGES = ["packages/runtime", "packages/mcp", "packages/cli"];

function versionModule(version) {
  return `// Written by scripts/write-versions.mjs from package.json (changesets bumps it there); do not edit.\nexport const VERSION = ${JSON.stringify(version)};\n`;
}

const check = process.argv.includes("--check");
let stale = 0;
for (const dir of VERSIONED_PACKAGES) {
  const { name, version } = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  const file = join(root, dir, "src", "version.ts");
  const wanted = versionModule(version);
  let current = "";
  try {
    current = readFileSync(file, "utf8");
  } catch {}
  if (current === wanted) continue;
  if (check) {
    stale++;
    process.stderr.write(
      `${relative(root, file)} does not say ${name}'s version ${version}: run \`node scripts/write-versions.mjs\`\n`,
    );
  } else {
    writeFileSync(file, wanted);
    process.stderr.write(`wrote ${relative(root, file)} (${name} ${version})\n`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
