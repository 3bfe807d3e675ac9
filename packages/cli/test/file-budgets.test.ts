// Files named on the command line cost their budget, not their size (docs/limits.md): ten times
// a budget is refused with EXIT.TOO_LARGE naming the flag and the file, before it is read.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CliError } from "../src/cli-error.js";
import { EXIT } from "../src/exit-codes.js";
import { FILE_BUDGET, readFileWithin, readTextFileWithin } from "../src/file-budgets.js";
import { usePulledFixture } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "wfr-file-budgets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sparse file of `bytes`: its size is what stat says, and nothing of it is ever read. */
function sparse(name: string, bytes: number): string {
  const file = join(dir, name);
  writeFileSync(file, "");
  truncateSync(file, bytes);
  return file;
}

function refusal(read: () => unknown): CliError {
  try {
    read();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("readFileWithin", () => {
  it("refuses a file of ten times each budget, naming the flag and the file", () => {
    for (const [name, budget] of Object.entries(FILE_BUDGET)) {
      const file = sparse(`${name}.json`, budget * 10);
      const error = refusal(() => readFileWithin(`--${name}`, file, budget));
      expect(error.exitCode).toBe(EXIT.TOO_LARGE);
      expect(error.message).toBe(
        `--${name} ${file}: ${budget * 10} bytes, over its budget of ${budget} bytes (docs/limits.md)`,
      );
    }
  });

  it("reads a device or a pipe only up to the budget", () => {
    const error = refusal(() => readFileWithin("--api-key-file", "/dev/zero", FILE_BUDGET.secret));
    expect(error.exitCode).toBe(EXIT.TOO_LARGE);
    expect(error.message).toContain(`more than ${FILE_BUDGET.secret} bytes`);
  });

  it("reads a file at its budget whole; a missing file is a usage error", () => {
    const file = join(dir, "exact.txt");
    writeFileSync(file, "k".repeat(FILE_BUDGET.secret));
    expect(readTextFileWithin("--api-key-file", file, FILE_BUDGET.secret)).toHaveLength(
      FILE_BUDGET.secret,
    );
    expect(refusal(() => readFileWithin("--x", join(dir, "none"), 1)).exitCode).toBe(EXIT.USAGE);
  });
});

describe("the commands that read files", () => {
  const fx = usePulledFixture();

  it("wfr launch --inputs and --api-key-file at ten times their budgets: exit 15, nothing sent", async () => {
    const inputs = sparse("inputs.json", FILE_BUDGET.inputs * 10);
    const launched = await fx.wfr(["launch", "Invoice intake", "--inputs", inputs]);
    expect(launched.code, launched.stderr).toBe(EXIT.TOO_LARGE);
    expect(launched.stderr).toContain(`--inputs ${inputs}: ${FILE_BUDGET.inputs * 10} bytes`);
    const key = sparse("key.txt", FILE_BUDGET.secret * 10);
    const read = await fx.wfr(["runs", "get", "run_x", "--api-key-file", key], {
      env: { WFR_PRODUCTION_API_KEY: "" },
    });
    expect(read.code, read.stderr).toBe(EXIT.TOO_LARGE);
    expect(read.stderr).toContain(`--api-key-file ${key}`);
    const runs = (await (
      await fetch(`${fx.emulator.url}/_emulator/environments/production/runs`)
    ).json()) as { runs: unknown[] };
    expect(runs.runs).toEqual([]);
  });
});
