#!/usr/bin/env node
// `pnpm build` is one `tsc -b tsconfig.build.json`: it builds the projects in the order their
// references give. A package whose sources import another workspace package without
// referencing its build would be built before it on a clean clone (a missing module, or a
// build that passes only by the order of the list); a reference nothing imports orders builds
// for no reason. This check keeps each project's references equal to the workspace packages
// its sources import (statically or with `import()`).
// `node scripts/check-build-references.mjs`; exit 0 when every project agrees.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** tsconfig files carry comments; the build configs do not, but the root one does. */
function readConfig(file) {
  const text = readFileSync(file, "utf8").replace(/^\s*\/\/.*$/gm, "");
  return JSON.parse(text);
}

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|cts|tsx)$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)["'](@wfr\/[a-z-]+)/g;

/** Workspace package name -> its directory, for the packages that have a build config. */
const projects = new Map();
for (const ref of readConfig(join(ROOT, "tsconfig.build.json")).references) {
  const dir = dirname(join(ROOT, ref.path));
  const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name;
  projects.set(name, dir);
}

const problems = [];
for (const [name, dir] of projects) {
  const config = readConfig(join(dir, "tsconfig.build.json"));
  const referenced = new Set(
    (config.references ?? []).map((r) => {
      const target = dirname(resolve(dir, r.path));
      const found = [...projects].find(([, d]) => d === target);
      if (!found) problems.push(`${relative(ROOT, dir)}: references ${r.path}, not a project`);
      return found?.[0];
    }),
  );
  const imported = new Map();
  for (const file of sourceFiles(join(dir, "src"))) {
    for (const [, spec] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      // A package importing itself through its exports, and packages without a build
      // (@wfr/generated is written by the generator, not compiled), need no reference.
      if (spec !== name && projects.has(spec) && !imported.has(spec))
        imported.set(spec, relative(ROOT, file));
    }
  }
  for (const [spec, file] of imported) {
    if (!referenced.has(spec))
      problems.push(
        `${relative(ROOT, dir)}/tsconfig.build.json: ${file} imports ${spec}; add { "path": "${relative(dir, join(projects.get(spec), "tsconfig.build.json"))}" } to its references`,
      );
  }
  for (const spec of referenced) {
    if (spec && !imported.has(spec))
      problems.push(
        `${relative(ROOT, dir)}/tsconfig.build.json: references ${spec}, which its sources never import`,
      );
  }
}

if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`check-build-references: ${p}\n`);
  process.exit(1);
}
process.stdout.write(
  `check-build-references: ${projects.size} projects; every reference matches an import\n`,
);
