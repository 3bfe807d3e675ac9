#!/usr/bin/env node
// The emulator's sample catalog is edited as YAML (`packages/emulator/fixtures/sample-catalog.yaml`,
// the repo's catalog/sample.yaml with its environments named production and staging) and loaded,
// by every emulator started without a catalog of its own, from the JSON copy written here: reading
// the YAML cost each emulator's start about 0.19 CPU-seconds (importing the `yaml` library and
// parsing 18 KB), the JSON about 1 ms (docs/suite-time.md, "YAML on demand").
// `node scripts/write-sample-catalog.mjs` writes it; `--check` (in `pnpm test`) fails when the copy
// is not the YAML, parsed.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixtures = join(root, "packages", "emulator", "fixtures");
const source = join(fixtures, "sample-catalog.yaml");
const copy = join(fixtures, "sample-catalog.json");
// The emulator's own `yaml`, through the package that reads the definitions.
const yaml = createRequire(join(root, "packages", "definition-reader", "package.json"))("yaml");

const wanted = `${JSON.stringify(yaml.parse(readFileSync(source, "utf8")), null, 2)}\n`;
let current = "";
try {
  current = readFileSync(copy, "utf8");
} catch {}
if (current === wanted) process.exit(0);
if (process.argv.includes("--check")) {
  process.stderr.write(
    `${relative(root, copy)} is not ${relative(root, source)}: run \`node scripts/write-sample-catalog.mjs\`\n`,
  );
  process.exit(1);
}
writeFileSync(copy, wanted);
process.stderr.write(`wrote ${relative(root, copy)}\n`);
