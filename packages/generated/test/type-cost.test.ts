// An app that imports one workflow type-checks only that workflow, and an
// app that only needs types never makes the type checker load zod.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "wfr-generated-app-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function program(source: string): readonly string[] {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", type: "module" }));
  mkdirSync(join(dir, "node_modules", "@wfr"), { recursive: true });
  try {
    symlinkSync(PACKAGE, join(dir, "node_modules", "@wfr", "generated"), "dir");
  } catch {}
  writeFileSync(join(dir, "app.ts"), source);
  const p = ts.createProgram({
    rootNames: [join(dir, "app.ts")],
    options: {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      types: [],
    },
  });
  const errors = ts
    .getPreEmitDiagnostics(p)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(errors).toEqual([]);
  return p.getSourceFiles().map((f) => f.fileName);
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
