// The report is written through a fresh temporary name created exclusively: a symlink planted at
// the old fixed `<report>.tmp` name (or anywhere) is never followed.
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { writeReportFile } from "../src/report-file.js";

describe("writeReportFile", () => {
  it("does not follow a symlink planted at <report>.tmp; the report is written whole", () => {
    const dir = mkdtempSync(join(tmpdir(), "batch-report-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    const report = join(dir, "rows.csv.report.jsonl");
    symlinkSync(victim, `${report}.tmp`);
    writeReportFile(report, [{ row: 1, run_id: "run_1" } as never]);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(report).isSymbolicLink()).toBe(false);
    expect(readFileSync(report, "utf8")).toBe(`${JSON.stringify({ row: 1, run_id: "run_1" })}\n`);
    // No temporary file is left behind; the planted link is left alone.
    expect(readdirSync(dir).sort()).toEqual(
      ["rows.csv.report.jsonl", "rows.csv.report.jsonl.tmp", "victim.txt"].sort(),
    );
  });
});
