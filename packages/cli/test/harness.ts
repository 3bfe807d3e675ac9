// Runs the built `wfr` bin as a child process against an in-process emulator.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { afterAll, beforeAll } from "vitest";
import { catalog } from "./catalog.js";

export const BIN = resolve(fileURLToPath(import.meta.url), "../../dist/bin.js");

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runWfr(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; stdin?: string },
): Promise<Result> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

export interface Fixture {
  emulator: RunningEmulator;
  dir: string;
  key: string;
  env: Record<string, string>;
  /** `wfr <args>` in the fixture's repository with its key (`extra.env` adds or blanks variables). */
  wfr(
    args: readonly string[],
    extra?: { env?: Record<string, string>; stdin?: string },
  ): Promise<Result>;
  close(): Promise<void>;
}

export async function adminPost(emulator: RunningEmulator, path: string, body: unknown) {
  const response = await fetch(`${emulator.url}/_emulator${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

export async function adminPut(emulator: RunningEmulator, path: string, body: unknown) {
  const response = await fetch(`${emulator.url}/_emulator${path}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** An emulator on a free loopback port, a key, and a temp repo with wfr.config.json. */
export async function startFixture(): Promise<Fixture> {
  const emulator = await startEmulator({ port: 0, catalog: structuredClone(catalog) });
  const { token } = await adminPost(emulator, "/keys", {
    environment: "production",
    scopes: ["workflows:run", "runs:read"],
  });
  const dir = mkdtempSync(join(tmpdir(), "wfr-cli-"));
  mkdirSync(join(dir, "schemas"));
  writeFileSync(
    join(dir, "wfr.config.json"),
    JSON.stringify({
      schemas: "schemas",
      generatedOut: "generated",
      environments: [
        {
          name: "production",
          baseUrl: `${emulator.url}/production/api/v1`,
          apiKeyEnv: "WFR_PRODUCTION_API_KEY",
        },
      ],
    }),
  );
  const key = String(token);
  const env = { WFR_PRODUCTION_API_KEY: key };
  return {
    emulator,
    dir,
    key,
    env,
    wfr: (args, extra = {}) =>
      runWfr(args, {
        cwd: dir,
        env: { ...env, ...extra.env },
        ...(extra.stdin !== undefined ? { stdin: extra.stdin } : {}),
      }),
    // The `wfr` children a test starts in `dir` have exited by now: runWfr resolves on their exit.
    close: async () => {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** startFixture with the environment's definition already pulled into schemas/ (what launch reads). */
export async function startPulledFixture(): Promise<Fixture> {
  const fx = await startFixture();
  const pulled = await fx.wfr(["schemas", "pull"]);
  if (pulled.code !== 0) {
    await fx.close();
    throw new Error(`wfr schemas pull exited ${pulled.code}: ${pulled.stderr}`);
  }
  return fx;
}

/**
 * `wfr launch invoiceIntake` with a typical valid input, as the setup of a test about something
 * else (a read, a watch, a recording): the new run's id. A launch that fails fails the test here.
 */
export async function launchInvoice(fx: Pick<Fixture, "wfr">): Promise<string> {
  const launched = await fx.wfr([
    "launch",
    "invoiceIntake",
    "--input",
    "vendor_name=A",
    "--input",
    "amount=1",
    "--json",
  ]);
  if (launched.code !== 0)
    throw new Error(`wfr launch exited ${launched.code}: ${launched.stderr}`);
  return String(JSON.parse(launched.stdout).run_id);
}

/**
 * One pulled fixture for the calling test file: started before its tests and
 * closed after them. Its members are read when a test runs.
 */
export function usePulledFixture(): Fixture {
  let started: Fixture | undefined;
  beforeAll(async () => {
    started = await startPulledFixture();
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): Fixture => {
    if (!started) throw new Error("the fixture is started by beforeAll: use it inside a test");
    return started;
  };
  return {
    get emulator() {
      return current().emulator;
    },
    get dir() {
      return current().dir;
    },
    get key() {
      return current().key;
    },
    get env() {
      return current().env;
    },
    wfr: (args, extra) => current().wfr(args, extra),
    close: () => current().close(),
  };
}
