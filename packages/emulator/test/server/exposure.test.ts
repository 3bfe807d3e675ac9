// A careless default exposes nothing (server/exposure.ts): beyond loopback the admin API needs a
// token or an explicit word; an empty token is refused; secrets need not be in argv; the journal
// is readable by its owner only.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { EmulatorOptionError, startEmulator } from "../../src/index.js";
import { exposureProblem, isLoopbackHost } from "../../src/server/exposure.js";

const BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "wfr-exposure-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { admin: true, adminToken: undefined, exposeAdminWithoutToken: false };

/** Each start of the emulator's bin loads all of it: seconds apiece on a busy machine. */
const SPAWNING_TIMEOUT = 180_000;

/** The bin run to its exit, without blocking this worker while it starts. */
function exitOf(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((done, fail) => {
    child.once("error", fail);
    child.once("close", (status) => done({ status, stderr }));
  });
}

describe("exposure", () => {
  it("loopback names and addresses are loopback; every other host is not", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "[::]", "192.168.1.5", "10.0.0.1", "example.com"])
      expect(isLoopbackHost(h)).toBe(false);
  });

  it("beyond loopback, the open admin API is refused unless a token, --no-admin or the explicit flag", () => {
    expect(exposureProblem({ ...base, host: "0.0.0.0" })).toMatch(/mint keys/);
    expect(exposureProblem({ ...base, host: "::" })).toMatch(/--admin-token-file/);
    expect(exposureProblem({ ...base, host: "0.0.0.0", adminToken: "t0k" })).toBeNull();
    expect(exposureProblem({ ...base, host: "0.0.0.0", admin: false })).toBeNull();
    expect(exposureProblem({ ...base, host: "0.0.0.0", exposeAdminWithoutToken: true })).toBeNull();
    expect(exposureProblem({ ...base, host: "127.0.0.1" })).toBeNull();
  });

  it("an empty admin token is refused, on loopback too", async () => {
    expect(exposureProblem({ ...base, host: "127.0.0.1", adminToken: "" })).toMatch(/empty/);
    expect(exposureProblem({ ...base, host: "127.0.0.1", adminToken: "  " })).toMatch(/empty/);
    await expect(startEmulator({ port: 0, adminToken: "" })).rejects.toBeInstanceOf(
      EmulatorOptionError,
    );
  });

  it("startEmulator refuses 0.0.0.0 with an open admin API before it listens", async () => {
    await expect(startEmulator({ port: 0, host: "0.0.0.0" })).rejects.toThrow(/mint keys/);
  });

  it("wfr-emulator: --host 0.0.0.0 without a token and --admin-token '' exit 1 with the reason", {
    timeout: SPAWNING_TIMEOUT,
  }, async () => {
    const open = await exitOf([BIN, "--port", "0", "--host", "0.0.0.0"]);
    expect(open.status).toBe(1);
    expect(open.stderr).toMatch(/mint keys/);
    const empty = await exitOf([BIN, "--port", "0", "--admin-token", ""]);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/admin token is empty/);
    const twice = await exitOf(
      [BIN, "--port", "0", "--admin-token", "a", "--admin-token-file", "/nonexistent"],
      { WFR_EMULATOR_ADMIN_TOKEN: "b" },
    );
    expect(twice.status).toBe(1);
    expect(twice.stderr).toMatch(/give the admin-token once/);
  });

  it("the admin token from a file or the environment guards the admin API (never in argv)", {
    timeout: SPAWNING_TIMEOUT,
  }, async () => {
    const file = join(dir, "admin-token");
    writeFileSync(file, "from-a-file\n", { mode: 0o600 });
    for (const [args, env] of [
      [["--admin-token-file", file], {}],
      [[], { WFR_EMULATOR_ADMIN_TOKEN: "from-the-environment" }],
    ] as const) {
      const child = spawn(process.execPath, [BIN, "--port", "0", "--quiet", ...args], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        const url = await new Promise<string>((ready, fail) => {
          let out = "";
          child.stdout.on("data", (d) => {
            out += d;
            const found = /listening on (\S+)/.exec(out)?.[1];
            if (found) ready(found);
          });
          child.once("exit", () => fail(new Error(out)));
        });
        const token =
          "WFR_EMULATOR_ADMIN_TOKEN" in env ? env.WFR_EMULATOR_ADMIN_TOKEN : "from-a-file";
        const without = await fetch(`${url}/_emulator/keys`, { method: "POST", body: "{}" });
        expect(without.status).toBe(401);
        const withToken = await fetch(`${url}/_emulator/clock`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(withToken.status).toBe(200);
      } finally {
        const closed = new Promise((r) => child.once("close", r));
        child.kill("SIGTERM");
        await closed;
      }
    }
  });

  it("the journal is created readable by its owner only, and an older one is narrowed", async () => {
    const fresh = join(dir, "fresh.jsonl");
    const emu = await startEmulator({ port: 0, data: fresh });
    await emu.close();
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    const older = join(dir, "older.jsonl");
    writeFileSync(older, "");
    chmodSync(older, 0o644);
    const again = await startEmulator({ port: 0, data: older });
    await again.close();
    expect(statSync(older).mode & 0o777).toBe(0o600);
  });
});
