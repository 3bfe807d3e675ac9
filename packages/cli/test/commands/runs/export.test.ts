// `wfr runs export` records a finished run into a file; `wfr emulator --scenario <file>` replays it
// (the same events, checkpoint and outputs); an unfinished run is refused.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { adminPut, BIN, type Fixture, runWfr, startFixture } from "../../harness.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  expect((await runWfr(["schemas", "pull"], { cwd: fx.dir, env: fx.env })).code).toBe(0);
});
afterAll(async () => {
  await fx?.close();
});

const wfr = (args: string[]) => runWfr(args, { cwd: fx.dir, env: fx.env });

// biome-ignore lint/suspicious/noExplicitAny: wire JSON read by a test
type Json = Record<string, any>;

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Json;
}

/** Launches wf_invoice1, answers its checkpoint, and returns its id once it ended. */
async function playThrough(base: string, key: string): Promise<string> {
  const run = await api(base, key, "POST", "/automations/wf_invoice1/runs", {
    inputs: { vendor_name: "A", amount: 1 },
    metadata: { customer: "c-secret-7" },
  });
  for (;;) {
    const current = await api(base, key, "GET", `/runs/${run.run_id}`);
    if (current.status === "waiting_for_human_live" && !current.human_action.response_accepted)
      await api(base, key, "POST", `/runs/${run.run_id}/human-input`, {
        checkpoint_id: current.human_action.checkpoint_id,
        response: { approved: true },
      });
    if (["succeeded", "failed", "error"].includes(current.status)) return run.run_id;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const eventTypes = async (base: string, key: string, runId: string) =>
  ((await api(base, key, "GET", `/runs/${runId}/events`)).events as { type: string }[]).map(
    (e) => e.type,
  );

/** Event fields a deny-list of secret-looking names let through in clear. */
const SECRETS = {
  private_key: "pk-1111",
  jwt: "jwt-2222",
  bearer: "bearer-3333",
  auth: "auth-4444",
  pwd: "pwd-5555",
  mfa_code: "mfa-6666",
  pin: "pin-7777",
  session: "session-8888",
};

describe("runs export, and the emulator replaying it", () => {
  it("records the run without its metadata and replays its events, checkpoint and outputs", async () => {
    await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
      steps: [
        { event: { type: "step.started", name: "book", api_token: "tok-123", ...SECRETS } },
        { wait_ms: 30 },
        { human: { kind: "approval", reason: "Check it", expires_in_ms: 600_000 } },
        { succeed: { outputs: { invoice_id: "INV-REC-1", api_key: "sk-output-9", count: 3 } } },
      ],
      queue_ms: 10,
      start_ms: 10,
    });
    const base = `${fx.emulator.url}/production/api/v1`;
    const runId = await playThrough(base, fx.key);
    const file = join(fx.dir, "recorded.wfr-run.json");
    const r = await wfr(["runs", "export", runId, "-o", file]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(r.stderr).toContain("wfr emulator --scenario");
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("c-secret-7");
    expect(text).not.toContain("tok-123");
    expect(text).not.toContain(fx.key);
    // By allow-list: no value of the run is in the file, only its shape.
    for (const value of [...Object.values(SECRETS), "sk-output-9", "INV-REC-1", "Check it", "book"])
      expect(text).not.toContain(value);
    expect(text).toContain('"private_key": "[redacted]"');
    const recorded = JSON.parse(text);
    expect(recorded).toMatchObject({
      format: "wfr-recorded-run/1",
      environment: "production",
      workflow_id: "wf_invoice1",
      recorded_from: { run_id: runId, status: "succeeded" },
    });

    // The replay: the CLI's own emulator command, with the catalog the fixture uses.
    const catalogFile = join(fx.dir, "catalog.json");
    const { catalog } = await import("../../catalog.js");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(catalogFile, JSON.stringify(catalog));
    const child = spawn(
      process.execPath,
      [BIN, "emulator", "--port", "0", "--catalog", catalogFile, "--scenario", file],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { PATH: process.env.PATH ?? "" },
      },
    );
    let stdout = "";
    const ready = new Promise<void>((resolve) => {
      child.stdout.on("data", (d) => {
        stdout += d;
        if (/key \(emulator only\)/.test(stdout)) resolve();
      });
    });
    try {
      await ready;
      expect(stdout).toContain(`replaying ${runId} (succeeded) for production wf_invoice1`);
      const replayBase = /production: (http:\/\/127\.0\.0\.1:\d+\/production\/api\/v1)/.exec(
        stdout,
      )?.[1] as string;
      const replayKey = /key \(emulator only\): (\S+)/.exec(stdout)?.[1] as string;
      const replayedId = await playThrough(replayBase, replayKey);
      const replayed = await api(replayBase, replayKey, "GET", `/runs/${replayedId}/result`);
      expect(replayed).toMatchObject({
        status: "succeeded",
        outputs: { invoice_id: "[redacted]", api_key: "[redacted]", count: 0 },
      });
      const steps = (types: string[]) => types.filter((t) => !t.startsWith("run."));
      expect(steps(await eventTypes(replayBase, replayKey, replayedId))).toEqual(
        steps(await eventTypes(base, fx.key, runId)),
      );
    } finally {
      child.kill("SIGTERM");
    }
    expect(await new Promise((resolve) => child.once("close", resolve))).toBe(0);

    // --keep-values keeps the values; secret-looking names are still stripped.
    const kept = join(fx.dir, "kept.wfr-run.json");
    const k = await wfr(["runs", "export", runId, "-o", kept, "--keep-values"]);
    expect(k.code, k.stderr).toBe(EXIT.OK);
    const keptText = readFileSync(kept, "utf8");
    expect(keptText).toContain("INV-REC-1");
    expect(keptText).toContain("pin-7777");
    expect(keptText).not.toContain("tok-123");
  });

  it("refuses a run that has not finished, and a file that is not a recorded run", async () => {
    await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
      steps: [{ wait_ms: 600_000 }, { succeed: {} }],
    });
    const base = `${fx.emulator.url}/production/api/v1`;
    const run = await api(base, fx.key, "POST", "/automations/wf_invoice1/runs", {
      inputs: { vendor_name: "A", amount: 1 },
    });
    const r = await wfr(["runs", "export", run.run_id, "-o", join(fx.dir, "x.json")]);
    expect(r.code).toBe(EXIT.RUN_FAILED);
    expect(r.stderr).toContain("only a finished run can be exported");
    const bad = join(fx.dir, "bad.json");
    (await import("node:fs")).writeFileSync(bad, "{}");
    const started = await runWfr(["emulator", "--port", "0", "--scenario", bad], { cwd: fx.dir });
    expect(started.code).toBe(EXIT.USAGE);
    expect(started.stderr).toContain("bad.json: not a recorded run");
  });
});
