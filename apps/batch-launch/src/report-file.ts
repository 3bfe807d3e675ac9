// The report a batch leaves beside its rows: written whole or not at all (a temporary sibling,
// then a rename), through a name nobody can plant. A fixed `<report>.tmp` would follow a symlink
// someone planted there and write the report wherever it points; a fresh random name, created
// exclusively (`wx`: O_CREAT|O_EXCL, which also refuses to follow a symlink at that name), is
// ours or the write fails.
import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { RowOutcome } from "./launch-batch.js";

/** Writes the outcomes as JSON lines to `report`, atomically. */
export function writeReportFile(report: string, outcomes: readonly RowOutcome[]): void {
  const tmp = join(dirname(report), `.${basename(report)}.${randomBytes(12).toString("hex")}.tmp`);
  // Nothing is removed if this fails: the name, if it exists, is not ours.
  writeFileSync(tmp, `${outcomes.map((o) => JSON.stringify(o)).join("\n")}\n`, { flag: "wx" });
  try {
    renameSync(tmp, report);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
