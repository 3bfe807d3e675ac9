// The I/O edge under the pipeline (src/http-transport.ts): how a body goes out, one attempt's limit.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AttemptLimit,
  AttemptTimeout,
  bodyInit,
  redirectModeOf,
  requestStreamsSupported,
  SIGNAL_USES,
  SpareSignal,
  STREAM_BODY_BYTES,
  type StreamableBody,
  sendableBody,
} from "../src/http-transport.js";

describe("bodyInit", () => {
  const large = new Uint8Array(STREAM_BODY_BYTES + 5);

  it("a small body goes as bytes, without a Content-Length of ours", () => {
    const headers: Record<string, string> = {};
    const small = new Uint8Array(10);
    expect(bodyInit(small, headers, () => true).body).toBe(small);
    expect(headers).toEqual({});
  });

  it("a large body goes as a duplex 'half' stream of views over the same bytes, its length announced", async () => {
    large[0] = 1;
    large[large.length - 1] = 2;
    const headers: Record<string, string> = {};
    const init = bodyInit(large, headers, () => true) as RequestInit & { duplex?: string };
    expect(init.duplex).toBe("half");
    expect(init.body).toBeInstanceOf(ReadableStream);
    expect(headers["content-length"]).toBe(String(large.byteLength));
    const sent = new Uint8Array(await new Response(init.body as ReadableStream).arrayBuffer());
    expect(sent.byteLength).toBe(large.byteLength);
    expect([sent[0], sent[sent.length - 1]]).toEqual([1, 2]);
  });

  it("falls back to the bytes where the platform does not stream request bodies", () => {
    const headers: Record<string, string> = {};
    const init = bodyInit(large, headers, () => false);
    expect(Object.keys(init)).toEqual(["body"]);
    expect(init.body).toBe(large);
    expect(headers).toEqual({});
  });

  it("Node streams request bodies (the four-runtime test covers Bun, Deno and workerd)", () => {
    expect(requestStreamsSupported()).toBe(true);
  });
});

describe("sendableBody", () => {
  const bytes = new Uint8Array([1, 2, 3]);
  const streamable = (byteLength: number): StreamableBody => ({
    byteLength,
    stream: () => new ReadableStream({ start: (c) => c.close() }),
    bytes: async () => bytes,
  });

  it("a large streamable body stays a stream where the platform streams, with its length announced", async () => {
    const body = streamable(STREAM_BODY_BYTES);
    expect(await sendableBody(body, () => true)).toBe(body);
    const headers: Record<string, string> = {};
    const init = bodyInit(body, headers) as RequestInit & { duplex?: string };
    expect(init.body).toBeInstanceOf(ReadableStream);
    expect(init.duplex).toBe("half");
    expect(headers["content-length"]).toBe(String(STREAM_BODY_BYTES));
  });

  it("a large body's send waits for one turn of the event loop; bytes go without one", async () => {
    let yields = 0;
    const yieldNow = async () => {
      yields += 1;
    };
    await sendableBody(streamable(STREAM_BODY_BYTES), () => true, yieldNow);
    expect(yields).toBe(1);
    await sendableBody(bytes, () => true, yieldNow);
    await sendableBody(undefined, () => true, yieldNow);
    expect(yields).toBe(1);
  });

  it("falls back to its bytes where the platform does not stream, and for a small body", async () => {
    expect(await sendableBody(streamable(STREAM_BODY_BYTES), () => false)).toBe(bytes);
    expect(await sendableBody(streamable(10), () => true)).toBe(bytes);
  });
});

