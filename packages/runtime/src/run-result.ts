// docs/service-rules.md#results: the result endpoint answers 202 while the run is
// not terminal and 200 once it is, and "HTTP 200 ... also accompanies
// failed, error, cancelled, terminated, dead_letter and human_wait_expired
// runs". So the result is discriminated on `status`, and only "succeeded"
// carries outputs.
import { RUN_STATUS } from "@wfr/protocol";
import { OutputValidationError } from "./errors.js";
import {
  type ActiveStatus,
  isActiveStatus,
  isTerminalStatus,
  type UnrecognizedStatus,
  type UnsuccessfulTerminalStatus,
} from "./run-status.js";
import type { ResultResponse, RunError } from "./wire-types.js";
import type { AnyWorkflowDefinition } from "./workflow-definition.js";

interface ResultFields {
  readonly run_id: string;
  readonly error: RunError;
  readonly metadata: Record<string, unknown>;
  /** The status string exactly as the server sent it. */
  readonly serverStatus: string;
}

/** HTTP 202: the run is not terminal yet. */
export interface PendingResult extends ResultFields {
  readonly state: "pending";
  readonly status: ActiveStatus | UnrecognizedStatus;
  readonly outputs?: never;
}

/** HTTP 200 with status "succeeded": the only result that carries outputs. */
export interface SucceededResult<Outputs> extends ResultFields {
  readonly state: "terminal";
  readonly status: typeof RUN_STATUS.succeeded;
  readonly outputs: Outputs;
}

/** HTTP 200 with any other terminal status: not business success, whatever the HTTP code says. */
export interface UnsuccessfulResult extends ResultFields {
  readonly state: "terminal";
  readonly status: UnsuccessfulTerminalStatus | UnrecognizedStatus;
  readonly outputs?: never;
}

export type TerminalResult<Outputs> = SucceededResult<Outputs> | UnsuccessfulResult;
export type RunResult<Outputs> = PendingResult | TerminalResult<Outputs>;

/**
 * Turns a result response into the discriminated result. Outputs of a
 * succeeded run are checked with the workflow's `checkOutputs` when one is given.
 */
export function toRunResult<Outputs>(
  httpStatus: number,
  body: ResultResponse,
  runId: string,
  workflow?: AnyWorkflowDefinition,
): RunResult<Outputs> {
  const serverStatus = String(body.status);
  const run_id = body.run_id ?? runId;
  const error = body.error ?? null;
  const metadata = (body.metadata ?? {}) as Record<string, unknown>;
  if (httpStatus === 202) {
    const status = isActiveStatus(serverStatus) ? serverStatus : "unrecognized";
    return { run_id, error, metadata, serverStatus, state: "pending", status };
  }
  if (serverStatus === RUN_STATUS.succeeded) {
    const outputs = body.outputs ?? {};
    const issues = workflow ? workflow.checkOutputs(outputs) : [];
    if (issues.length > 0) throw new OutputValidationError(issues, run_id);
    return {
      run_id,
      error,
      metadata,
      serverStatus,
      state: "terminal",
      status: RUN_STATUS.succeeded,
      outputs: outputs as Outputs,
    };
  }
  const status = isTerminalStatus(serverStatus)
    ? (serverStatus as UnsuccessfulTerminalStatus)
    : "unrecognized";
  return { run_id, error, metadata, serverStatus, state: "terminal", status };
}
