import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  eventsOf,
  Harness,
  http,
  KNOWN_STATUSES,
  PORTAL,
  portalBody,
  TERMINAL,
} from "./support.js";

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
});
afterAll(() => h?.close());

const slowSuccess = {
  steps: [{ wait_ms: 5_000 }, { succeed: { outputs: { login_ok: true, note: "fine" } } }],
};

describe("Runs and statuses", () => {
  it("Launch is asynchronous: acceptance means accepted for execution, not finished", async () => {
    await h.scenario("production", PORTAL, slowSuccess);
    const run = await c.start(PORTAL, portalBody());
    expect(["queued", "starting"]).toContain(run.status);
    const now = await c.run(run.run_id);
    expect(now.status).toBe(200);
    expect(TERMINAL).not.toContain(now.body.status);
    expect(KNOWN_STATUSES).toContain(now.body.status);
  });

  it("session_id and live_view_url are null while the launch is queued or runtime is being allocated", async () => {
    await h.scenario("production", PORTAL, slowSuccess);
    const run = await c.start(PORTAL, portalBody());
    expect(["queued", "starting"]).toContain(run.status);
    expect(run.session_id).toBeNull();
    expect(run.live_view_url).toBeNull();
    const seen = new Set<string>();
    const running = await c.until(
      run.run_id,
      (r) => {
        seen.add(r.status);
        if (r.status === "queued" || r.status === "starting") {
          if (r.session_id !== null || r.live_view_url !== null) {
            throw new Error(`session fields set while ${r.status}: ${JSON.stringify(r)}`);
          }
        }
        return r.status === "running";
      },
      { stepMs: 100 },
    );
    expect(typeof running.session_id).toBe("string");
  });

  it("recording_url is null until a browser session exists", async () => {
    await h.scenario("production", PORTAL, { ...slowSuccess, recording: { mode: "ready" } });
    const run = await c.start(PORTAL, portalBody());
    expect(run.recording_url).toBeNull();
    const withSession = await c.until(run.run_id, (r) => typeof r.session_id === "string", {
      stepMs: 100,
    });
    const done = await c.untilTerminal(withSession.run_id);
    expect(typeof done.recording_url).toBe("string");
    expect(done.recording_url.startsWith(c.base)).toBe(true);
  });

  it("With the virtual clock, time moves only on /clock/advance", async () => {
    await h.scenario("production", PORTAL, slowSuccess);
    const run = await c.start(PORTAL, portalBody());
    await new Promise((r) => setTimeout(r, 150));
    const still = (await c.run(run.run_id)).body;
    expect(still.status).toBe(run.status);
    const now1 = await h.admin("POST", "/clock/advance", { ms: 0 });
    const now2 = await h.admin("POST", "/clock/advance", { ms: 1_234 });
    expect(now2.body.now).toBeDefined();
    const t1 = typeof now1.body.now === "number" ? now1.body.now : Date.parse(now1.body.now);
    const t2 = typeof now2.body.now === "number" ? now2.body.now : Date.parse(now2.body.now);
    expect(t2 - t1).toBe(1_234);
  });

  it("Every status is one this project names", async () => {
    await h.scenario("production", PORTAL, slowSuccess);
    const run = await c.start(PORTAL, portalBody());
    const seen: string[] = [run.status];
    await c.until(run.run_id, (r) => {
      seen.push(r.status);
      return TERMINAL.includes(r.status);
    });
    for (const s of seen) expect(KNOWN_STATUSES).toContain(s);
    expect(seen.at(-1)).toBe("succeeded");
  });

  it("RUN_NOT_FOUND: run missing or not visible to caller", async () => {
    for (const sub of ["", "/result", "/events", "/recording"]) {
      const r = await c.api("GET", `/runs/run_doesnotexist${sub}`);
      expect(r.status, sub).toBe(404);
      expect(r.body.code).toBe("RUN_NOT_FOUND");
    }
    const hi = await c.api("POST", "/runs/run_doesnotexist/human-input", {
      checkpoint_id: "x",
      response: "y",
    });
    expect(hi.status).toBe(404);
    expect(hi.body.code).toBe("RUN_NOT_FOUND");
  });

  it("A cancelled status does not imply a public cancellation operation exists", async () => {
    await h.scenario("production", PORTAL, slowSuccess);
    const run = await c.start(PORTAL, portalBody());
    for (const [method, path] of [
      ["DELETE", `/runs/${run.run_id}`],
      ["POST", `/runs/${run.run_id}/cancel`],
      ["POST", `/runs/${run.run_id}/cancellation`],
    ] as const) {
      const r = await c.api(method, path, method === "POST" ? {} : undefined);
      expect([404, 405], `${method} ${path}`).toContain(r.status);
      expect(typeof r.body?.code).toBe("string");
    }
    const after = await c.run(run.run_id);
    expect(after.body.status).not.toBe("cancelled");
    expect(TERMINAL).not.toContain(after.body.status);
  });
});

