// Time that skips ahead while every client of a test environment is waiting.
//
// The emulator's virtual clock moves only when asked. A client that polls a
// run waits between polls (`Clock.sleep`), and a test of a 10-minute human
// wait would otherwise either sleep for real or advance the clock by hand in a
// loop. Here every sleep of the environment's clients is a timer on the
// emulator's clock: when no request of those clients is in flight and at least
// one of them sleeps, the emulator's clock is advanced to the earliest wake-up
// time and the sleepers due by then wake. That is the rule of Temporal's
// time-skipping test server ("skip time while every workflow is blocked"),
// with "blocked" read as "sleeping, with no request in flight".
//
// What it cannot see: a client that waits on something else (a database, a
// timer of its own) while another one sleeps. Such a test turns skipping off
// around that wait (`pause()`), or advances time by hand.
import type { ClientOptions } from "@wfr/runtime";

/** The time source a runtime client takes (`ClientOptions.clock`). */
type Clock = NonNullable<ClientOptions["clock"]>;

/** How the clock reads and moves the emulator's time (its admin API, in the test environment). */
export interface VirtualTimeSource {
  /** The emulator's current virtual time (ms since the epoch). */
  now(): Promise<number>;
  /** Moves the emulator's clock forward by `ms`; resolves with the new time. */
  advance(ms: number): Promise<number>;
}

interface Sleeper {
  readonly wakeAt: number;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly cleanup: () => void;
}

export class TimeSkippingClock implements Clock {
  #now: number;
  #inFlight = 0;
  #paused = 0;
  #skipping = false;
  #scheduled = false;
  #sleepers: Sleeper[] = [];
  #failure: unknown;
  /** How many times the clock skipped ahead, and by how much in all (for tests and reports). */
  readonly skips = { count: 0, totalMs: 0 };

  private constructor(
    private readonly source: VirtualTimeSource,
    start: number,
    readonly random: () => number,
  ) {
    this.#now = start;
  }

  static async start(
    source: VirtualTimeSource,
    random: () => number = Math.random,
  ): Promise<TimeSkippingClock> {
    return new TimeSkippingClock(source, await source.now(), random);
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      const sleeper: Sleeper = {
        wakeAt: this.#now + Math.max(0, ms),
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#sleepers.push(sleeper);
      this.#schedule();
    });
  }

  /** Wraps a fetch so that time never skips while one of its requests is in flight. */
  wrapFetch(fetchImpl: typeof globalThis.fetch): typeof globalThis.fetch {
    return async (input, init) => {
      this.#inFlight += 1;
      try {
        const response = await fetchImpl(input, init);
        // The body is part of the request: hold time until it is read.
        const body = await response.arrayBuffer();
        return new Response(response.status === 204 || response.status === 304 ? null : body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      } finally {
        this.#inFlight -= 1;
        this.#schedule();
      }
    };
  }

  /** Moves time forward by hand (also while paused), waking the sleepers due by then. */
  async advance(ms: number): Promise<number> {
    this.#now = await this.source.advance(ms);
    this.#wakeDue();
    return this.#now;
  }

  /** Stops skipping until the returned function is called (nested pauses add up). */
  pause(): () => void {
    this.#paused += 1;
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.#paused -= 1;
      this.#schedule();
    };
  }

  /** Rejects every sleeper (the environment is closing). */
  stop(reason: unknown): void {
    this.#failure = reason;
    const sleepers = this.#sleepers;
    this.#sleepers = [];
    for (const s of sleepers) {
      s.cleanup();
      s.reject(reason);
    }
  }

  /**
   * Looks again after the current macrotask: a client that has just been
   * woken, or whose request has just ended, gets the chance to send its next
   * request before time moves.
   */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#maybeSkip();
    });
  }

  async #maybeSkip(): Promise<void> {
    if (this.#skipping || this.#paused > 0 || this.#inFlight > 0) return;
    if (this.#failure !== undefined || this.#sleepers.length === 0) return;
    const wakeAt = Math.min(...this.#sleepers.map((s) => s.wakeAt));
    this.#skipping = true;
    try {
      if (wakeAt > this.#now) {
        const before = this.#now;
        this.#now = await this.source.advance(wakeAt - this.#now);
        this.skips.count += 1;
        this.skips.totalMs += this.#now - before;
      }
      this.#wakeDue();
    } catch (error) {
      this.stop(error);
    } finally {
      this.#skipping = false;
    }
    this.#schedule();
  }

  #wakeDue(): void {
    const due = this.#sleepers.filter((s) => s.wakeAt <= this.#now);
    if (due.length === 0) return;
    this.#sleepers = this.#sleepers.filter((s) => s.wakeAt > this.#now);
    for (const s of due) {
      s.cleanup();
      s.resolve();
    }
  }
}
