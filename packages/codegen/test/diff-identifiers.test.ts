// `diff` reads the identifier pins `generate` uses (identifiers.lock.json and
// the wfr.codegen.json aliases), so a display-name rename that keeps its
// identifier is reported as a rename, not as a false
// `workflow-identifier-changed`. Through the built CLI.
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { DiffReport } from "../src/diff.js";
import { wfrCodegen } from "./cli-process.js";
import { cleanupTempDirs, EXAMPLE_SCHEMAS, readJson, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

const INVOICE = "wf_P7Qd2Lx9";

/** A project folder with schemas/sample and an untouched copy of it as old/. */
function project(): string {
  const dir = tempDir("wfr-diff-pins-");
  cpSync(join(EXAMPLE_SCHEMAS, "sample"), join(dir, "schemas", "sample"), {
    recursive: true,
  });
  cpSync(join(EXAMPLE_SCHEMAS, "sample"), join(dir, "old"), { recursive: true });
  return dir;
}

function renameInvoiceIntake(dir: string, name: string): void {
  const file = join(dir, "schemas", "sample", "openapi.json");
  const doc = readJson(file) as {
    paths: Record<string, { post: { "x-workflow": { name: string } } }>;
  };
  const xw = doc.paths[`/automations/${INVOICE}/runs`]?.post["x-workflow"];
  if (!xw) throw new Error("the example schemas changed: no invoice intake workflow");
  xw.name = name;
  writeJson(file, doc);
}

function diffJson(dir: string, extra: readonly string[] = []): DiffReport {
  const r = wfrCodegen(["diff", "old", "schemas/sample", "--format", "json", ...extra], dir);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as DiffReport;
}

const kinds = (report: DiffReport) => report.changes.map((c) => c.kind);

describe("diff reads the identifier pins generate uses", () => {
  it("a rename pinned by the identifier lock is a rename, not an identifier change; generate notes how to adopt the new name", () => {
    const dir = project();
    expect(wfrCodegen(["generate"], dir).status).toBe(0);
    expect(readJson(join(dir, "packages", "generated", "identifiers.lock.json"))).toMatchObject({
      environments: { sample: { [INVOICE]: "invoiceIntake" } },
    });
    renameInvoiceIntake(dir, "Invoice capture");

    const report = diffJson(dir);
    expect(kinds(report)).toContain("workflow-renamed");
    expect(kinds(report)).not.toContain("workflow-identifier-changed");

    // Without the lock (another folder), the same two files do change the identifier:
    // the lock is what makes the difference.
    const elsewhere = tempDir("wfr-diff-nolock-");
    const unpinned = wfrCodegen(
      ["diff", join(dir, "old"), join(dir, "schemas", "sample"), "--format", "json"],
      elsewhere,
    );
    expect(unpinned.status).toBe(0);
    const changed = (JSON.parse(unpinned.stdout) as DiffReport).changes.find(
      (c) => c.kind === "workflow-identifier-changed",
    );
    expect(changed).toMatchObject({ before: "invoiceIntake", after: "invoiceCapture" });

    // An explicit --lock works from anywhere.
    const explicit = wfrCodegen(
      [
        "diff",
        join(dir, "old"),
        join(dir, "schemas", "sample"),
        "--format",
        "json",
        "--lock",
        join(dir, "packages", "generated", "identifiers.lock.json"),
      ],
      elsewhere,
    );
    expect(kinds(JSON.parse(explicit.stdout) as DiffReport)).not.toContain(
      "workflow-identifier-changed",
    );

    // generate keeps the identifier and says how to adopt the new name.
    const regenerated = wfrCodegen(["generate"], dir);
    expect(regenerated.status).toBe(0);
    expect(regenerated.stdout).toContain(
      `note: sample: ${INVOICE} is now named "Invoice capture" but keeps the identifier invoiceIntake`,
    );
    expect(regenerated.stdout).toContain(
      "to adopt invoiceCapture, remove its entry from identifiers.lock.json and regenerate",
    );
  });

  it("a rename pinned by a wfr.codegen.json alias is a rename, not an identifier change", () => {
    const dir = project();
    writeJson(join(dir, "wfr.codegen.json"), {
      aliases: { sample: { [INVOICE]: "invoices" } },
    });
    renameInvoiceIntake(dir, "Invoice capture");
    const report = diffJson(dir);
    expect(kinds(report)).toContain("workflow-renamed");
    expect(kinds(report)).not.toContain("workflow-identifier-changed");

    const withConfig = wfrCodegen(
      [
        "diff",
        join(dir, "old"),
        join(dir, "schemas", "sample"),
        "--format",
        "json",
        "--config",
        join(dir, "wfr.codegen.json"),
      ],
      tempDir(),
    );
    expect(kinds(JSON.parse(withConfig.stdout) as DiffReport)).not.toContain(
      "workflow-identifier-changed",
    );
  });

  it("a real identifier change is still reported when the lock has no entry for the workflow", () => {
    const dir = project();
    mkdirSync(join(dir, "packages", "generated"), { recursive: true });
    writeFileSync(
      join(dir, "packages", "generated", "identifiers.lock.json"),
      `${JSON.stringify({ version: 1, environments: { sample: {} } })}\n`,
    );
    renameInvoiceIntake(dir, "Invoice capture");
    expect(kinds(diffJson(dir))).toContain("workflow-identifier-changed");
  });

  it("a --lock or --config that does not exist, or a lock that is not JSON, exits 2 naming it", () => {
    const dir = project();
    const lock = wfrCodegen(["diff", "old", "schemas/sample", "--lock", "nope.json"], dir);
    expect(lock.status).toBe(2);
    expect(lock.stderr).toContain("nope.json: identifier lock not found");
    const config = wfrCodegen(["diff", "old", "schemas/sample", "--config", "nope.json"], dir);
    expect(config.status).toBe(2);
    expect(config.stderr).toContain("nope.json#: config file not found");
    mkdirSync(join(dir, "packages", "generated"), { recursive: true });
    writeFileSync(join(dir, "packages", "generated", "identifiers.lock.json"), "{");
    const broken = wfrCodegen(["diff", "old", "schemas/sample"], dir);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/identifiers\.lock\.json#: not valid JSON/);
    expect(broken.stdout).toBe("");
  });
});
