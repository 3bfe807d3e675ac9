// Fault injection on live runs from the admin API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Receiver } from "./receiver.js";
import { type Client, Harness, type Json, PORTAL, portalBody, sleep } from "./support.js";

let h: Harness;
let c: Client;
let rx: Receiver;
beforeAll(async () => {
  rx = await Receiver.start();
  h = await Harness.start({ allowLocalCallbacks: true });
  c = await h.client();
  // Runs sit in a long wait, so only an injected fault moves them.
  await h.scenario("production", PORTAL, { steps: [{ wait_ms: 86_400_000 }, { succeed: {} }] });
});
afterAll(async () => {
  await h.close();
  await rx.close();
});

const fault = (runId: string, kind: string, body: unknown = {}) =>
  h.admin("POST", `/environments/production/runs/${runId}/faults/${kind}`, body);

async function liveRun(extra: Record<string, unknown> = {}): Promise<string> {
  const run = await c.start(PORTAL, portalBody(extra));
  await h.advance(500);
  return run.run_id as string;
}

describe("fault injection", () => {
  it("reaches a checkpoint now, then expires the wait now", async () => {
    const id = await liveRun();
    const cp = await fault(id, "checkpoint", { kind: "approval", reason: "Injected" });
    expect(cp.status, cp.text).toBe(200);
    const st = await c.run(id);
    expect(st.body.status).toBe("waiting_for_human_live");
    expect(st.body.human_action?.reason).toBe("Injected");
    expect((await fault(id, "expire")).status).toBe(200);
    expect((await c.run(id)).body.status).toBe("human_wait_expired");
    expect((await fault(id, "expire")).status).toBe(409);
  });

  it("fails with any terminal status now, or succeeds now with given outputs", async () => {
    const a = await liveRun();
    const f = await fault(a, "fail", {
      status: "dead_letter",
      error: { code: "X", message: "boom" },
    });
    expect(f.status, f.text).toBe(200);
    const ra = await c.api("GET", `/runs/${a}/result`);
    expect(ra.body.status).toBe("dead_letter");
    const b = await liveRun();
    expect((await fault(b, "succeed", { outputs: { total: 7 } })).status).toBe(200);
    const rb = await c.api("GET", `/runs/${b}/result`);
    expect(rb.status).toBe(200);
    expect(JSON.stringify(rb.body)).toContain('"total":7');
    const bad = await fault(b, "fail", { status: "nonsense", error: { message: "m" } });
    expect(bad.status).toBe(400);
  });

  it("resends a past callback by event_id", async () => {
    const id = await liveRun({ callback_url: rx.url("/faults") });
    await fault(id, "succeed", {});
    for (let i = 0; i < 100 && rx.to("/faults").length === 0; i++) await sleep(20);
    const first = rx.to("/faults")[0]?.body as Json;
    expect(first?.event_id).toBeTypeOf("string");
    const r = await h.admin(
      "POST",
      `/environments/production/callbacks/${first.event_id}/resend`,
      {},
    );
    expect(r.status, r.text).toBe(202);
    for (let i = 0; i < 100 && rx.to("/faults").length < 2; i++) await sleep(20);
    expect(rx.to("/faults").map((d) => (d.body as Json).event_id)).toEqual([
      first.event_id,
      first.event_id,
    ]);
  });

  it("resets an environment", async () => {
    const id = await liveRun();
    expect((await h.admin("POST", "/environments/production/reset", {})).status).toBe(200);
    expect((await c.run(id)).status).toBe(404);
    expect(await h.runs()).toEqual([]);
  });
});
