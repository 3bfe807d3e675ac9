import { createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Receiver } from "./receiver.js";
import { type Client, Harness, type Json, PORTAL, portalBody, sleep } from "./support.js";

const SECRET_BYTES = randomBytes(24);
const WEBHOOK_SECRET = `whsec_${SECRET_BYTES.toString("base64")}`;

let h: Harness;
let c: Client;
let rx: Receiver;
let pathN = 0;
const newPath = () => `/hook/${++pathN}`;

beforeAll(async () => {
  rx = await Receiver.start();
  h = await Harness.start({ allowLocalCallbacks: true, webhookSecret: WEBHOOK_SECRET });
  c = await h.client();
});
afterAll(async () => {
  await h?.close();
  await rx?.close();
});

/** Wait (advancing the virtual clock, which drives retry back-off) until `pred` holds. */
async function eventually<T>(fn: () => T | Promise<T>, pred: (v: T) => boolean, tries = 400) {
  let v = await fn();
  for (let i = 0; i < tries && !pred(v); i++) {
    await h.advance(1_000);
    await sleep(20);
    v = await fn();
  }
  return v;
}

async function launchWithCallback(path: string, steps: Json[], metadata: Json = { m: path }) {
  await h.scenario("production", PORTAL, { steps });
  return c.start(PORTAL, portalBody({ callback_url: rx.url(path), metadata }));
}

