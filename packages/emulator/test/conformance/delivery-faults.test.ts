// Callback delivery faults from the admin API (twice, late, a receiver
// that fails), against a real local receiver; docs/service-rules.md#callbacks: retried on 5xx, same event_id.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Delivery, Receiver } from "./receiver.js";
import { type Client, Harness, type Json, PORTAL, portalBody, sleep } from "./support.js";

let h: Harness;
let c: Client;
let rx: Receiver;
let dir: string;
beforeAll(async () => {
  rx = await Receiver.start();
  dir = await mkdtemp(join(tmpdir(), "wfr-delivery-faults-"));
  h = await Harness.start({ allowLocalCallbacks: true, data: join(dir, "journal.jsonl") });
  c = await h.client();
  // Runs sit in a long wait, so only injected faults move them.
  await h.scenario("production", PORTAL, { steps: [{ wait_ms: 86_400_000 }, { succeed: {} }] });
});
afterAll(async () => {
  await h.close();
  await rx.close();
  await rm(dir, { recursive: true, force: true });
});

const fault = (harness: Harness, runId: string, kind: string, body: unknown = {}) =>
  harness.admin("POST", `/environments/production/runs/${runId}/faults/${kind}`, body);

async function liveRun(path: string, client = c, harness = h): Promise<string> {
  const run = await client.start(PORTAL, portalBody({ callback_url: rx.url(path) }));
  await harness.advance(500);
  return run.run_id as string;
}

async function until(what: string, pred: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await pred()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const attemptsOf = async (harness: Harness, runId: string) =>
  ((await harness.callbacks()) as Json[]).filter((a) => a.run_id === runId);

describe("callback delivery faults", { timeout: 120_000 }, () => {
  it("twice: the same event (same event_id, same body) reaches the receiver two times", async () => {
    const id = await liveRun("/twice");
    const armed = await fault(h, id, "callback-twice");
    expect(armed.status, armed.text).toBe(200);
    expect((await fault(h, id, "succeed")).status).toBe(200);
    await until("two deliveries", () => rx.to("/twice").length >= 2);
    const [a, b] = rx.to("/twice") as [Delivery, Delivery];
    expect((a.body as Json).event_id).toBe((b.body as Json).event_id);
    expect(a.raw).toBe(b.raw);
    expect(a.headers["webhook-id"]).toBe((a.body as Json).event_id);
    const log = await attemptsOf(h, id);
    expect(log.map((x) => x.injected ?? null).sort()).toEqual([null, "twice"].sort());
    await sleep(300);
    expect(rx.to("/twice")).toHaveLength(2);
  });

  it("late: the delayed event arrives after the later ones, in clock order", async () => {
    const id = await liveRun("/late");
    expect((await fault(h, id, "callback-late", { delay_ms: 5000 })).status).toBe(200);
    // requires_action is held 5 s (far longer than the two admin calls apart, even loaded); the
    // completion that follows it is not.
    expect((await fault(h, id, "checkpoint", { kind: "approval" })).status).toBe(200);
    expect((await fault(h, id, "succeed")).status).toBe(200);
    await until("two deliveries", () => rx.to("/late").length >= 2);
    const types = rx.to("/late").map((d) => (d.body as Json).type);
    expect(types).toEqual(["workflow.run.completed", "workflow.run.requires_action"]);
    const log = await attemptsOf(h, id);
    const late = log.find((x) => x.injected === "late");
    const other = log.find((x) => x.injected === undefined);
    expect(late.type).toBe("workflow.run.requires_action");
    expect(Date.parse(late.started_at)).toBeGreaterThanOrEqual(Date.parse(other.started_at));
  });

  it("failing receiver: the next attempts answer 5xx, are logged with their numbers, and the retry succeeds", async () => {
    const id = await liveRun("/fail");
    const armed = await fault(h, id, "callback-fail", { attempts: 2, status: 502 });
    expect(armed.body.delivery_faults.fail).toEqual({ attempts: 2, status: 502 });
    expect((await fault(h, id, "succeed")).status).toBe(200);
    await until("the third attempt", async () => (await attemptsOf(h, id)).length >= 3);
    const log = await attemptsOf(h, id);
    expect(log.map((x) => [x.attempt, x.status, x.injected ?? null])).toEqual([
      [1, 502, "fail"],
      [2, 502, "fail"],
      [3, 200, null],
    ]);
    expect(log[0].error).toMatch(/502/);
    expect(new Set(log.map((x) => x.event_id)).size).toBe(1);
    expect(rx.to("/fail")).toHaveLength(1);
  });

  it("refuses bad numbers naming the field, and runs without a callback", async () => {
    const id = await liveRun("/bad");
    const late = await fault(h, id, "callback-late", { delay_ms: 1e9 });
    expect(late.status).toBe(400);
    expect(late.body.field).toBe("delay_ms");
    const fail = await fault(h, id, "callback-fail", { attempts: 0 });
    expect(fail.body.field).toBe("attempts");
    const st = await fault(h, id, "callback-fail", { status: 404 });
    expect(st.body.field).toBe("status");
    const plain = await c.start(PORTAL, portalBody());
    expect((await fault(h, plain.run_id, "callback-twice")).status).toBe(409);
  });

  it("an armed fault survives a restart", async () => {
    const d = await mkdtemp(join(tmpdir(), "wfr-delivery-faults-restart-"));
    const data = join(d, "journal.jsonl");
    try {
      let h2 = await Harness.start({ allowLocalCallbacks: true, data });
      const c2 = await h2.client();
      await h2.scenario("production", PORTAL, { steps: [{ wait_ms: 86_400_000 }] });
      const id = await liveRun("/restart", c2, h2);
      expect((await fault(h2, id, "callback-fail", { attempts: 1 })).status).toBe(200);
      await h2.close();
      h2 = await Harness.start({ allowLocalCallbacks: true, data });
      expect((await fault(h2, id, "succeed")).status).toBe(200);
      await until("the retry", async () => (await attemptsOf(h2, id)).length >= 2);
      const log = await attemptsOf(h2, id);
      expect(log.map((x) => [x.attempt, x.status])).toEqual([
        [1, 503],
        [2, 200],
      ]);
      await h2.close();
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});
