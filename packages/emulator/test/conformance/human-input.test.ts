import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, Harness, type Json, PORTAL, portalBody } from "./support.js";

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
});
afterAll(() => h?.close());

const HOUR = 3_600_000;
const human = (reason: string, expires_in_ms = HOUR) => ({
  human: { kind: "approval", reason, instructions: `Instructions for ${reason}`, expires_in_ms },
});

async function waitingRun(steps: Json[]): Promise<Json> {
  await h.scenario("production", PORTAL, { steps });
  const run = await c.start(PORTAL, portalBody());
  return c.untilWaiting(run.run_id, { stepMs: 100 });
}

const answer = (runId: string, body: Json) => c.api("POST", `/runs/${runId}/human-input`, body);

describe("human_action and POST /runs/{runId}/human-input", () => {
  it("waiting_for_human_live: run waits for a person; human_action is populated", async () => {
    const run = await waitingRun([human("Approve payment"), { succeed: {} }]);
    const ha = run.human_action;
    expect(ha).toBeTruthy();
    for (const f of [
      "checkpoint_id",
      "kind",
      "reason",
      "stuck",
      "response_accepted",
      "instructions",
      "stop_condition",
      "live_url",
      "live_view_url",
      "expires_at",
      "resume_url",
    ]) {
      expect(ha, f).toHaveProperty(f);
    }
    expect(typeof ha.checkpoint_id).toBe("string");
    expect(ha.kind).toBe("approval");
    expect(ha.reason).toBe("Approve payment");
    expect(ha.instructions).toBe("Instructions for Approve payment");
    expect(ha.response_accepted).toBe(false);
  });

  it("Answering a checkpoint leaves the run in waiting_for_human_live with human_action.response_accepted true until the runtime acknowledges it", async () => {
    const run = await waitingRun([human("Approve"), { succeed: { outputs: { ok: 1 } } }]);
    const r = await answer(run.run_id, {
      checkpoint_id: run.human_action.checkpoint_id,
      response: { approved: true },
    });
    expect(r.status).toBe(202);
    expect(r.body.run_id).toBe(run.run_id);
    expect(r.body.status).toBe("waiting_for_human_live");
    expect(r.body.human_action.response_accepted).toBe(true);
    const end = await c.untilTerminal(run.run_id);
    expect(end.status).toBe("succeeded");
    // human_action is present only while a person is awaited.
    expect(end.human_action ?? null).toBeNull();
  });

  it("human_action: present when a person is awaited (and only then)", async () => {
    await h.scenario("production", PORTAL, {
      steps: [{ wait_ms: 2_000 }, human("Now"), { succeed: {} }],
    });
    const run = await c.start(PORTAL, portalBody());
    expect(run.human_action ?? null).toBeNull();
    const running = await c.until(run.run_id, (r) => r.status === "running", { stepMs: 100 });
    expect(running.human_action ?? null).toBeNull();
    const waiting = await c.untilWaiting(run.run_id, { stepMs: 250 });
    expect(waiting.human_action).toBeTruthy();
  });

  it("checkpoint_id (string; technically optional for compatibility, always sent)", async () => {
    const run = await waitingRun([human("Legacy client"), { wait_ms: HOUR }, { succeed: {} }]);
    const r = await answer(run.run_id, { response: "approved" });
    expect(r.status).toBe(202);
    expect(r.body.human_action.response_accepted).toBe(true);
    expect(r.body.human_action.checkpoint_id).toBe(run.human_action.checkpoint_id);
  });

  it("A human-input body that is not JSON is INVALID_JSON and answers nothing", async () => {
    const run = await waitingRun([human("Garbage"), { succeed: {} }]);
    const r = await answer(run.run_id, "{not json");
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("INVALID_JSON");
    const still = (await c.run(run.run_id)).body;
    expect(still.human_action.response_accepted).toBe(false);
  });

  it("An identical answer to the same checkpoint is idempotent", async () => {
    const run = await waitingRun([human("Approve"), { wait_ms: HOUR }, { succeed: {} }]);
    const body = { checkpoint_id: run.human_action.checkpoint_id, response: "yes" };
    const first = await answer(run.run_id, body);
    expect(first.status).toBe(202);
    const second = await answer(run.run_id, body);
    expect(second.status).toBe(202);
    expect(second.body.run_id).toBe(run.run_id);
  });

  it("A changed answer returns 409 HUMAN_WAIT_CONFLICT", async () => {
    const run = await waitingRun([human("Approve"), { wait_ms: HOUR }, { succeed: {} }]);
    const checkpoint_id = run.human_action.checkpoint_id;
    expect((await answer(run.run_id, { checkpoint_id, response: "yes" })).status).toBe(202);
    const changed = await answer(run.run_id, { checkpoint_id, response: "no" });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe("HUMAN_WAIT_CONFLICT");
    expect(changed.headers.get("x-should-retry")).toBe("false");
  });

  it("Concurrent different answers: exactly one is accepted, the others are HUMAN_WAIT_CONFLICT", async () => {
    const run = await waitingRun([human("Race"), { wait_ms: HOUR }, { succeed: {} }]);
    const checkpoint_id = run.human_action.checkpoint_id;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        answer(run.run_id, { checkpoint_id, response: `a${i}` }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 202).length).toBe(1);
    for (const r of results.filter((x) => x.status !== 202)) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("HUMAN_WAIT_CONFLICT");
    }
  });

  it("A stale checkpoint returns 409 HUMAN_WAIT_CONFLICT", async () => {
    const run = await waitingRun([human("First"), human("Second"), { succeed: {} }]);
    const firstId = run.human_action.checkpoint_id;
    const bogus = await answer(run.run_id, { checkpoint_id: "chk_not_this_one", response: "x" });
    expect(bogus.status).toBe(409);
    expect(bogus.body.code).toBe("HUMAN_WAIT_CONFLICT");
    expect((await answer(run.run_id, { checkpoint_id: firstId, response: "ok" })).status).toBe(202);
    const second = await c.until(
      run.run_id,
      (r) => r.status === "waiting_for_human_live" && r.human_action?.checkpoint_id !== firstId,
      { stepMs: 100 },
    );
    expect(second.human_action.reason).toBe("Second");
    expect(second.human_action.response_accepted).toBe(false);
    // An answer (other than a replay of the accepted one) to the earlier checkpoint is stale.
    const stale = await answer(run.run_id, { checkpoint_id: firstId, response: "second thoughts" });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("HUMAN_WAIT_CONFLICT");
  });

  it("Run not in a human wait returns 409 NOT_WAITING_FOR_HUMAN", async () => {
    await h.scenario("production", PORTAL, { steps: [{ wait_ms: 2_000 }, { succeed: {} }] });
    const run = await c.start(PORTAL, portalBody());
    const early = await answer(run.run_id, { checkpoint_id: "chk_x", response: "yes" });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("NOT_WAITING_FOR_HUMAN");
    expect(early.headers.get("x-should-retry")).toBe("false");
    await c.untilTerminal(run.run_id);
    const late = await answer(run.run_id, { checkpoint_id: "chk_x", response: "yes" });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("NOT_WAITING_FOR_HUMAN");
  });

  it("An answer sent just before the run reaches the checkpoint is not lost or misapplied", async () => {
    await h.scenario("production", PORTAL, {
      steps: [{ wait_ms: 5_000 }, human("Later"), { succeed: {} }],
    });
    const run = await c.start(PORTAL, portalBody());
    await c.until(run.run_id, (r) => r.status === "running", { stepMs: 100 });
    const early = await answer(run.run_id, { checkpoint_id: "chk_guess", response: "yes" });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("NOT_WAITING_FOR_HUMAN");
    const waiting = await c.untilWaiting(run.run_id, { stepMs: 500 });
    expect(waiting.human_action.response_accepted).toBe(false);
    await h.advance(60_000);
    const still = (await c.run(run.run_id)).body;
    expect(still.status).toBe("waiting_for_human_live");
  });

  it("Expired wait returns 410 HUMAN_WAIT_EXPIRED", async () => {
    const run = await waitingRun([human("Quick", 10_000), { succeed: {} }]);
    const checkpoint_id = run.human_action.checkpoint_id;
    await h.advance(11_000);
    const end = await c.untilTerminal(run.run_id, { stepMs: 0, tries: 100 });
    expect(end.status).toBe("human_wait_expired");
    const r = await answer(run.run_id, { checkpoint_id, response: "too late" });
    expect(r.status).toBe(410);
    expect(r.body.code).toBe("HUMAN_WAIT_EXPIRED");
  });

  it("A run outside the caller's workspace returns 404", async () => {
    const run = await waitingRun([human("Mine"), { succeed: {} }]);
    const outsider = await h.client("production", ["workflows:run", "runs:read"], "ws_outsider");
    const r = await outsider.api("POST", `/runs/${run.run_id}/human-input`, {
      checkpoint_id: run.human_action.checkpoint_id,
      response: "hijack",
    });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("RUN_NOT_FOUND");
    const mine = (await c.run(run.run_id)).body;
    expect(mine.human_action.response_accepted).toBe(false);
  });

  it("Launching again does not answer a waiting run", async () => {
    const run = await waitingRun([human("Hold"), { succeed: {} }]);
    const again = await c.start(PORTAL, portalBody());
    expect(again.run_id).not.toBe(run.run_id);
    await h.advance(1_000);
    const still = (await c.run(run.run_id)).body;
    expect(still.status).toBe("waiting_for_human_live");
    expect(still.human_action.response_accepted).toBe(false);
    expect(still.human_action.checkpoint_id).toBe(run.human_action.checkpoint_id);
  });
});

describe("an answer without checkpoint_id to a run that ended while its checkpoint was open", () => {
  it("Run not in a human wait returns 409 NOT_WAITING_FOR_HUMAN (not HUMAN_WAIT_CONFLICT)", async () => {
    const run = await waitingRun([human("Approve"), { succeed: {} }]);
    const failed = await h.admin(
      "POST",
      `/environments/production/runs/${run.run_id}/faults/fail`,
      { status: "failed", error: { message: "stopped by an operator" } },
    );
    expect(failed.status).toBeLessThan(300);
    await c.untilTerminal(run.run_id);
    const r = await answer(run.run_id, { response: { approved: true } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("NOT_WAITING_FOR_HUMAN");
    // Naming that checkpoint is still a stale checkpoint.
    const named = await answer(run.run_id, {
      checkpoint_id: run.human_action.checkpoint_id,
      response: { approved: true },
    });
    expect(named.body.code).toBe("HUMAN_WAIT_CONFLICT");
  });
});
