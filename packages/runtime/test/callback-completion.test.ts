// The completion a receiver writes behind its answer (src/callback-completion.ts): a store that
// fails it is tried again, with the lease extended, so a redelivery never runs the handler twice
// while the lease can be held (docs/service-rules.md#callbacks: duplicates happen; the receiver
// stores event_id before any action that must not repeat).
import { describe, expect, it, vi } from "vitest";
import { nextCompletionDelay } from "../src/callback-completion.js";
import {
  type CallbackEventStore,
  createCallbackHandler,
  createMemoryEventStore,
  type RunEnvelope,
} from "../src/index.js";

const envelope = {
  run_id: "run_1",
  workflow_id: "wf_1",
  status: "succeeded",
  timestamps: {},
  error: null,
  metadata: {},
  human_action: null,
};
const api = {
  getRun: async () => envelope as unknown as RunEnvelope,
  getResult: async () =>
    ({
      state: "terminal",
      status: "succeeded",
      serverStatus: "succeeded",
      error: null,
      metadata: {},
      outputs: {},
    }) as never,
};
const delivery = (eventId: string) =>
  new Request("https://receiver.example.com/wfr", {
    method: "POST",
    body: JSON.stringify({ event_id: eventId, type: "workflow.run.completed", run: envelope }),
  });

/** A memory store on a clock the test moves, whose `complete` rejects while `failing()` says so. */
function flakyStore(failing: () => boolean) {
  let time = 1_000_000;
  const memory = createMemoryEventStore({ now: () => time });
  const calls = { complete: 0, extend: 0 };
  const store: CallbackEventStore = {
    ...memory,
    async complete(eventId, token) {
      calls.complete += 1;
      if (failing()) throw new Error("store unavailable");
      return memory.complete(eventId, token);
    },
    async extend(eventId, token, leaseMs) {
      calls.extend += 1;
      return (await memory.extend?.(eventId, token, leaseMs)) ?? false;
    },
  };
  return { store, calls, advance: (ms: number) => (time += ms) };
}

describe("a completion the store failed", () => {
  it("is tried again: a redelivery after the first lease does not run onCompleted again", async () => {
    let failures = 1;
    const { store, advance } = flakyStore(() => failures-- > 0);
    let runs = 0;
    const handler = createCallbackHandler({
      client: api,
      store,
      leaseMs: 60_000,
      onCompleted: () => {
        runs += 1;
      },
    });
    expect((await handler(delivery("evt_1"))).status).toBe(200);
    await handler.drain();
    advance(61_000); // past the lease of the first claim
    const again = await handler(delivery("evt_1"));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ duplicate: true });
    expect(runs).toBe(1);
  });

  it("keeps its lease while retrying: a redelivery meanwhile gets 503 processing, never a second run", async () => {
    let down = true;
    const { store, calls, advance } = flakyStore(() => down);
    let runs = 0;
    const handler = createCallbackHandler({
      client: api,
      store,
      leaseMs: 60_000,
      onCompleted: () => {
        runs += 1;
      },
    });
    expect((await handler(delivery("evt_2"))).status).toBe(200);
    // Past the first claim's lease, in two steps, each after the receiver extended it.
    for (let step = 0; step < 2; step++) {
      const extended = calls.extend;
      await vi.waitFor(() => expect(calls.extend).toBeGreaterThan(extended), {
        timeout: 30_000,
        interval: 20,
      });
      advance(40_000);
      const meanwhile = await handler(delivery("evt_2"));
      expect(meanwhile.status).toBe(503);
      expect(await meanwhile.json()).toEqual({ processing: true });
    }
    down = false;
    await handler.drain();
    const after = await handler(delivery("evt_2"));
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ duplicate: true });
    expect(runs).toBe(1);
  }, 90_000);
});

describe("nextCompletionDelay", () => {
  const half = () => 0.5;
  it("backs off with full jitter while the lease has room", () => {
    expect(nextCompletionDelay({ attempt: 1, now: 0, leaseEndsAt: 60_000, random: half })).toBe(50);
    expect(nextCompletionDelay({ attempt: 3, now: 0, leaseEndsAt: 60_000, random: half })).toBe(
      200,
    );
    // Capped at COMPLETION_BACKOFF.maxDelayMs (2 s), however many attempts failed.
    expect(nextCompletionDelay({ attempt: 20, now: 0, leaseEndsAt: 60_000, random: () => 1 })).toBe(
      2_000,
    );
  });

  it("waits at most half the lease left, and starts none in its last 50 ms", () => {
    expect(nextCompletionDelay({ attempt: 20, now: 0, leaseEndsAt: 1_000, random: () => 1 })).toBe(
      500,
    );
    expect(
      nextCompletionDelay({ attempt: 1, now: 960, leaseEndsAt: 1_000, random: half }),
    ).toBeUndefined();
  });
});
