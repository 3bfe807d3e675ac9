#!/usr/bin/env node
// No hand-written source file over 500 lines (docs/architecture.md#file-length): a file that
// long holds more than one thing, and its name can no longer say what it holds. Counts the lines
// of every .ts/.tsx/.mts/.cts/.js/.mjs/.cjs file under packages/, apps/, scripts/ and bench/,
// except generated code, build output and dependencies; lists the files over the limit and
// exits 1 when there is one.
// `node scripts/check-file-length.mjs`
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LIMIT = 500;
const TREES = ["packages", "apps", "scripts", "bench"];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** Folders never counted: dependencies, build output, caches. */
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", ".turbo", "coverage", "__snapshots__"]);

/** Generated code, written by a tool and checked by its own `--check`, not by hand. */
const GENERATED = [
  "packages/generated/", // `pnpm generate` (packages/codegen)
  "packages/runtime/src/wire/", // `pnpm --filter @wfr/runtime gen:wire` (openapi-typescript)
];

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const path = relative(ROOT, full).split("\\").join("/");
    if (GENERATED.some((prefix) => `${path}/`.startsWith(prefix))) continue;
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name) && !entry.name.startsWith(".")) yield* sourceFiles(full);
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts")) yield path;
  }
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(path) {
  const text = readFileSync(join(ROOT, path), "utf8");
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") || text === "" ? newlines : newlines + 1;
}

const over = [];
let counted = 0;
for (const tree of TREES) {
  for (const path of sourceFiles(join(ROOT, tree))) {
    counted++;
    const lines = lineCount(path);
    if (lines > LIMIT) over.push({ path, lines });
  }
}
over.sort((a, b) => b.lines - a.lines);

for (const f of over) console.error(`${f.lines} lines  ${f.path}: over ${LIMIT}`);
if (over.length > 0) {
  console.error(
    `${over.length} hand-written file(s) over ${LIMIT} lines: split each by what it is about (docs/architecture.md#file-length).`,
  );
  process.exit(1);
}
console.log(`${counted} hand-written source files, none over ${LIMIT} lines.`);
