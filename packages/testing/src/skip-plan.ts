// Where time goes next when every client of a test environment sleeps (README "How time
// skips"). Pure: the clock (time-skipping-clock.ts) does the I/O and keeps each sleep's `latest`.

/** A sleeping client as the plan sees it. */
export interface PlannedSleep {
  /** When it asked to wake. */
  readonly wakeAt: number;
  /**
   * When it wakes at the latest, never before `wakeAt`. A plain sleep: `wakeAt`. A polling one
   * (`SleepOptions.pollingUntil` of @wfr/runtime): its deadline (`Infinity` for none), as long as
   * nothing has changed since it went to sleep; once something has (the clock passed an event of
   * the emulator, a client sent a request, or nothing is scheduled any more), the time of that
   * change or `wakeAt`, whichever is later. A sleep wakes once the clock reaches its `latest`.
   */
  readonly latest: number;
}

/**
 * The time the clock moves to: the earliest of the emulator's next event after `now` (null:
 * nothing scheduled, or a time source that cannot tell) and every sleeper's `latest`.
 *
 * A polling client that has seen no change since it went to sleep reads the same answer at
 * every time before the next event, so waking it there instead of at each of its backoff steps
 * changes nothing it can see; a plain sleep (a test's own timer, a Retry-After wait before a
 * request that changes state) wakes at its time. Time stops at every event, also where no client
 * wakes, so that what happens there (a callback) happens at its time.
 */
export function skipTarget(
  now: number,
  sleepers: readonly PlannedSleep[],
  nextEventAt: number | null,
): number {
  if (sleepers.length === 0) return now;
  const latest = Math.min(...sleepers.map((s) => Math.max(s.wakeAt, s.latest)));
  const next = nextEventAt !== null && nextEventAt > now ? nextEventAt : Number.POSITIVE_INFINITY;
  const target = Math.min(next, latest);
  // Only polls with no deadline and nothing scheduled: they wake at their own time.
  if (!Number.isFinite(target)) return Math.max(now, Math.min(...sleepers.map((s) => s.wakeAt)));
  return Math.max(now, target);
}

/** Whether a sleeper wakes with the clock at `now`. */
export const wakesAt = (sleeper: PlannedSleep, now: number): boolean =>
  Math.max(sleeper.wakeAt, sleeper.latest) <= now;
