// `wfr exit-codes`: the table (its rows are checked against the README in test/exit-codes.test.ts),
// and every command `wfr --help` names for it prints that table.
import { tmpdir } from "node:os";
import { expect, it } from "vitest";
import { EXIT, type ExitName } from "../../src/exit-codes.js";
import { runWfr } from "../harness.js";

/** Whether the text has a row for every exit code: its number, then its name. */
function hasEveryRow(text: string): boolean {
  return (Object.keys(EXIT) as ExitName[]).every((name) =>
    new RegExp(`^\\s*${EXIT[name]}\\s+${name}\\s`, "m").test(text),
  );
}

it("exit-codes prints the table", async () => {
  const r = await runWfr(["exit-codes"], { cwd: tmpdir() });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("IDEMPOTENCY_CONFLICT");
  expect(hasEveryRow(r.stdout)).toBe(true);
});

it("every command `wfr --help` points to for the exit codes prints the table", async () => {
  const help = await runWfr(["--help"], { cwd: tmpdir() });
  const pointer = help.stdout.split("\n").find((line) => line.startsWith("Exit codes:"));
  const commands = [...(pointer ?? "").matchAll(/`wfr ([^`]+)`/g)].map((m) => m[1] as string);
  expect(commands.length, `no command named in: ${pointer}`).toBeGreaterThan(0);
  expect(commands).toContain("help exit-codes");
  for (const command of commands) {
    const r = await runWfr(command.split(" "), { cwd: tmpdir() });
    expect(r.code, command).toBe(0);
    expect(hasEveryRow(r.stdout), `\`wfr ${command}\` printed:\n${r.stdout}`).toBe(true);
  }
});
