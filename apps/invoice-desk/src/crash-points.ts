// Failpoints for the crash tests (issue 13: "a crash between any two of these steps and a
// restart never makes a second run"). With WFR_DESK_CRASH_AT=<point> the process kills itself
// with SIGKILL at that point, exactly like a power cut there; without it nothing happens.
import type { LaunchJournal } from "@wfr/runtime";

/** The upload path's steps, in order; a crash is possible after each. */
export const CRASH_POINTS = [
  "after-invoice-stored",
  "after-intent-recorded",
  "after-intent-sent",
  "after-run-acknowledged",
  "before-run-stored",
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export function crashPoint(point: CrashPoint): void {
  if (process.env.WFR_DESK_CRASH_AT === point) process.kill(process.pid, "SIGKILL");
}

/** The journal, with a crash point after each state change it stores. */
export function journalWithCrashPoints(journal: LaunchJournal): LaunchJournal {
  if (!process.env.WFR_DESK_CRASH_AT) return journal;
  return {
    record: async (intent) => {
      const stored = await journal.record(intent);
      crashPoint("after-intent-recorded");
      return stored;
    },
    markSent: async (id) => {
      await journal.markSent(id);
      crashPoint("after-intent-sent");
    },
    markAcknowledged: async (id, runId) => {
      await journal.markAcknowledged(id, runId);
      crashPoint("after-run-acknowledged");
    },
    markFailed: (id, failure) => journal.markFailed(id, failure),
    get: (id) => journal.get(id),
    listUnacknowledged: (options) => journal.listUnacknowledged(options),
  };
}
