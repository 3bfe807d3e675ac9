// "Runs on Node, Bun, Deno and edge runtimes", measured: the runtime's scenario
// (test/runtimes/scenario.ts) bundled once with esbuild for a neutral platform and run against the
// emulator on Node, Bun and Deno (from the npm registry), and as a Worker on workerd at a
// compatibility date with web globals only (no `nodejs_compat`: a core that quietly needs
// `Buffer` or `process` fails there).
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVOICE_WORKFLOW_ID, startTestEmulator, type TestEmulator } from "./support/emulator.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const SECRET = `whsec_${Buffer.from("four runtimes, one signing secret").toString("base64")}`;

let emu: TestEmulator;
let dir: string;
let stalling: Server;
let stallingBaseUrl: string;

/**
 * Bun's binary, from its platform package: the `bun` package links it in a postinstall script,
 * which pnpm does not run (and need not: the binary is in the registry package).
 */
function bunBinary(): string {
  const fromBun = createRequire(require.resolve("bun/package.json"));
  const platform = `@oven/bun-${process.platform}-${process.arch === "x64" ? "x64" : process.arch}`;
  for (const name of [platform, `${platform}-baseline`]) {
    try {
      return join(dirname(fromBun.resolve(`${name}/package.json`)), "bin", "bun");
    } catch {
      // the next variant
    }
  }
  throw new Error(`no Bun binary for ${process.platform}-${process.arch} among bun's packages`);
}

/**
 * workerd's binary from its platform package: the `workerd` package's bin is a Node wrapper that
 * runs it as a grandchild, which a SIGTERM to the wrapper would leave behind.
 */
function workerdBinary(): string {
  const fromWorkerd = createRequire(require.resolve("workerd/package.json"));
  const arch = process.arch === "x64" ? "64" : process.arch;
  const manifest = fromWorkerd.resolve(
    `@cloudflare/workerd-${process.platform}-${arch}/package.json`,
  );
  return join(dirname(manifest), "bin", "workerd");
}

/** The binary a registry package ships (`deno`). */
function bin(pkg: string, name: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bins = require(manifest).bin as string | Record<string, string>;
  const relative = typeof bins === "string" ? bins : (bins[name] as string);
  return join(dirname(manifest), relative);
}

/** A delivery signed as the emulator signs (Standard Webhooks), for the scenario to verify. */
function signedDelivery() {
  const body = JSON.stringify({ event_id: "evt_rt_1", type: "workflow.run.completed", run: {} });
  const id = "evt_rt_1";
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(SECRET.slice("whsec_".length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return {
    secret: SECRET,
    body,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": `v1,${signature}`,
    },
  };
}

function config(runtime: string) {
  return {
    baseUrl: emu.baseUrl,
    apiKey: emu.apiKey,
    runtime,
    stallingBaseUrl,
    webhook: signedDelivery(),
  };
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${command} exited ${code}: ${err.slice(0, 2000)}`)),
    );
  });
}

function reportOf(output: string): Record<string, unknown> {
  const line = output.split("\n").find((l) => l.startsWith("REPORT "));
  if (!line) throw new Error(`no report in: ${output.slice(0, 2000)}`);
  return JSON.parse(line.slice("REPORT ".length)) as Record<string, unknown>;
}

/** How each runtime sent the 5 MiB body: a half-duplex stream, or bytes where it has none. */
const bodyModes: Record<string, string> = {};

/** What every runtime must report. */
function expectScenarioPassed(report: Record<string, unknown>) {
  expect(report.inputError).toEqual({ fields: ["vendor_name"], code: "INVALID_INPUTS" });
  expect(report.launchAndReplay).toEqual({ sameRun: true });
  expect(report.checkpointAndResult).toEqual({ status: "succeeded", total: 1280.5 });
  expect(report.largeAttachment).toMatchObject({ launched: true });
  bodyModes[String(report.runtime)] = (report.largeAttachment as { body: string }).body;
  expect(report.attemptTimeouts).toEqual({ noHeaders: "TIMEOUT", stalledBody: "TIMEOUT" });
  expect(report.webhookSignature).toBe(true);
  expect(report.recording).toMatchObject({ contentType: "video/mp4" });
  expect((report.recording as { bytes: number }).bytes).toBeGreaterThan(0);
}

beforeAll(async () => {
  emu = await startTestEmulator();
  stalling = createServer((req, res) => {
    if (req.url?.endsWith("/runs/stalled-body")) {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"run_id":"run_1",'); // and never the rest
    } // any other request: never answered
  });
  await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
  stallingBaseUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/api/v1`;
  await emu.setScenario(INVOICE_WORKFLOW_ID, {
    steps: [
      { human: { kind: "approval", reason: "Amount above limit", expires_in_ms: 600_000 } },
      {
        succeed: {
          outputs: { invoice_id: "INV-1", total: 1280.5, status: "booked", summary: "booked" },
        },
      },
    ],
    queue_ms: 10,
    start_ms: 10,
  });
  dir = mkdtempSync(join(tmpdir(), "wfr-runtimes-"));
  for (const [entry, out] of [
    ["entry-cli.ts", "cli.mjs"],
    ["entry-worker.ts", "worker.mjs"],
  ] as const)
    await build({
      entryPoints: [join(here, "runtimes", entry)],
      outfile: join(dir, out),
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      target: "es2022",
      logLevel: "silent",
    });
}, 120_000);

afterAll(async () => {
  await emu?.close();
  if (stalling) {
    stalling.closeAllConnections();
    await new Promise((resolve) => stalling.close(resolve));
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the runtime's scenario on four runtimes", { timeout: 180_000 }, () => {
  it("Node", async () => {
    expectScenarioPassed(
      reportOf(await run(process.execPath, [join(dir, "cli.mjs"), JSON.stringify(config("node"))])),
    );
  });

  it("Bun", async () => {
    expectScenarioPassed(
      reportOf(await run(bunBinary(), [join(dir, "cli.mjs"), JSON.stringify(config("bun"))])),
    );
  });

  it("Deno (network limited to the emulator's and the stalling server's addresses)", async () => {
    const hosts = [emu.baseUrl, stallingBaseUrl].map((url) => new URL(url).host).join(",");
    expectScenarioPassed(
      reportOf(
        await run(bin("deno", "deno"), [
          "run",
          `--allow-net=${hosts}`,
          "--no-prompt",
          join(dir, "cli.mjs"),
          JSON.stringify(config("deno")),
        ]),
      ),
    );
  });

  it("workerd, web globals only", async () => {
    const { freePort } = await import("./support/free-port.js");
    const port = await freePort();
    writeFileSync(
      join(dir, "workerd.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local", "private", "public"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.mjs") ],
  compatibilityDate = "2024-09-01",
  globalOutbound = "loopback",
);
`,
    );
    const child = spawn(workerdBinary(), ["serve", join(dir, "workerd.capnp")], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: dir },
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    try {
      let answer: Response | undefined;
      for (let i = 0; i < 200 && !answer; i += 1) {
        try {
          answer = await fetch(`http://127.0.0.1:${port}/`, {
            method: "POST",
            body: JSON.stringify(config("workerd")),
          });
        } catch {
          if (child.exitCode !== null) throw new Error(`workerd exited: ${err.slice(0, 2000)}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      expect(answer?.status, err).toBe(200);
      expectScenarioPassed((await answer?.json()) as Record<string, unknown>);
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("close", r));
    }
  });

  it("each runtime sent the 5 MiB body as a stream (detected: none of the four turns a stream body into text)", () => {
    expect(bodyModes).toEqual({ node: "stream", bun: "stream", deno: "stream", workerd: "stream" });
  });
});
