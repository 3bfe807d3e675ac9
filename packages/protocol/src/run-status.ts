// Run statuses (docs/definition-format.md#statuses-this-project-names,
// docs/service-rules.md#statuses). Clients treat any other string as a status they do not know: not terminal
// until the result endpoint answers 200.
import { memberOf, named } from "./named.js";

/** A person is awaited; `human_action` is populated. */
export const HUMAN_WAIT_STATUSES = ["waiting_for_human_live"] as const;
/** Not terminal: the result endpoint answers 202. */
export const ACTIVE_STATUSES = ["queued", "starting", "running", ...HUMAN_WAIT_STATUSES] as const;
/** Terminal, and not business success: HTTP 200 from the result endpoint does not mean success. */
export const UNSUCCESSFUL_TERMINAL_STATUSES = [
  "failed",
  "error",
  "cancelled",
  "terminated",
  "dead_letter",
  "human_wait_expired",
] as const;
export const SUCCESSFUL_TERMINAL_STATUSES = ["succeeded"] as const;
export const TERMINAL_STATUSES = [
  ...SUCCESSFUL_TERMINAL_STATUSES,
  ...UNSUCCESSFUL_TERMINAL_STATUSES,
] as const;
/** Every status this project names, in lifecycle order. */
export const RUN_STATUSES = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES] as const;

export type HumanWaitStatus = (typeof HUMAN_WAIT_STATUSES)[number];
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];
export type UnsuccessfulTerminalStatus = (typeof UNSUCCESSFUL_TERMINAL_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
/** A status this project names (the wire may carry others: see `isKnownStatus`). */
export type KnownRunStatus = (typeof RUN_STATUSES)[number];

/** `RUN_STATUS.succeeded`: the one spelling of each status outside this package. */
export const RUN_STATUS = named(RUN_STATUSES);

/**
 * The statuses a scenario or a fault may end a run with by failing it (not `succeeded`, and not
 * `human_wait_expired`, which only an expired checkpoint produces).
 */
export const FAIL_STATUSES = ["failed", "error", "cancelled", "terminated", "dead_letter"] as const;
export type FailStatus = (typeof FAIL_STATUSES)[number];

export const isKnownStatus = memberOf(RUN_STATUSES);
export const isTerminalStatus = memberOf(TERMINAL_STATUSES);
export const isUnsuccessfulTerminalStatus = memberOf(UNSUCCESSFUL_TERMINAL_STATUSES);
export const isActiveStatus = memberOf(ACTIVE_STATUSES);
export const isHumanWaitStatus = memberOf(HUMAN_WAIT_STATUSES);
export const isFailStatus = memberOf(FAIL_STATUSES);