describe("AttemptLimit", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("aborts its signal with AttemptTimeout once the limit passes", async () => {
    vi.useFakeTimers();
    const limit = new AttemptLimit(5_000, undefined);
    expect(limit.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(limit.signal.aborted).toBe(true);
    expect(limit.signal.reason).toBeInstanceOf(AttemptTimeout);
    expect(limit.timedOut).toBe(true);
  });

  it("follows the caller's signal without counting it as a timeout", () => {
    const caller = new AbortController();
    const limit = new AttemptLimit(60_000, caller.signal);
    caller.abort(new Error("caller stopped"));
    expect(limit.signal.aborted).toBe(true);
    expect(String(limit.signal.reason)).toContain("caller stopped");
    expect(limit.timedOut).toBe(false);
    limit.clear();
  });

  it("clear() leaves nothing armed: the signal never aborts afterwards", async () => {
    vi.useFakeTimers();
    const limit = new AttemptLimit(5_000, undefined);
    limit.clear();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(limit.signal.aborted).toBe(false);
    expect(limit.timedOut).toBe(false);
  });

  it("release() hands the signal to the next attempt; clear() does not", () => {
    const spare = new SpareSignal();
    const first = new AttemptLimit(5_000, undefined, spare);
    first.release();
    const second = new AttemptLimit(5_000, undefined, spare);
    expect(second.signal).toBe(first.signal);
    // Held by one attempt at a time: a concurrent attempt gets a signal of its own.
    const concurrent = new AttemptLimit(5_000, undefined, spare);
    expect(concurrent.signal).not.toBe(second.signal);
    concurrent.clear();
    second.clear();
    expect(new AttemptLimit(5_000, undefined, spare).signal).not.toBe(second.signal);
  });

  it("a signal that aborted is never handed on, and one attempt's timeout aborts only its own", async () => {
    vi.useFakeTimers();
    const spare = new SpareSignal();
    const first = new AttemptLimit(5_000, undefined, spare);
    first.release();
    const second = new AttemptLimit(5_000, undefined, spare);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(second.timedOut).toBe(true);
    expect(first.timedOut).toBe(false);
    second.release();
    const third = new AttemptLimit(5_000, undefined, spare);
    expect(third.signal).not.toBe(second.signal);
    expect(third.signal.aborted).toBe(false);
    third.clear();
  });

  it("an attempt with the caller's signal neither takes nor leaves a spare", () => {
    const spare = new SpareSignal();
    const own = new AttemptLimit(5_000, undefined, spare);
    own.release();
    const caller = new AbortController();
    const withCaller = new AttemptLimit(5_000, caller.signal, spare);
    expect(withCaller.signal).not.toBe(own.signal);
    withCaller.release();
    expect(new AttemptLimit(5_000, undefined, spare).signal).toBe(own.signal);
  });

  it("the timer of an attempt that ended whole is kept unreferenced and re-armed by the next attempt of its length", async () => {
    vi.useFakeTimers();
    const spare = new SpareSignal();
    const first = new AttemptLimit(5_000, undefined, spare);
    await vi.advanceTimersByTimeAsync(4_000);
    first.release();
    const kept = spare.takeTimer(5_000);
    if (!kept) throw new Error("the timer of an attempt that ended whole was not kept");
    expect((kept.handle as unknown as { hasRef(): boolean }).hasRef()).toBe(false);
    spare.keepTimer(kept);
    // Another length arms a timer of its own; the kept one stays for its length.
    expect(spare.takeTimer(1_000)).toBeUndefined();
    const second = new AttemptLimit(5_000, undefined, spare);
    // Re-armed when the second attempt began: 4 s in, nothing fired yet.
    await vi.advanceTimersByTimeAsync(4_000);
    expect(second.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(second.timedOut).toBe(true);
    expect(first.timedOut).toBe(false);
  });

  it("a kept timer that fires with no attempt on it aborts nothing", async () => {
    vi.useFakeTimers();
    const spare = new SpareSignal();
    const first = new AttemptLimit(5_000, undefined, spare);
    first.release();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(first.timedOut).toBe(false);
    expect(first.signal.aborted).toBe(false);
    const second = new AttemptLimit(5_000, undefined, spare);
    expect(second.signal).toBe(first.signal);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(second.timedOut).toBe(true);
  });

  it("a timer armed by faked timers is not re-armed once real timers are back", async () => {
    vi.useFakeTimers();
    const spare = new SpareSignal();
    new AttemptLimit(5_000, undefined, spare).release();
    vi.useRealTimers();
    expect(spare.takeTimer(5_000)).toBeUndefined();
  });

  it(`a signal serves at most ${SIGNAL_USES} attempts (fetch keeps a listener on it per request)`, () => {
    const spare = new SpareSignal();
    const signals = new Set<AbortSignal>();
    for (let i = 0; i < SIGNAL_USES * 2 + 1; i++) {
      const limit = new AttemptLimit(5_000, undefined, spare);
      signals.add(limit.signal);
      limit.release();
    }
    expect(signals.size).toBe(3);
  });
});

describe("redirectModeOf", () => {
  it('is "error" where the platform accepts it (Node), "manual" where building such a Request throws (workerd)', () => {
    expect(redirectModeOf(Request)).toBe("error");
    class RefusesErrorMode extends Request {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        if (init?.redirect === "error")
          throw new TypeError('Invalid redirect value, must be one of "follow" or "manual"');
        super(input, init);
      }
    }
    expect(redirectModeOf(RefusesErrorMode)).toBe("manual");
  });
});
