// Time that skips ahead while every client of a test environment is waiting.
//
// The emulator's virtual clock moves only when asked. A client that polls a
// run waits between polls (`Clock.sleep`), and a test of a 24-hour human wait
// would otherwise either sleep for real or advance the clock by hand in a
// loop. Here every sleep of the environment's clients is a timer on the
// emulator's clock: when no request of those clients is in flight and at least
// one of them sleeps, the clock moves to the emulator's next event (a scenario
// step, an expiry, ...) or to the clients' wake-ups, whichever comes first, and
// a polling client sleeps on through wake-ups before that event, since every
// poll there would read the same answer (skip-plan.ts; README "How time
// skips"). That is the rule of Temporal's time-skipping test server ("skip
// time while every workflow is blocked"), with "blocked" read as "sleeping,
// with no request in flight", and "skip to the next timer" as "to the
// emulator's next event".
//
// What it cannot see: a client that waits on something else (a database, a
// timer of its own) while another one sleeps. Such a test turns skipping off
// around that wait (`pause()`), or advances time by hand.
import type { ClientOptions, SleepOptions } from "@wfr/runtime";
import { skipTarget, wakesAt } from "./skip-plan.js";

/** The time source a runtime client takes (`ClientOptions.clock`). */
type Clock = NonNullable<ClientOptions["clock"]>;

/** How the clock reads and moves the emulator's time (its admin API, in the test environment). */
export interface VirtualTimeSource {
  /** The emulator's current virtual time (ms since the epoch). */
  now(): Promise<number>;
  /** Moves the emulator's clock forward by `ms`; resolves with the new time. */
  advance(ms: number): Promise<number>;
  /**
   * The emulator's own timers. Without them time skips only to the clients' wake-ups, one
   * backoff step of a polling client at a time.
   */
  readonly events?: EmulatorEvents;
}

/** The emulator's next event (`GET /_emulator/clock`, `next_event_at`) and moving up to it. */
export interface EmulatorEvents {
  /** The emulator's next event after its current time (ms since the epoch), or null: none. */
  next(): Promise<number | null>;
  /**
   * Moves forward by at most `ms`, stopping at the next event, once no callback delivery is in
   * flight (`POST /_emulator/clock/advance` with `until_next_event`); resolves with the new time.
   */
  advanceUntilNext(ms: number): Promise<number>;
}

interface Sleeper {
  readonly wakeAt: number;
  /**
   * The latest it may wake: its polling deadline while nothing has changed since it went to
   * sleep, else `wakeAt` (or now, when a change came after it): skip-plan.ts.
   */
  latest: number;
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

  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal?.reason);
      };
      const wakeAt = this.#now + Math.max(0, ms);
      const sleeper: Sleeper = {
        wakeAt,
        // Without the emulator's events no sleep runs on past its wake-up (skip-plan.ts).
        latest: this.source.events ? Math.max(wakeAt, options?.pollingUntil ?? wakeAt) : wakeAt,
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
      // Any request may change what the others read (a run, a budget, an armed fault).
      this.#changed();
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
    this.#changed();
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
    if (this.#skipping || !this.#mayMove()) return;
    this.#skipping = true;
    try {
      if (!this.#sleepers.some((s) => wakesAt(s, this.#now))) {
        const { events } = this.source;
        const next = events ? await events.next() : null;
        // A request may have started, or a sleep ended, while the emulator was asked.
        if (!this.#mayMove()) return;
        // Nothing scheduled: nothing will change by time alone, so no poll sleeps on.
        if (next === null) this.#changed();
        const target = skipTarget(this.#now, this.#sleepers, next);
        if (target > this.#now) {
          const before = this.#now;
          this.#now = events
            ? await events.advanceUntilNext(target - before)
            : await this.source.advance(target - before);
          if (next !== null && this.#now >= next) this.#changed();
          this.skips.count += 1;
          this.skips.totalMs += this.#now - before;
        }
      }
      this.#wakeDue();
    } catch (error) {
      this.stop(error);
    } finally {
      this.#skipping = false;
      this.#schedule();
    }
  }

  /** Time may move: every client sleeps, none has a request in flight, skipping is on. */
  #mayMove(): boolean {
    return (
      this.#paused === 0 &&
      this.#inFlight === 0 &&
      this.#failure === undefined &&
      this.#sleepers.length > 0
    );
  }

  /** Something may have changed now: no sleeper sleeps past its own wake-up, or past now. */
  #changed(): void {
    for (const s of this.#sleepers) s.latest = Math.max(s.wakeAt, this.#now);
  }

  #wakeDue(): void {
    const due = this.#sleepers.filter((s) => wakesAt(s, this.#now));
    if (due.length === 0) return;
    this.#sleepers = this.#sleepers.filter((s) => !wakesAt(s, this.#now));
    for (const s of due) {
      s.cleanup();
      s.resolve();
    }
  }
}
