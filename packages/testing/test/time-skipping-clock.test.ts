// The skipping rule on its own, with a fake emulator clock: time moves only
// when someone sleeps and no request is in flight, to the earliest wake-up.
import { describe, expect, it } from "vitest";
import { TimeSkippingClock, type VirtualTimeSource } from "../src/time-skipping-clock.js";

function fakeSource(start = 1_000) {
  let now = start;
  const advances: number[] = [];
  const source: VirtualTimeSource = {
    now: async () => now,
    advance: async (ms) => {
      advances.push(ms);
      now += ms;
      return now;
    },
  };
  return { source, advances };
}

/** A fake emulator clock with events at the given times (each one happens once passed). */
function fakeEmulator(events: number[], start = 0) {
  let now = start;
  const moves: number[] = [];
  const pending = () => events.filter((at) => at > now).sort((a, b) => a - b);
  const source: VirtualTimeSource = {
    now: async () => now,
    advance: async (ms) => {
      moves.push(now + ms);
      now += ms;
      return now;
    },
    events: {
      next: async () => pending()[0] ?? null,
      advanceUntilNext: async (ms) => {
        now = Math.min(now + ms, pending()[0] ?? Number.POSITIVE_INFINITY);
        moves.push(now);
        return now;
      },
    },
  };
  return { source, moves };
}

/** A fetch whose answer waits until `release` is called. */
function heldFetch() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetchImpl: typeof globalThis.fetch = async () => {
    await held;
    return new Response("{}", { status: 200 });
  };
  return { fetchImpl, release: () => release() };
}

describe("TimeSkippingClock", () => {
  it("wakes sleepers in order of their wake-up time, skipping straight to each", async () => {
    const { source, advances } = fakeSource();
    const clock = await TimeSkippingClock.start(source);
    const woke: string[] = [];
    await Promise.all([
      clock.sleep(5_000).then(() => woke.push(`b@${clock.now()}`)),
      clock.sleep(1_000).then(() => woke.push(`a@${clock.now()}`)),
      clock.sleep(9_000).then(() => woke.push(`c@${clock.now()}`)),
    ]);
    expect(woke).toEqual(["a@2000", "b@6000", "c@10000"]);
    expect(advances).toEqual([1_000, 4_000, 4_000]);
    expect(clock.skips).toEqual({ count: 3, totalMs: 9_000 });
  });

  it("does not move while a request of a client is in flight", async () => {
    const { source, advances } = fakeSource();
    const clock = await TimeSkippingClock.start(source);
    const { fetchImpl, release } = heldFetch();
    const request = clock.wrapFetch(fetchImpl)("http://127.0.0.1/x");
    let woke = false;
    const sleeping = clock.sleep(60_000).then(() => {
      woke = true;
    });
    for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
    expect(woke).toBe(false);
    expect(advances).toEqual([]);
    release();
    await request;
    await sleeping;
    expect(woke).toBe(true);
    expect(clock.now()).toBe(61_000);
  });

  it("pauses until resumed, and `advance` by hand wakes whoever is due", async () => {
    const { source } = fakeSource(0);
    const clock = await TimeSkippingClock.start(source);
    const resume = clock.pause();
    let woke = 0;
    void clock.sleep(10_000).then(() => {
      woke += 1;
    });
    void clock.sleep(20_000).then(() => {
      woke += 1;
    });
    for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
    expect(woke).toBe(0);
    await clock.advance(15_000);
    await new Promise((r) => setImmediate(r));
    expect(woke).toBe(1);
    resume();
    resume(); // a second call changes nothing
    for (let i = 0; i < 20 && woke < 2; i += 1) await new Promise((r) => setImmediate(r));
    expect(woke).toBe(2);
    expect(clock.now()).toBe(20_000);
  });

  it("an aborted sleep rejects with the signal's reason and is forgotten", async () => {
    const { source, advances } = fakeSource();
    const clock = await TimeSkippingClock.start(source);
    const resume = clock.pause();
    const abort = new AbortController();
    const sleeping = clock.sleep(60_000, abort.signal);
    abort.abort(new Error("stopped"));
    await expect(sleeping).rejects.toThrow("stopped");
    resume();
    for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
    expect(advances).toEqual([]);
    await expect(clock.sleep(1, AbortSignal.abort(new Error("already")))).rejects.toThrow(
      "already",
    );
  });

  it("a failing emulator clock rejects the sleepers instead of hanging them", async () => {
    const clock = await TimeSkippingClock.start({
      now: async () => 0,
      advance: async () => {
        throw new Error("POST /_emulator/clock/advance answered 409");
      },
    });
    await expect(clock.sleep(1_000)).rejects.toThrow("answered 409");
    await expect(clock.sleep(1_000)).rejects.toThrow("answered 409");
  });

  it("a polling sleep runs on to the emulator's next event; a plain one wakes at its time", async () => {
    const DAY = 86_400_000;
    const { source, moves } = fakeEmulator([DAY]);
    const clock = await TimeSkippingClock.start(source);
    const woke: string[] = [];
    await Promise.all([
      clock
        .sleep(15_000, undefined, { pollingUntil: 2 * DAY })
        .then(() => woke.push(`poll@${clock.now()}`)),
      clock.sleep(60_000).then(() => woke.push(`plain@${clock.now()}`)),
    ]);
    expect(woke).toEqual([`plain@60000`, `poll@${DAY}`]);
    expect(moves).toEqual([60_000, DAY]);
    expect(clock.skips.count).toBe(2);
  });

  it("once an event has passed, a polling sleep wakes at its own time, to read what changed", async () => {
    const { source, moves } = fakeEmulator([50, 100, 600_000]);
    const clock = await TimeSkippingClock.start(source);
    await clock.sleep(700, undefined, { pollingUntil: 1_800_000 });
    expect(clock.now()).toBe(700);
    // It slept through the events at 50 and 100 (nobody woke there), then woke at its own time.
    expect(moves).toEqual([50, 100, 700]);
  });

  it("a request of any client ends the others' polling sleeps at their own wake-up", async () => {
    const { source } = fakeEmulator([86_400_000]);
    const clock = await TimeSkippingClock.start(source);
    const resume = clock.pause();
    const sleeping = clock.sleep(15_000, undefined, { pollingUntil: Number.POSITIVE_INFINITY });
    await clock.wrapFetch(async () => new Response("{}"))("http://127.0.0.1/answer");
    resume();
    await sleeping;
    expect(clock.now()).toBe(15_000);
  });

  it("a request in flight holds the clock also when the emulator has an event ahead", async () => {
    const { source, moves } = fakeEmulator([86_400_000]);
    const clock = await TimeSkippingClock.start(source);
    const { fetchImpl, release } = heldFetch();
    const request = clock.wrapFetch(fetchImpl)("http://127.0.0.1/x");
    const sleeping = clock.sleep(15_000, undefined, { pollingUntil: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
    expect(moves).toEqual([]);
    release();
    await request;
    await sleeping;
    // The request began before the sleep: the sleeper saw no change since, and runs on.
    expect(moves).toEqual([86_400_000]);
  });
});
