// The emulator's own bin (dist/bin.js, built by the package's build): what it prints at start
// (start-message.ts, the same as `wfr emulator`), and its keys across a restart on one journal.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "wfr-bin-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Start the bin, wait for its start-up text (through the last environment's key), stop it. */
async function startOutput(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, "--port", "0", "--quiet", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stderr.on("data", (d) => {
    out += d;
  });
  await new Promise<void>((ready, fail) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (/staging:[\s\S]*key \(emulator only\): \S+\n/.test(out)) ready();
    });
    child.once("exit", () => fail(new Error(`wfr-emulator exited: ${out}`)));
  });
  const closed = new Promise((r) => child.once("close", r));
  child.kill("SIGTERM");
  expect(await closed).toBe(0);
  return out;
}

const keyOf = (out: string, env: string) =>
  new RegExp(`  ${env}: \\S+\\n(?:    .*\\n)*?    key \\(emulator only\\): (\\S+)`).exec(out)?.[1];

describe("wfr-emulator", { timeout: 60_000 }, () => {
  it("prints each environment's base URL and its API key, never a key in a URL", async () => {
    expect(existsSync(BIN), `${BIN} must be built (pnpm --filter @wfr/emulator build)`).toBe(true);
    const out = await startOutput([]);
    const url = /wfr-emulator listening on (\S+)/.exec(out)?.[1] as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const env of ["production", "staging"]) {
      expect(out).toContain(`  ${env}: ${url}/${env}/api/v1\n`);
      expect(keyOf(out, env)).toMatch(/^wfr_test_\S{16,}$/);
    }
    for (const u of out.match(/https?:\/\/\S+/g) ?? []) expect(u).not.toMatch(/wfr_test_/);
  });

  it("prints the same keys after a restart with the same --data", async () => {
    const data = join(dir, "journal.jsonl");
    const first = await startOutput(["--data", data]);
    const second = await startOutput(["--data", data]);
    for (const env of ["production", "staging"]) {
      expect(keyOf(first, env)).toMatch(/^wfr_test_/);
      expect(keyOf(second, env)).toBe(keyOf(first, env));
    }
  });

  it("prints no key with the admin API off", async () => {
    const child = spawn(process.execPath, [BIN, "--port", "0", "--quiet", "--no-admin"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let out = "";
    await new Promise<void>((ready) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("admin API disabled")) ready();
      });
    });
    const closed = new Promise((r) => child.once("close", r));
    child.kill("SIGTERM");
    await closed;
    expect(out).toContain("  production: ");
    expect(out).not.toContain("key (emulator only)");
  });
});
