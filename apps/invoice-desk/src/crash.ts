// A deterministic crash hook for the desk's crash tests: when
// WFR_DESK_CRASH_AT names a step of the upload path, the process kills itself
// with SIGKILL right after that step (no cleanup, no flush beyond what the
// step itself wrote), like a power cut. WFR_DESK_CRASH_FOR, when set, limits
// the crash to the upload of that one invoice id: the life that recovers one
// invoice after its crash can then be the one that crashes on the next, so
// each crash point costs one desk start, not two. Only tests set them.
export const CRASH_POINTS = [
  "after-store", // the invoice record is stored
  "after-key", // the idempotency key is derived from the invoice id
  "after-journal", // the intent is recorded in the launch journal
  "after-launch", // the service created the run; its answer is not recorded yet
  "after-ack", // the journal holds the run; the invoice does not yet
  "after-mark", // the invoice is marked with its run; the response is not sent yet
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export function crashPoint(step: CrashPoint, invoiceId: string): void {
  if (process.env.WFR_DESK_CRASH_AT !== step) return;
  const only = process.env.WFR_DESK_CRASH_FOR;
  if (only === undefined || only === invoiceId) process.kill(process.pid, "SIGKILL");
}
