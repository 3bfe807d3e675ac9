// The completion of a handled delivery, written behind the answer
// (callback-handler.ts). The claim stored event_id before the action
// (docs/service-rules.md#callbacks: "a receiver stores event_id before any
// action that must not repeat"); the completion turns `processing` into
// `done`. Tried once, a completion the store failed (a restart, a lost
// connection) left the event `processing`, its lease ended, and the next
// delivery of the same id claimed it and ran the handler again. So it is
// tried again with backoff for as long as the lease can be held, and the
// lease is extended before each new attempt; meanwhile a delivery of the id
// reads `processing` and is answered 503.
//
// What remains possible: the store stays unreachable until the lease has
// ended (no attempt and no extension landed in time). The side effect ran
// and the store never learned it; the next delivery after the lease claims
// the event and runs the handler again. Only a transactional completion
// (TransactionalCallbackEventStore) rules that out, for database effects.
import { type Clock, fullJitterDelay, systemClock } from "./backoff.js";
import type { CallbackEventStore } from "./callback-event-store.js";
import type { Log } from "./logger.js";

/** Backoff of the retried completion: the first wait up to 100 ms, doubling, at most 2 s. */
export const COMPLETION_BACKOFF = { initialDelayMs: 100, maxDelayMs: 2_000 } as const;

/** How a completion ended. */
export type CompletionOutcome =
  /** The store marked the event done. */
  | "stored"
  /**
   * The store refused it: the token no longer holds the lease. Either an
   * earlier attempt was stored and only its answer was lost, or the lease
   * ended and another holder claimed the event.
   */
  | "not-held"
  /** The store did not answer before the lease (as last renewed) ended. */
  | "lease-ended";

/** Below this much lease left, another attempt is not started: it would land after the lease. */
export const COMPLETION_MIN_LEASE_LEFT_MS = 50;

/**
 * The wait before attempt `attempt + 1`: the backoff, but at most half the
 * lease left, so the last attempts come closer together before it ends;
 * undefined when too little of the lease is left to start one.
 */
export function nextCompletionDelay(input: {
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  readonly now: number;
  /** When the lease ends by this process's clock (taken before the claim or extension was sent). */
  readonly leaseEndsAt: number;
  readonly random: () => number;
}): number | undefined {
  const delayMs = fullJitterDelay(
    input.attempt - 1,
    COMPLETION_BACKOFF.initialDelayMs,
    COMPLETION_BACKOFF.maxDelayMs,
    input.random,
  );
  const left = input.leaseEndsAt - input.now;
  return left > COMPLETION_MIN_LEASE_LEFT_MS ? Math.min(delayMs, Math.floor(left / 2)) : undefined;
}

export interface CompletionInput {
  readonly store: CallbackEventStore;
  readonly eventId: string;
  readonly token: number;
  readonly leaseMs: number;
  /** When the claim's lease ends by this process's clock. */
  readonly leaseEndsAt: number;
  readonly log: Log;
  readonly clock?: Clock;
}

/** Completes the event, retrying with backoff and extending the lease while it is held. */
export async function completeWhileLeaseHeld(input: CompletionInput): Promise<CompletionOutcome> {
  const { store, eventId, token, leaseMs, log } = input;
  const clock = input.clock ?? systemClock;
  let leaseEndsAt = input.leaseEndsAt;
  for (let attempt = 1; ; attempt++) {
    let failure: unknown;
    try {
      const held = await store.complete(eventId, token);
      if (held && attempt > 1)
        log("info", "completion stored after retrying", { eventId, attempt });
      if (!held) log("warn", notHeldMessage(attempt), { eventId, attempt });
      return held ? "stored" : "not-held";
    } catch (error) {
      failure = error;
    }
    const delayMs = nextCompletionDelay({
      attempt,
      now: clock.now(),
      leaseEndsAt,
      random: clock.random,
    });
    if (delayMs === undefined) {
      log("error", LEASE_ENDED, { eventId, attempt, error: failure });
      return "lease-ended";
    }
    log("warn", "completion not stored; retrying while the lease is held", {
      eventId,
      attempt,
      delayMs,
      error: failure,
    });
    await clock.sleep(delayMs);
    if (!store.extend) continue;
    const sent = clock.now();
    try {
      if (!(await store.extend(eventId, token, leaseMs))) {
        log("warn", notHeldMessage(attempt + 1), { eventId, attempt });
        return "not-held";
      }
      leaseEndsAt = sent + leaseMs;
    } catch {
      // Still unreachable: the completion below fails as well, or lands if it is back.
    }
  }
}

const LEASE_ENDED =
  "completion not stored before the lease ended: the handler ran and the store does not know; a delivery after the lease runs it again";

function notHeldMessage(attempt: number): string {
  return attempt > 1
    ? "completion refused after retrying: an earlier attempt was stored (its answer lost), or the lease passed to another holder"
    : "lease lost before completion; another holder owns the event";
}
