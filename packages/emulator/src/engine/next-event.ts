// When the emulator next changes by time alone: the earliest of a run's due step (a scenario
// step, a checkpoint's expiry, an answer's acknowledgement), a "processing" recording becoming
// downloadable, and a workspace's recording budget reopening (the end of its Retry-After
// window). With a virtual clock nothing a client can read changes before then, so a test kit may
// move the clock straight there (README "Admin API", `until_next_event`; @wfr/testing's
// README "How time skips"). Callback deliveries run on the wall clock and are not timers here:
// the admin API waits for the ones in flight instead.
import type { RunRecord } from "../model/types.js";
import { type RecordingRateLimiter, recordingReadyAt } from "./recording.js";

export interface TimerSources {
  /** The run engine's earliest due time (`RunEngine.nextDueAt`). */
  readonly dueAt: number | null;
  readonly runs: Iterable<Readonly<RunRecord>>;
  readonly limiter: Pick<RecordingRateLimiter, "reopensAt">;
}

/** The earliest event strictly after `now`, or null when nothing is scheduled. */
export function nextEventAt(now: number, sources: TimerSources): number | null {
  let earliest: number | null = null;
  const consider = (at: number | null) => {
    if (at !== null && at > now && (earliest === null || at < earliest)) earliest = at;
  };
  consider(sources.dueAt);
  for (const run of sources.runs) consider(recordingReadyAt(run));
  consider(sources.limiter.reopensAt(now));
  return earliest;
}
