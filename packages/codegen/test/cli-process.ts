// Runs the built `wfr-codegen` bin (dist/cli.js) as a child process: the path
// a user takes, with real exit codes, stdout, stderr and the disk afterwards.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { CODEGEN_DIR } from "./helpers.js";

const CLI = join(CODEGEN_DIR, "dist", "cli.js");

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function wfrCodegen(args: readonly string[], cwd: string): CliResult {
  expect(existsSync(CLI), "build @wfr/codegen first (turbo does)").toBe(true);
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: "utf8",
    // A stack overflow in the child must surface as a failure, not hang the suite.
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
