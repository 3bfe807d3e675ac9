#!/usr/bin/env node
// `pnpm check:architecture`: dependency-cruiser with the rules of .dependency-cruiser.cjs, and a
// check that it really read the TypeScript. It parses .ts through TypeScript's compiler API; where
// it finds none (TypeScript 7 has no such API), it skips every .ts file and reports no violation
// over the scripts alone. So the count of TypeScript modules it cruised must equal the count of
// .ts files in packages/*/src.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
// The bin of the root's own dependency (the package exports no path to it).
const depcruise = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const targets = ["packages", "apps", "bench", "scripts"];

function tsSources() {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.ts$/.test(name) && !name.endsWith(".d.ts")) found.push(full);
    }
  };
  for (const pkg of readdirSync(join(ROOT, "packages"))) {
    const src = join(ROOT, "packages", pkg, "src");
    // The generated package is JavaScript with declarations, never compiled.
    if (pkg !== "generated" && statSync(join(ROOT, "packages", pkg)).isDirectory())
      try {
        walk(src);
      } catch {}
  }
  return found;
}

const report = JSON.parse(
  execFileSync(process.execPath, [depcruise, ...targets, "--output-type", "json"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  }),
);
const expected = tsSources().length;
const cruised = report.modules.filter(
  (m) => /^packages\/[^/]+\/src\/.*\.ts$/.test(m.source) && !m.source.endsWith(".d.ts"),
).length;
const problems = [];
if (cruised < expected)
  problems.push(
    `dependency-cruiser read ${cruised} of the ${expected} TypeScript sources in packages/*/src: it needs TypeScript 5's compiler API beside it (pnpm-workspace.yaml, packageExtensions)`,
  );
for (const v of report.summary.violations)
  problems.push(
    `${v.rule.severity} ${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (circle: ${v.cycle.map((c) => c.name ?? c).join(" → ")})` : ""}`,
  );
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(
  `check-architecture: ${report.summary.totalCruised} modules, ${report.summary.totalDependenciesCruised} imports; ${cruised} TypeScript sources read of ${expected}; no circle, no upward import`,
);
