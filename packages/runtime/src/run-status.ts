// The run statuses come from @wfr/protocol (the one list); this module adds what the runtime
// exposes on top: "unrecognized" for a status it does not know, and the wire-to-RunStatus step.
import {
  type ActiveStatus,
  isActiveStatus,
  isKnownStatus,
  isTerminalStatus,
  type KnownRunStatus,
  type TerminalStatus,
  type UnsuccessfulTerminalStatus,
} from "@wfr/protocol";

export type { ActiveStatus, TerminalStatus, UnsuccessfulTerminalStatus };
export { isActiveStatus, isTerminalStatus };

/**
 * What `status` holds when the server sent a string this runtime does not
 * know; the wire value is kept in `serverStatus`. A status this runtime does
 * not know is neither terminal nor active: only the result endpoint decides
 * (200 = terminal), so it is never misclassified.
 */
export type UnrecognizedStatus = "unrecognized";
const UNRECOGNIZED_STATUS: UnrecognizedStatus = "unrecognized";

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
export type RunStatus = KnownRunStatus | UnrecognizedStatus;

/** The wire string as a RunStatus: a known status as it is, anything else "unrecognized". */
export function toRunStatus(serverStatus: unknown): RunStatus {
  const status = String(serverStatus);
  return isKnownStatus(status) ? status : UNRECOGNIZED_STATUS;
}
