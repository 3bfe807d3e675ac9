// An app that imports one workflow type-checks only that workflow, and an
// app that only needs types never makes the type checker load zod.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The tsc a team runs: TypeScript 7's native compiler, a process (it has no in-process API).
const TSC = join(
  dirname(createRequire(import.meta.url).resolve("typescript/package.json")),
  "bin",
  "tsc",
);
const dir = mkdtempSync(join(tmpdir(), "wfr-generated-app-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Type-checks `source` as an app of its own; the files the checker loaded (`--listFiles`). */
function program(source: string): readonly string[] {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", type: "module" }));
  mkdirSync(join(dir, "node_modules", "@wfr"), { recursive: true });
  try {
    symlinkSync(PACKAGE, join(dir, "node_modules", "@wfr", "generated"), "dir");
  } catch {}
  writeFileSync(join(dir, "app.ts"), source);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "nodenext",
        target: "es2022",
        strict: true,
        noEmit: true,
        types: [],
      },
      files: ["app.ts"],
    }),
  );
  const run = spawnSync(process.execPath, [TSC, "-p", dir, "--listFiles", "--pretty", "false"], {
    encoding: "utf8",
  });
  const lines = `${run.stdout}${run.stderr}`.split("\n").filter((l) => l !== "");
  expect(lines.filter((l) => /error TS\d+/.test(l))).toEqual([]);
  expect(run.status).toBe(0);
  return lines;
}

// Builds TypeScript programs: generous timeouts for a loaded machine.
const TYPE_CHECK_TIMEOUT = 120_000;

describe("type-checking cost", () => {
  it(
    "importing one workflow loads neither zod nor the other workflows",
    () => {
      const files =
        program(`import { invoiceIntake, buildInvoiceIntakeInputs, type Inputs } from "@wfr/generated/sample/invoiceIntake";
export const inputs: Inputs = { vendor_name: "N", amount: 1, invoice_pdf: null as never };
export const built = buildInvoiceIntakeInputs(inputs);
export const id: "wf_P7Qd2Lx9" = invoiceIntake.id;
`);
      expect(files.some((f) => f.includes("/zod/"))).toBe(false);
      expect(files.some((f) => f.includes("crmContactSync"))).toBe(false);
      expect(files.some((f) => f.endsWith("invoiceIntake.d.ts"))).toBe(true);
    },
    TYPE_CHECK_TIMEOUT,
  );

  it(
    "the environment index is typed without zod too",
    () => {
      const files = program(`import { workflows, environment } from "@wfr/generated/sample";
export const name: "sample" = environment.name;
export const state: "draft" = workflows.quarterlyCloseReport.state;
`);
      expect(files.some((f) => f.includes("/zod/"))).toBe(false);
    },
    TYPE_CHECK_TIMEOUT,
  );
});