describe("Callbacks", { timeout: 30_000 }, () => {
  it("workflow.run.completed (any terminal state, including failures) carries the run object with caller metadata and the result", async () => {
    const okPath = newPath();
    const ok = await launchWithCallback(okPath, [{ succeed: { outputs: { total: 3 } } }], {
      order: "A-1",
    });
    const failPath = newPath();
    const bad = await launchWithCallback(failPath, [
      { fail: { status: "dead_letter", error: { code: "X", message: "gave up" } } },
    ]);
    const got = await eventually(
      () => [rx.to(okPath), rx.to(failPath)],
      ([a, b]) => (a?.length ?? 0) >= 1 && (b?.length ?? 0) >= 1,
    );
    const okMsg = got[0]?.[0]?.body;
    expect(okMsg.type).toBe("workflow.run.completed");
    expect(typeof okMsg.event_id).toBe("string");
    expect(okMsg.run.run_id).toBe(ok.run_id);
    expect(okMsg.run.status).toBe("succeeded");
    expect(okMsg.run.metadata).toEqual({ order: "A-1" });
    expect(okMsg.result.outputs).toEqual({ total: 3 });
    expect(okMsg.result.status).toBe("succeeded");

    const badMsg = got[1]?.[0]?.body;
    expect(badMsg.type).toBe("workflow.run.completed");
    expect(badMsg.run.run_id).toBe(bad.run_id);
    expect(badMsg.run.status).toBe("dead_letter");
    expect(badMsg.result.status).toBe("dead_letter");
    expect(badMsg.result.error).not.toBeNull();
    expect(okMsg.event_id).not.toBe(badMsg.event_id);
  });

  it("workflow.run.requires_action (run waits at a checkpoint); result only for workflow.run.completed", async () => {
    const path = newPath();
    const run = await launchWithCallback(path, [
      { human: { kind: "approval", reason: "Sign off", expires_in_ms: 3_600_000 } },
      { succeed: {} },
    ]);
    const d = await eventually(
      () => rx.to(path),
      (l) => l.length >= 1,
    );
    const msg = d[0]?.body;
    expect(msg.type).toBe("workflow.run.requires_action");
    expect(msg.run.run_id).toBe(run.run_id);
    expect(msg.run.status).toBe("waiting_for_human_live");
    expect(msg.run.human_action.reason).toBe("Sign off");
    expect(msg.run.metadata).toEqual({ m: path });
    expect(msg).not.toHaveProperty("result");
    // Answer, finish, and the completion arrives with a different event_id.
    const cp = msg.run.human_action.checkpoint_id;
    expect(
      (await c.api("POST", `/runs/${run.run_id}/human-input`, { checkpoint_id: cp, response: 1 }))
        .status,
    ).toBe(202);
    const all = await eventually(
      () => rx.to(path),
      (l) => l.some((x) => x.body?.type === "workflow.run.completed"),
    );
    const done = all.find((x) => x.body?.type === "workflow.run.completed");
    expect(done?.body.event_id).not.toBe(msg.event_id);
  });

  it("workflow.run.completed is sent for a human_wait_expired run too", async () => {
    const path = newPath();
    const run = await launchWithCallback(path, [
      { human: { kind: "approval", reason: "Nobody came", expires_in_ms: 5_000 } },
      { succeed: {} },
    ]);
    const d = await eventually(
      () => rx.to(path),
      (l) => l.some((x) => x.body?.type === "workflow.run.completed"),
    );
    const done = d.find((x) => x.body?.type === "workflow.run.completed")?.body;
    expect(done.run.run_id).toBe(run.run_id);
    expect(done.run.status).toBe("human_wait_expired");
    expect(done.result.status).toBe("human_wait_expired");
  });

  it("up to three bounded attempts, retried on HTTP 5xx; duplicates carry the same event_id", async () => {
    const path = newPath();
    rx.fail(path, 2, 503);
    await launchWithCallback(path, [{ succeed: {} }]);
    const d = await eventually(
      () => rx.to(path),
      (l) => l.length >= 3,
    );
    expect(d.map((x) => x.answered)).toEqual([503, 503, 200]);
    expect(new Set(d.map((x) => x.body?.event_id)).size).toBe(1);
    await h.advance(120_000);
    await sleep(50);
    expect(rx.to(path).length).toBe(3);
  });

  it("retried on HTTP 429", async () => {
    const path = newPath();
    rx.fail(path, 1, 429);
    await launchWithCallback(path, [{ succeed: {} }]);
    const d = await eventually(
      () => rx.to(path),
      (l) => l.length >= 2,
    );
    expect(d.map((x) => x.answered)).toEqual([429, 200]);
  });

  it("Best-effort; up to three bounded attempts: a receiver that always fails gets exactly three", async () => {
    const path = newPath();
    rx.fail(path, 100, 500);
    const run = await launchWithCallback(path, [{ succeed: {} }]);
    await eventually(
      () => rx.to(path),
      (l) => l.length >= 3,
    );
    await h.advance(600_000);
    await sleep(100);
    expect(rx.to(path).length).toBe(3);
    const log = (await h.callbacks()).filter((x) => x.url === rx.url(path));
    expect(log.length).toBe(3);
    expect(log.map((x) => x.attempt)).toEqual([1, 2, 3]);
    for (const x of log) expect(x.status).toBe(500);
    // Polling remains the fallback: the run itself is unaffected.
    expect((await c.run(run.run_id)).body.status).toBe("succeeded");
  });

  it("A 400 from the receiver is not retried (retries only on network errors, 429 and 5xx)", async () => {
    const path = newPath();
    rx.fail(path, 100, 400);
    await launchWithCallback(path, [{ succeed: {} }]);
    await eventually(
      () => rx.to(path),
      (l) => l.length >= 1,
    );
    await h.advance(600_000);
    await sleep(100);
    expect(rx.to(path).length).toBe(1);
  });

  it("retried on network errors", async () => {
    // A port that nobody listens on.
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const url = `http://127.0.0.1:${port}/dead`;
    await h.scenario("production", PORTAL, { steps: [{ succeed: {} }] });
    await c.start(PORTAL, portalBody({ callback_url: url }));
    const log = await eventually(
      async () => (await h.callbacks()).filter((x) => x.url === url),
      (l) => l.length >= 3,
    );
    await h.advance(600_000);
    await sleep(100);
    const final = (await h.callbacks()).filter((x) => x.url === url);
    expect(final.length).toBe(3);
    expect(log.every((x) => x.error !== null && x.error !== undefined)).toBe(true);
    expect(new Set(final.map((x) => x.event_id)).size).toBe(1);
  });

  it("Timeout of 10 seconds per attempt", { timeout: 40_000 }, async () => {
    const path = newPath();
    rx.fail(path, 1, 0); // the first attempt never gets an answer
    await launchWithCallback(path, [{ succeed: {} }]);
    const started = Date.now();
    while (rx.to(path).length < 2 && Date.now() - started < 25_000) {
      await h.advance(500);
      await sleep(50);
    }
    const d = rx.to(path);
    expect(d.length).toBe(2);
    expect(d.map((x) => x.answered)).toEqual([0, 200]);
    expect(d[1]?.body?.event_id).toBe(d[0]?.body?.event_id);
    const log = (await h.callbacks()).filter((x) => x.url === rx.url(path));
    const first = log.find((x) => x.attempt === 1);
    expect(first?.status ?? null).not.toBe(200);
    expect(first?.error).toBeTruthy();
    expect(first?.duration_ms).toBeGreaterThanOrEqual(9_500);
    expect(first?.duration_ms).toBeLessThanOrEqual(12_000);
  });

  it("Deliveries are signed with the Standard Webhooks scheme when a secret is configured", async () => {
    const path = newPath();
    await launchWithCallback(path, [{ succeed: {} }]);
    const d = await eventually(
      () => rx.to(path),
      (l) => l.length >= 1,
    );
    const first = d[0];
    if (!first) throw new Error("no delivery");
    const id = first.headers["webhook-id"];
    const ts = first.headers["webhook-timestamp"];
    const sig = first.headers["webhook-signature"];
    expect(id).toBe(first.body.event_id);
    expect(String(ts)).toMatch(/^\d+$/);
    const expected = createHmac("sha256", SECRET_BYTES)
      .update(`${id}.${ts}.${first.raw}`)
      .digest("base64");
    const sigs = String(sig)
      .split(" ")
      .map((s) => s.replace(/^v1,/, ""));
    expect(sigs).toContain(expected);
    expect(first.headers["content-type"]).toMatch(/application\/json/);
  });

  it("Callback delivery attempts are listed with status and timing", async () => {
    const path = newPath();
    await launchWithCallback(path, [{ succeed: {} }]);
    await eventually(
      () => rx.to(path),
      (l) => l.length >= 1,
    );
    const log = (await h.callbacks()).filter((x) => x.url === rx.url(path));
    expect(log.length).toBe(1);
    const e = log[0];
    expect(e.type).toBe("workflow.run.completed");
    expect(e.attempt).toBe(1);
    expect(e.status).toBe(200);
    expect(typeof e.event_id).toBe("string");
    expect(typeof e.duration_ms).toBe("number");
    expect(e).toHaveProperty("started_at");
  });
});
