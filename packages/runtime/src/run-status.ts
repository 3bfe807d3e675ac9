// Statuses (definition-format, "Statuses this project names"): queued,
// starting, running, waiting_for_human_live, and terminal succeeded, failed,
// error, cancelled, terminated, dead_letter, human_wait_expired. "Clients
// must treat any other string as a status they do not know (not terminal
// until the result endpoint answers 200)."

export const ACTIVE_STATUSES = ["queued", "starting", "running", "waiting_for_human_live"] as const;
export const UNSUCCESSFUL_TERMINAL_STATUSES = [
  "failed",
  "error",
  "cancelled",
  "terminated",
  "dead_letter",
  "human_wait_expired",
] as const;

export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type UnsuccessfulTerminalStatus = (typeof UNSUCCESSFUL_TERMINAL_STATUSES)[number];
export type TerminalStatus = "succeeded" | UnsuccessfulTerminalStatus;
/**
 * What a result's `status` holds when the server sent a string this runtime
 * does not know; the wire value is kept in `serverStatus`. A literal, so
 * `result.status === "succeeded"` narrows to the success case.
 */
export type UnrecognizedStatus = "unrecognized";

export function isTerminalStatus(status: string): status is TerminalStatus {
  return (
    status === "succeeded" || (UNSUCCESSFUL_TERMINAL_STATUSES as readonly string[]).includes(status)
  );
}

export function isActiveStatus(status: string): status is ActiveStatus {
  return (ACTIVE_STATUSES as readonly string[]).includes(status);
}

export function isKnownStatus(status: string): boolean {
  return isTerminalStatus(status) || isActiveStatus(status);
}

/**
 * A run status: the values the spec names plus the queued/running/success
 * values the emulator uses, open to strings this runtime does not know yet
 * (`string & {}` keeps completion and catches typos in comparisons with the
 * known literals while still accepting new server values).
 */
export type RunStatus = ActiveStatus | TerminalStatus | (string & {});
