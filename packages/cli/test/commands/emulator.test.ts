import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it, onTestFinished } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { BIN } from "../harness.js";

/** Runs `wfr` as in a project where the optional peer @wfr/emulator is not installed. */
function wfrWithoutEmulator(args: string[]) {
  const register = resolve(
    fileURLToPath(import.meta.url),
    "../../fixtures/register-without-emulator.mjs",
  );
  const cwd = mkdtempSync(resolve(tmpdir(), "wfr-no-emulator-"));
  try {
    // spawnSync returns once the child has exited (a timed-out one is killed and waited for).
    return spawnSync(process.execPath, ["--import", register, BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "" },
      encoding: "utf8",
      timeout: 20_000,
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

it("without @wfr/emulator installed: the install hint, with or without --scenario, never a --scenario error", () => {
  for (const args of [
    ["emulator", "--port", "0"],
    ["emulator", "--port", "0", "--scenario", "run_1.wfr-run.json"],
    ["emulator", "--port", "0", "--api-fault", "503 GET /runs/*"],
  ]) {
    const r = wfrWithoutEmulator(args);
    expect(r.status, r.stderr).toBe(EXIT.USAGE);
    expect(r.stderr).toContain("needs @wfr/emulator, an optional peer of @wfr/cli");
    expect(r.stderr).toContain("npm i -D @wfr/emulator");
    expect(r.stderr).not.toContain("--scenario");
    expect(r.stderr).not.toContain("--api-fault");
  }
});

it("wfr emulator prints base URLs, a working key and a one-time sign-in link, and stops on SIGTERM", async () => {
  const child = spawn(process.execPath, [BIN, "emulator", "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "" },
  });
  let stdout = "";
  const ready = new Promise<void>((resolveReady) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      if (/staging:[\s\S]*key \(emulator only\)/.test(stdout)) resolveReady();
    });
  });
  try {
    await ready;
    const base = /production: (http:\/\/127\.0\.0\.1:\d+\/production\/api\/v1)/.exec(stdout)?.[1];
    const key = /production:[\s\S]*?key \(emulator only\): (\S+)/.exec(stdout)?.[1];
    expect(base).toBeDefined();
    expect(key).toBeDefined();
    const response = await fetch(`${base}/runs/run_missing`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(404);
    // Requests are logged as the emulator's own bin logs them (one set of options and output).
    await new Promise<void>((logged) => {
      const seen = () => stdout.includes("/runs/run_missing") && logged();
      seen();
      child.stdout.on("data", seen);
    });
    // The printed sign-in link opens the web application once and sets the portal session.
    const link = /sign in \(one-time link\): (\S+)/.exec(stdout)?.[1];
    expect(link).toBeDefined();
    const signIn = await fetch(link as string, { redirect: "manual" });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^wfr_portal_session=/);
    const runs = await fetch(new URL("/", link).toString(), { headers: { cookie } });
    expect(runs.status).toBe(200);
    expect(await runs.text()).toContain("Run history");
    expect((await fetch(link as string, { redirect: "manual" })).status).toBe(401);
  } finally {
    child.kill("SIGTERM");
  }
  const code = await new Promise((r) => child.once("close", r));
  expect(code).toBe(0);
});

it("wfr emulator --api-fault arms a fault on the emulator's API from the start", async () => {
  const child = spawn(
    process.execPath,
    [BIN, "emulator", "--port", "0", "--api-fault", "503 GET /runs/* count=1"],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } },
  );
  let stdout = "";
  const ready = new Promise<void>((resolveReady) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      if (/staging:[\s\S]*key \(emulator only\)/.test(stdout)) resolveReady();
    });
  });
  try {
    await ready;
    const base = /production: (http:\/\/127\.0\.0\.1:\d+\/production\/api\/v1)/.exec(stdout)?.[1];
    const key = /production:[\s\S]*?key \(emulator only\): (\S+)/.exec(stdout)?.[1];
    const read = () =>
      fetch(`${base}/runs/run_missing`, { headers: { authorization: `Bearer ${key}` } });
    const faulted = await read();
    expect(faulted.status).toBe(503);
    expect(((await faulted.json()) as { fault_id: string }).fault_id).toBe("flt_start_1");
    expect((await read()).status).toBe(404);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await new Promise((r) => child.once("close", r))).toBe(0);
});

