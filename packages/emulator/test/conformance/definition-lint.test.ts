// Two linters nobody here wrote read the definitions the emulator serves: Spectral with its
// `spectral:oas` ruleset (.spectral.yaml: one rule off, with its reason) and Redocly's
// recommended rules. Any error fails; the warnings kept are listed, with reasons, in the README
// ("The definition, linted").
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Harness } from "./support.js";

const PACKAGE = fileURLToPath(new URL("../../", import.meta.url));
const bin = (name: string) => join(PACKAGE, "node_modules", ".bin", name);
// Offline and quiet: no telemetry, no update check (nothing may leave the machine).
const ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  NO_COLOR: "1",
};

let h: Harness;
let dir: string;
const files: string[] = [];

beforeAll(async () => {
  h = await Harness.start();
  dir = mkdtempSync(join(tmpdir(), "wfr-lint-"));
  for (const env of ["production", "staging"]) {
    const text = await (await fetch(`${h.url}/${env}/api-docs/openapi.json`)).text();
    const file = join(dir, `${env}.openapi.json`);
    writeFileSync(file, text);
    files.push(file);
  }
});
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("Spectral (spectral:oas) finds no error in the emitted definitions", () => {
  const run = spawnSync(
    bin("spectral"),
    ["lint", ...files, "--ruleset", join(PACKAGE, ".spectral.yaml"), "--format", "json", "--quiet"],
    { encoding: "utf8", env: ENV, timeout: 300_000 },
  );
  const results = JSON.parse(run.stdout || "[]") as { code: string; severity: number }[];
  const errors = results.filter((r) => r.severity === 0);
  const warnings = results.filter((r) => r.severity === 1);
  const byRule = new Map<string, number>();
  for (const w of warnings) byRule.set(w.code, (byRule.get(w.code) ?? 0) + 1);
  process.stdout.write(
    `spectral: ${errors.length} errors, ${warnings.length} warnings (${[...byRule]
      .map(([rule, count]) => `${rule} ${count}`)
      .join(", ")})\n`,
  );
  expect(errors).toEqual([]);
}, 300_000);

it("Redocly (recommended rules) finds no error in the emitted definitions", () => {
  let errors = 0;
  const warnings = new Map<string, number>();
  for (const file of files) {
    const run = spawnSync(bin("redocly"), ["lint", file, "--format", "json"], {
      encoding: "utf8",
      env: ENV,
      timeout: 300_000,
    });
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string }[];
    };
    errors += report.totals.errors;
    for (const p of report.problems)
      if (p.severity === "warn") warnings.set(p.ruleId, (warnings.get(p.ruleId) ?? 0) + 1);
    expect(run.status, run.stderr).toBe(0);
  }
  process.stdout.write(
    `redocly: ${errors} errors, ${[...warnings.values()].reduce((a, b) => a + b, 0)} warnings (${[
      ...warnings,
    ]
      .map(([rule, count]) => `${rule} ${count}`)
      .join(", ")})\n`,
  );
  expect(errors).toBe(0);
}, 300_000);
