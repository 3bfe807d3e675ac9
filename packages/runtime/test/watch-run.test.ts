// watchRunWith on scripted reads: the changes it yields, in order, and the
// polling rules it keeps (backoff reset on change, unknown statuses decided
// by the result endpoint, abort stops watching only).
import { describe, expect, it } from "vitest";
import type { RunEnvelope } from "../src/index.js";
import { type RunChange, snapshotEvents, watchRunWith } from "../src/watch-run.js";
import { createVirtualClock } from "./support/fake-workflows.js";

function envelope(status: string, over: Partial<RunEnvelope> = {}): RunEnvelope {
  const known = [
    "queued",
    "starting",
    "running",
    "waiting_for_human_live",
    "succeeded",
    "failed",
    "human_wait_expired",
  ];
  return {
    run_id: "run_1",
    workflow_id: "wf_1",
    status: (known.includes(status) ? status : "unrecognized") as RunEnvelope["status"],
    serverStatus: status,
    timestamps: { created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" },
    error: null,
    metadata: {},
    ...over,
  } as RunEnvelope;
}

/** Each poll reads the next envelope and the next events snapshot (the last one repeats). */
function scripted(runs: RunEnvelope[], events: unknown[][], resultTerminal: boolean[] = []) {
  let poll = 0;
  let eventPoll = 0;
  let resultPoll = 0;
  const clock = createVirtualClock();
  return {
    clock,
    reads: () => poll,
    deps: {
      getRun: async () => runs[Math.min(poll++, runs.length - 1)] as RunEnvelope,
      getEvents: async () => ({
        run_id: "run_1",
        events: events[Math.min(eventPoll++, events.length - 1)] ?? [],
      }),
      resultIsTerminal: async () => resultTerminal[resultPoll++] ?? false,
      clock,
    },
  };
}

async function collect(iterable: AsyncIterable<RunChange>): Promise<string[]> {
  const out: string[] = [];
  for await (const change of iterable) {
    if (change.type === "status")
      out.push(`status ${change.previous} -> ${change.run.serverStatus}`);
    else if (change.type === "event") out.push(`event ${String(change.event.type)}`);
    else out.push(`human ${change.humanAction.checkpoint_id}`);
  }
  return out;
}

const started = { id: "e1", type: "run.started" };
const step = { id: "e2", type: "step.completed" };
const done = { id: "e3", type: "run.succeeded" };

describe("watchRunWith", () => {
  it("yields status changes, new events and new checkpoints; the terminal status last", async () => {
    const checkpoint = {
      checkpoint_id: "cp_1",
      kind: "approval",
      reason: "check",
      response_accepted: false,
    };
    const { deps } = scripted(
      [
        envelope("running"),
        envelope("running"),
        envelope("waiting_for_human_live", { human_action: checkpoint }),
        envelope("waiting_for_human_live", {
          human_action: { ...checkpoint, response_accepted: true },
        }),
        envelope("succeeded"),
      ],
      [[started], [started, step], [started, step], [started, step], [started, step, done]],
    );
    expect(await collect(watchRunWith(deps, "run_1"))).toEqual([
      "status null -> running",
      "event run.started",
      "event step.completed",
      "status running -> waiting_for_human_live",
      "human cp_1",
      "event run.succeeded",
      "status waiting_for_human_live -> succeeded",
    ]);
  });

  it("returns the terminal envelope as the iterator's value", async () => {
    const { deps } = scripted([envelope("failed")], [[]]);
    const iterator = watchRunWith(deps, "run_1", { events: false });
    expect((await iterator.next()).value).toMatchObject({ type: "status", previous: null });
    expect(await iterator.next()).toMatchObject({ done: true, value: { serverStatus: "failed" } });
  });

  it("polls with backoff while nothing changes and starts over after a change", async () => {
    const same = envelope("running");
    const { deps, clock } = scripted(
      [same, same, same, same, envelope("waiting_for_human_live"), envelope("succeeded")],
      [[]],
    );
    await collect(watchRunWith(deps, "run_1", { initialIntervalMs: 1_000, maxIntervalMs: 15_000 }));
    // random() = 0.5: half of each ceiling, the ceiling doubling from 1,000 while nothing changes.
    expect(clock.sleeps).toEqual([500, 1_000, 2_000, 4_000, 500]);
    // Each sleep is polling with no deadline: a clock may wake it later, once something changed.
    expect(new Set(clock.pollingUntil)).toEqual(new Set([Number.POSITIVE_INFINITY]));
  });

  it("a status it does not know ends the watch only when the result endpoint answers 200", async () => {
    const { deps } = scripted(
      [envelope("paused_by_ops"), envelope("archived")],
      [[]],
      [false, true],
    );
    expect(await collect(watchRunWith(deps, "run_1", { events: false }))).toEqual([
      "status null -> paused_by_ops",
      "status paused_by_ops -> archived",
    ]);
  });

  it("aborting stops watching with the signal's reason", async () => {
    const { deps, reads } = scripted([envelope("running")], [[]]);
    const abort = new AbortController();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const change of watchRunWith(deps, "run_1", { signal: abort.signal })) {
          seen.push(change.type);
          abort.abort(new Error("stop watching"));
        }
      })(),
    ).rejects.toThrow("stop watching");
    expect(seen).toEqual(["status"]);
    expect(reads()).toBe(1);
  });

  it("reads events without ids by their place in the snapshot", () => {
    expect(snapshotEvents({ events: [{ type: "a" }, null, 3, { type: "b" }] })).toEqual([
      { type: "a" },
      { type: "b" },
    ]);
    expect(snapshotEvents({ items: [] })).toEqual([]);
  });
});