describe("GET /runs/{runId}/result", () => {
  it("The result endpoint returns 202 while the run is not terminal and 200 once it is terminal", async () => {
    await h.scenario("production", PORTAL, slowSuccess);
    const run = await c.start(PORTAL, portalBody({ metadata: { ticket: "T-9" } }));
    const pending = await c.api("GET", `/runs/${run.run_id}/result`);
    expect(pending.status).toBe(202);
    expect(TERMINAL).not.toContain(pending.body.status);
    await c.untilTerminal(run.run_id);
    const done = await c.api("GET", `/runs/${run.run_id}/result`);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe("succeeded");
    expect(done.body.error).toBeNull();
    expect(done.body.outputs).toEqual({ login_ok: true, note: "fine" });
  });

  it("Response 200 with status, error, metadata and outputs once terminal; metadata is echoed in the result response", async () => {
    await h.scenario("production", PORTAL, { steps: [{ succeed: { outputs: { n: 1 } } }] });
    const metadata = { customer: "c-1", tags: ["a"] };
    const run = await c.start(PORTAL, portalBody({ metadata }));
    await c.untilTerminal(run.run_id);
    const r = await c.api("GET", `/runs/${run.run_id}/result`);
    expect(r.status).toBe(200);
    expect(r.body.run_id).toBe(run.run_id);
    expect(r.body.metadata).toEqual(metadata);
    expect(r.body).toHaveProperty("error");
    expect(r.body.outputs).toEqual({ n: 1 });
  });

  for (const status of ["failed", "error", "cancelled", "terminated", "dead_letter"]) {
    it(`HTTP 200 from the result endpoint also accompanies ${status} runs; callers inspect status and error`, async () => {
      await h.scenario("production", PORTAL, {
        steps: [
          { wait_ms: 500 },
          { fail: { status, error: { code: "PORTAL_DOWN", message: `went ${status}` } } },
        ],
      });
      const run = await c.start(PORTAL, portalBody({ metadata: { s: status } }));
      const end = await c.untilTerminal(run.run_id);
      expect(end.status).toBe(status);
      expect(end.error).not.toBeNull();
      const r = await c.api("GET", `/runs/${run.run_id}/result`);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(status);
      expect(r.body.error).not.toBeNull();
      expect(JSON.stringify(r.body.error)).toContain(`went ${status}`);
      expect(r.body.outputs ?? null).toBeNull();
      expect(r.body.metadata).toEqual({ s: status });
    });
  }

  it("HTTP 200 from the result endpoint also accompanies human_wait_expired runs", async () => {
    await h.scenario("production", PORTAL, {
      steps: [{ human: { kind: "approval", reason: "r", expires_in_ms: 2_000 } }, { succeed: {} }],
    });
    const run = await c.start(PORTAL, portalBody());
    await c.untilWaiting(run.run_id, { stepMs: 100 });
    await h.advance(5_000);
    const end = await c.untilTerminal(run.run_id);
    expect(end.status).toBe("human_wait_expired");
    const r = await c.api("GET", `/runs/${run.run_id}/result`);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("human_wait_expired");
  });
});

describe("GET /runs/{runId}/events", () => {
  it("Response: JSON snapshot of the run's events, step by step. It is not a server-sent-event stream", async () => {
    await h.scenario("production", PORTAL, {
      steps: [
        { event: { type: "conformance.first", detail: "one" } },
        { wait_ms: 1_000 },
        { event: { type: "conformance.second", detail: "two" } },
        { succeed: {} },
      ],
    });
    const run = await c.start(PORTAL, portalBody());
    await c.untilTerminal(run.run_id);
    const r = await c.api("GET", `/runs/${run.run_id}/events`, undefined, {
      accept: "text/event-stream",
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type") ?? "").toMatch(/application\/json/);
    expect(r.headers.get("content-type") ?? "").not.toMatch(/event-stream/);
    expect(r.body).toBeDefined();
    const events = eventsOf(r.body).map((e) => JSON.stringify(e));
    const i1 = events.findIndex((e) => e.includes("conformance.first"));
    const i2 = events.findIndex((e) => e.includes("conformance.second"));
    expect(i1).toBeGreaterThanOrEqual(0);
    expect(i2).toBeGreaterThan(i1);
  });

  it("The events snapshot reflects the run so far", async () => {
    await h.scenario("production", PORTAL, {
      steps: [
        { event: { type: "conformance.early" } },
        { wait_ms: 60_000 },
        { event: { type: "conformance.late" } },
        { succeed: {} },
      ],
    });
    const run = await c.start(PORTAL, portalBody());
    await c.until(run.run_id, () => true);
    let snapshot: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await c.api("GET", `/runs/${run.run_id}/events`);
      snapshot = eventsOf(r.body).map((e) => JSON.stringify(e));
      if (snapshot.some((e) => e.includes("conformance.early"))) break;
      await h.advance(100);
    }
    expect(snapshot.some((e) => e.includes("conformance.early"))).toBe(true);
    expect(snapshot.some((e) => e.includes("conformance.late"))).toBe(false);
  });

  it("Every run started through the API appears in the application's run history with its inputs, events and session recording", async () => {
    await h.scenario("production", PORTAL, {
      steps: [{ event: { type: "conformance.history" } }, { succeed: {} }],
      recording: { mode: "ready" },
    });
    const run = await c.start(PORTAL, portalBody({ metadata: { h: 1 } }));
    await c.untilTerminal(run.run_id);
    const list = await h.runs();
    expect(list.map((r) => r.run_id ?? r.id ?? r.run?.run_id)).toContain(run.run_id);
    const detail = await h.admin("GET", `/environments/production/runs/${run.run_id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain("conformance.history");
    expect(detail.text).toContain("https://portal.example.com/login");
    expect(detail.text).toMatch(/recording/);
    const missing = await h.admin("GET", "/environments/production/runs/run_nope");
    expect(missing.status).toBe(404);
  });

  it("Links in the envelope point at the run's resources", async () => {
    await h.scenario("production", PORTAL, { steps: [{ succeed: {} }] });
    const run = await c.start(PORTAL, portalBody());
    await c.untilTerminal(run.run_id);
    const auth = { authorization: `Bearer ${c.token}` };
    const res = await http("GET", run.result_url, undefined, auth);
    expect(res.status).toBe(200);
    expect(res.body.run_id).toBe(run.run_id);
    const ev = await http("GET", run.events_url, undefined, auth);
    expect(ev.status).toBe(200);
  });
});
