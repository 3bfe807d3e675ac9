// Polling until a run is terminal or awaits a person (src/wait-for-run.ts), on a virtual clock.
import { describe, expect, it } from "vitest";
import { WaitTimeoutError } from "../src/index.js";
import { toRunEnvelope } from "../src/run-envelope.js";
import { stopReason, waitForRunWith } from "../src/wait-for-run.js";
import type { RunEnvelope } from "../src/wire-types.js";

import { createVirtualClock } from "./support/fake-workflows.js";

describe("waitForRunWith", () => {
  const envelope = (status: string): RunEnvelope =>
    toRunEnvelope({
      run_id: "run_1",
      workflow_id: "wf",
      status,
      timestamps: {},
      error: null,
      metadata: {},
    });

  it("polls with exponential backoff and full jitter, stops on a terminal status", async () => {
    const clock = createVirtualClock(() => 0.5);
    const statuses = ["queued", "running", "running", "running", "succeeded"];
    const run = await waitForRunWith(
      {
        getRun: async () => envelope(statuses.shift() ?? "succeeded"),
        resultIsTerminal: async () => false,
        clock,
      },
      "run_1",
      { initialIntervalMs: 100, maxIntervalMs: 500 },
    );
    expect(run.status).toBe("succeeded");
    expect(clock.sleeps).toEqual([50, 100, 200, 250]);
  });

  it("Answering a checkpoint leaves the run in waiting_for_human_live: stops there unless keepWaitingOnHuman", async () => {
    const waiting = envelope("waiting_for_human_live");
    expect(await stopReason(waiting, {}, new Set(), async () => false)).toBe("waiting_for_human");
    expect(
      await stopReason(waiting, { keepWaitingOnHuman: true }, new Set(), async () => false),
    ).toBeUndefined();
    expect(await stopReason(envelope("dead_letter"), {}, new Set(), async () => false)).toBe(
      "terminal",
    );
    expect(await stopReason(envelope("new_status"), {}, new Set(), async () => true)).toBe(
      "terminal",
    );
    expect(
      await stopReason(envelope("new_status"), {}, new Set(), async () => false),
    ).toBeUndefined();
  });

  it("times out with WaitTimeoutError, and aborting stops watching only (no cancel request exists)", async () => {
    const clock = createVirtualClock(() => 1);
    const deps = {
      getRun: async () => envelope("running"),
      resultIsTerminal: async () => false,
      clock,
    };
    await expect(
      waitForRunWith(deps, "run_1", { timeoutMs: 1000, initialIntervalMs: 100 }),
    ).rejects.toBeInstanceOf(WaitTimeoutError);
    const controller = new AbortController();
    controller.abort(new Error("stop watching"));
    await expect(waitForRunWith(deps, "run_1", { signal: controller.signal })).rejects.toThrow(
      "stop watching",
    );
  });

  it("tells the clock each sleep is polling until the wait's deadline", async () => {
    const clock = createVirtualClock(() => 0.5);
    const statuses = ["queued", "running", "succeeded"];
    await waitForRunWith(
      {
        getRun: async () => envelope(statuses.shift() ?? "succeeded"),
        resultIsTerminal: async () => false,
        clock,
      },
      "run_1",
      { initialIntervalMs: 100, timeoutMs: 60_000 },
    );
    expect(clock.pollingUntil).toEqual([60_000, 60_000]);
  });

  it("a sleep that ends past the deadline ends the wait there, without one more poll", async () => {
    const clock = createVirtualClock(() => 0.5);
    let polls = 0;
    const waiting = waitForRunWith(
      {
        getRun: async () => {
          polls += 1;
          return envelope(polls === 1 ? "running" : "succeeded");
        },
        resultIsTerminal: async () => false,
        clock,
      },
      "run_1",
      { initialIntervalMs: 100, timeoutMs: 1_000 },
    );
    clock.oversleepBy(5_000);
    await expect(waiting).rejects.toThrow(/still running when waiting timed out after 1000 ms/);
    expect(polls).toBe(1);
  });
});
