import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Receiver } from "./receiver.js";
import { eventsOf, http, type Json, PORTAL, portalBody, sleep, TERMINAL } from "./support.js";

const PKG = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(PKG, "dist", "bin.js");

const children: ChildProcess[] = [];
/** Everything the children printed, for failure messages. */
let logs = "";
const dirs: string[] = [];
let rx: Receiver | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  await rx?.close();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startChild(port: number, data: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--data",
      data,
      "--clock",
      "virtual",
      "--allow-local-callbacks",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
    logs += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
    logs += d;
  });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`wfr-emulator exited: ${output}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/production/api/v1/runs/x`);
      await r.arrayBuffer();
      return child;
    } catch {
      await sleep(50);
    }
  }
  throw new Error(`wfr-emulator did not start: ${output}`);
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("Persistence with --data", { timeout: 60_000 }, () => {
  it("stopping (even kill -9) and restarting loses no accepted run, event, answer or pending callback; runs continue", async () => {
    expect(existsSync(BIN), `${BIN} must be built (pnpm --filter @wfr/emulator build)`).toBe(true);
    rx = await Receiver.start();
    const dir = await mkdtemp(join(tmpdir(), "wfr-restart-"));
    dirs.push(dir);
    const data = join(dir, "emulator.db");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const base = `${url}/production/api/v1`;
    const admin = (method: string, path: string, body?: unknown) =>
      http(method, `${url}/_emulator${path}`, body);
    const advance = async (ms: number) => {
      const r = await admin("POST", "/clock/advance", { ms });
      expect(r.status).toBeLessThan(300);
    };

    let child = await startChild(port, data);
    const keyRes = await admin("POST", "/keys", {
      environment: "production",
      scopes: ["workflows:run", "runs:read"],
    });
    expect(keyRes.status).toBe(201);
    let auth = { authorization: `Bearer ${keyRes.body.token}` };
    const api = (method: string, path: string, body?: unknown, headers = {}) =>
      http(method, base + path, body, { ...auth, ...headers });
    const poll = async (runId: string, pred: (r: Json) => boolean, stepMs = 200) => {
      for (let i = 0; i < 300; i++) {
        const r = await api("GET", `/runs/${runId}`);
        if (r.status === 200 && pred(r.body)) return r.body;
        await advance(stepMs);
        await sleep(5);
      }
      throw new Error(`run ${runId} never reached the state`);
    };

    const scen = await admin("PUT", `/environments/production/workflows/${PORTAL}/scenario`, {
      steps: [
        { event: { type: "conformance.before_restart" } },
        { human: { kind: "approval", reason: "Survive", expires_in_ms: 86_400_000 } },
        { wait_ms: 60_000 },
        { event: { type: "conformance.after_restart" } },
        { succeed: { outputs: { survived: true } } },
      ],
    });
    expect(scen.status).toBeLessThan(300);

    // Run A: waits at a checkpoint, gets an answer, then sits in a long wait.
    const a = await api(
      "POST",
      `/automations/${PORTAL}/runs`,
      portalBody({ metadata: { r: "A" } }),
      {
        "idempotency-key": "restart-A",
      },
    );
    expect(a.status, `${a.text}\n${logs}`).toBe(202);
    const runA = a.body.run_id as string;
    const waiting = await poll(runA, (r) => r.status === "waiting_for_human_live");
    const checkpoint_id = waiting.human_action.checkpoint_id;
    const ans = await api("POST", `/runs/${runA}/human-input`, {
      checkpoint_id,
      response: "approved-before-kill",
    });
    expect(ans.status).toBe(202);

    // Run B: accepted, not started yet (the virtual clock does not move), with a callback.
    const b = await api(
      "POST",
      `/automations/${PORTAL}/runs`,
      portalBody({ callback_url: rx.url("/restart"), metadata: { r: "B" } }),
    );
    expect(b.status).toBe(202);
    const runB = b.body.run_id as string;

    // Run C: completes, and its first callback attempt fails so a retry is pending.
    rx.fail("/pending", 1, 503);
    const scenC = await admin("PUT", "/environments/production/workflows/wf_P9hHc2Vb/scenario", {
      steps: [{ succeed: { outputs: {} } }],
    });
    expect(scenC.status).toBeLessThan(300);
    const cRes = await api("POST", "/automations/wf_P9hHc2Vb/runs", {
      inputs: { contacts: [] },
      callback_url: rx.url("/pending"),
    });
    expect(cRes.status).toBe(202);
    for (let i = 0; i < 400 && rx.to("/pending").length === 0; i++) {
      await advance(25);
      await sleep(5);
    }
    expect(rx.to("/pending").length).toBeGreaterThanOrEqual(1);

    await kill9(child);
    child = await startChild(port, data);
    if ((await api("GET", `/runs/${runA}`)).status === 401) {
      // Keys are not a documented part of the persisted state: make a new one.
      const k = await admin("POST", "/keys", {
        environment: "production",
        scopes: ["workflows:run", "runs:read"],
      });
      auth = { authorization: `Bearer ${k.body.token}` };
    }

    // The pending callback is retried after the restart, with the same event_id.
    for (let i = 0; i < 100 && rx.to("/pending").length < 2; i++) {
      await advance(1_000);
      await sleep(10);
    }
    const pending = rx.to("/pending");
    expect(pending.length).toBe(2);
    expect(pending.map((d) => d.answered)).toEqual([503, 200]);
    expect(pending[1]?.body?.event_id).toBe(pending[0]?.body?.event_id);

    // Accepted runs survive, with their metadata.
    const afterA = await api("GET", `/runs/${runA}`);
    expect(afterA.status).toBe(200);
    expect(afterA.body.metadata).toEqual({ r: "A" });
    expect(TERMINAL).not.toContain(afterA.body.status);
    const afterB = await api("GET", `/runs/${runB}`);
    expect(afterB.status).toBe(200);
    expect(afterB.body.metadata).toEqual({ r: "B" });

    // Idempotency records survive: the same request returns the same run.
    const replay = await api(
      "POST",
      `/automations/${PORTAL}/runs`,
      portalBody({ metadata: { r: "A" } }),
      { "idempotency-key": "restart-A" },
    );
    expect(replay.status).toBe(202);
    expect(replay.body.run_id).toBe(runA);

    // Events survive.
    const ev = await api("GET", `/runs/${runA}/events`);
    expect(JSON.stringify(eventsOf(ev.body))).toContain("conformance.before_restart");

    // The answer survives: an identical answer is still idempotent or the run has moved on,
    // and a changed one is a conflict rather than a fresh answer.
    if (afterA.body.status === "waiting_for_human_live") {
      expect(afterA.body.human_action.response_accepted).toBe(true);
      const changed = await api("POST", `/runs/${runA}/human-input`, {
        checkpoint_id,
        response: "a-different-answer",
      });
      expect(changed.status).toBe(409);
    }

    // Runs continue without a new answer.
    const endA = await poll(runA, (r) => TERMINAL.includes(r.status), 5_000);
    expect(endA.status).toBe("succeeded");
    const result = await api("GET", `/runs/${runA}/result`);
    expect(result.status).toBe(200);
    expect(result.body.outputs).toEqual({ survived: true });
    const evAfter = eventsOf((await api("GET", `/runs/${runA}/events`)).body).map((e) =>
      JSON.stringify(e),
    );
    const i1 = evAfter.findIndex((e) => e.includes("conformance.before_restart"));
    const i2 = evAfter.findIndex((e) => e.includes("conformance.after_restart"));
    expect(i1).toBeGreaterThanOrEqual(0);
    expect(i2).toBeGreaterThan(i1);

    // Run B reaches its checkpoint after the restart and its callback is delivered.
    await poll(runB, (r) => r.status === "waiting_for_human_live");
    for (let i = 0; i < 100 && rx.to("/restart").length === 0; i++) {
      await advance(1_000);
      await sleep(10);
    }
    const cb = rx.to("/restart")[0];
    expect(cb?.body?.type).toBe("workflow.run.requires_action");
    expect(cb?.body?.run?.run_id).toBe(runB);

    await kill9(child);
  });
});