it("wfr emulator takes the emulator bin's options: an admin token (its key still printed), no request log", async () => {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "emulator",
      "--port",
      "0",
      "--admin-token",
      "adm-secret",
      "--quiet",
      "--allowed-host",
      "wfr.test",
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } },
  );
  let stdout = "";
  await new Promise<void>((ready) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      if (/staging:[\s\S]*key \(emulator only\)/.test(stdout)) ready();
    });
  });
  try {
    const key = /production:[\s\S]*?key \(emulator only\): (\S+)/.exec(stdout)?.[1];
    expect(key).toMatch(/\S{8,}/);
    expect(key).not.toBe("undefined");
    const url = /listening on (\S+)/.exec(stdout)?.[1] as string;
    expect((await fetch(`${url}/_emulator/environments`)).status).toBe(401);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await new Promise((r) => child.once("close", r))).toBe(0);
});

it("wfr emulator --data keeps its keys across a restart, so a team's .env keeps working", async () => {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "wfr-emulator-data-"));
  const startAndReadKey = async () => {
    const child = spawn(
      process.execPath,
      [BIN, "emulator", "--port", "0", "--data", join(dir, "emulator.jsonl"), "--quiet"],
      { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } },
    );
    let stdout = "";
    await new Promise<void>((ready) => {
      child.stdout.on("data", (d) => {
        stdout += d;
        if (/staging:[\s\S]*key \(emulator only\)/.test(stdout)) ready();
      });
    });
    child.kill("SIGTERM");
    expect(await new Promise((r) => child.once("close", r))).toBe(0);
    return /production:[\s\S]*?key \(emulator only\): (\S+)/.exec(stdout)?.[1];
  };
  try {
    const first = await startAndReadKey();
    expect(first).toBeDefined();
    expect(await startAndReadKey()).toBe(first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("wfr emulator refuses an open admin API beyond loopback and an empty admin token: usage errors with the reason, no stack trace, nothing listening", () => {
  const open = spawnSync(process.execPath, [BIN, "emulator", "--port", "0", "--host", "0.0.0.0"], {
    encoding: "utf8",
  });
  expect(open.status).toBe(EXIT.USAGE);
  expect(open.stderr).toMatch(/mint keys through the admin API/);
  expect(open.stderr).not.toMatch(/\n\s+at /);
  const empty = spawnSync(process.execPath, [BIN, "emulator", "--port", "0", "--admin-token", ""], {
    encoding: "utf8",
  });
  expect(empty.status).toBe(EXIT.USAGE);
  expect(empty.stderr).toMatch(/admin token is empty/);
  const twice = spawnSync(
    process.execPath,
    [BIN, "emulator", "--port", "0", "--admin-token", "a"],
    { encoding: "utf8", env: { ...process.env, WFR_EMULATOR_ADMIN_TOKEN: "b" } },
  );
  expect(twice.status).toBe(EXIT.USAGE);
  expect(twice.stderr).toMatch(/give the admin token once/);
});

it("wfr emulator --scenario with a recorded run of an environment it lacks: a usage error naming the file and the environment, no stack trace", () => {
  const dir = mkdtempSync(resolve(tmpdir(), "wfr-scenario-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = resolve(dir, "elsewhere.wfr-run.json");
  writeFileSync(
    file,
    JSON.stringify({
      format: "wfr-recorded-run/1",
      environment: "staging-eu",
      workflow_id: "wf_x",
      recorded_from: { run_id: "run_rec1", api_host: "api.example.com", status: "succeeded" },
      scenario: { steps: [{ succeed: { outputs: {} } }] },
    }),
  );
  const r = spawnSync(process.execPath, [BIN, "emulator", "--port", "0", "--scenario", file], {
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(r.status).toBe(EXIT.USAGE);
  expect(r.stderr).toContain(`--scenario ${file}: `);
  expect(r.stderr).toContain('no environment "staging-eu"');
  expect(r.stderr).not.toMatch(/\n\s+at /);
});
