// The command tree: help with examples on every command, usage errors, the version, and a startup
// that loads only what the command needs. `wfr --help` must not load TypeScript (codegen,
// ts-morph) or the emulator: every module resolved while it runs is recorded by a resolve hook.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { BIN, runWfr } from "./harness.js";

const register = resolve(fileURLToPath(import.meta.url), "../fixtures/register-recorder.mjs");

function modulesLoadedBy(args: string[], expectedStatus = 0): string[] {
  const dir = mkdtempSync(join(tmpdir(), "wfr-startup-"));
  const log = join(dir, "resolved.txt");
  try {
    const r = spawnSync(process.execPath, ["--import", register, BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", WFR_RESOLVE_LOG: log },
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(expectedStatus);
    return readFileSync(log, "utf8").trim().split("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it("wfr --help loads neither TypeScript, codegen nor the emulator", () => {
  const loaded = modulesLoadedBy(["--help"]);
  expect(loaded.some((u) => u.includes("commander"))).toBe(true);
  // The packages' built output (the CLI's own commands/emulator/ folder is not the emulator).
  for (const heavy of ["typescript", "ts-morph", "/codegen/dist/", "/emulator/dist/", "@clack"])
    expect(loaded.filter((u) => u.includes(heavy))).toEqual([]);
});

it("the recorder sees codegen when a command needs it (so the check above can fail)", () => {
  // `wfr diff` on missing files loads codegen, which reports the missing file (exit 2).
  const loaded = modulesLoadedBy(["diff", "missing-old.json", "missing-new.json"], 2);
  expect(loaded.some((u) => u.includes("/codegen/dist/"))).toBe(true);
});

it("every command has --help with examples", async () => {
  for (const cmd of [
    ["init"],
    ["schemas", "pull"],
    ["generate"],
    ["diff"],
    ["launch"],
    ["runs", "watch"],
    ["runs", "answer"],
    ["emulator"],
  ]) {
    const r = await runWfr([...cmd, "--help"], { cwd: tmpdir() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Examples:");
  }
});

it("a mistyped subcommand or a missing required option is a usage error (exit 2)", async () => {
  const dir = tmpdir();
  const typo = await runWfr(["runs", "wach", "run_1"], { cwd: dir });
  expect(typo.code, typo.stderr).toBe(EXIT.USAGE);
  const missing = await runWfr(["runs", "recording", "run_1"], { cwd: dir });
  expect(missing.code, missing.stderr).toBe(EXIT.USAGE);
  expect(missing.stderr).toContain("--output");
});

it("--version prints the version in package.json (what changesets bumps)", async () => {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const r = await runWfr(["--version"], { cwd: tmpdir() });
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe(version);
});
