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
 * What `status` holds when the server sent a string this runtime does not
 * know; the wire value is kept in `serverStatus`. A status this runtime does
 * not know is neither terminal nor active: only the result endpoint decides
 * (200 = terminal), so it is never misclassified.
 */
export type UnrecognizedStatus = "unrecognized";

/**
 * A run status as envelopes and results expose it: a closed union of the
 * named statuses plus "unrecognized" (the raw value is in `serverStatus`).
 *
 * Closed on purpose. An open `... | (string & {})` union, or a branded
 * string, stays comparable to every string literal, so
 * `run.status === "suceeded"` would compile and silently be false forever;
 * with a closed union that comparison is error TS2367, and a `switch` over
 * it can be checked for exhaustiveness. A new server status never crashes
 * the client: it arrives as "unrecognized" with `serverStatus` set.
 */
export type RunStatus = ActiveStatus | TerminalStatus | UnrecognizedStatus;

export function isTerminalStatus(status: string): status is TerminalStatus {
  return (
    status === "succeeded" || (UNSUCCESSFUL_TERMINAL_STATUSES as readonly string[]).includes(status)
  );
}

export function isActiveStatus(status: string): status is ActiveStatus {
  return (ACTIVE_STATUSES as readonly string[]).includes(status);
}

export function isKnownStatus(status: string): status is ActiveStatus | TerminalStatus {
  return isTerminalStatus(status) || isActiveStatus(status);
}

/** The wire string as a RunStatus: a known status as it is, anything else "unrecognized". */
export function toRunStatus(serverStatus: unknown): RunStatus {
  const status = String(serverStatus);
  return isKnownStatus(status) ? status : "unrecognized";
}
