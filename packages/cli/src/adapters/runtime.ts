// The only module that calls @wfr/runtime. Per-request options are passed as
// objects only (no positional AbortSignals), so the runtime's options change
// (`{ signal, timeoutMs, maxRetries, headers }`) lands here alone.
// Depends on: createClient({baseUrl, apiKey}) -> launch(id, {inputs, metadata,
// model, idempotencyKey, validate}), getRun, getResult, getEvents,
// waitForRun(id, {timeoutMs, onUpdate, keepWaitingOnHuman, signal}),
// answerHumanInput(id, {checkpointId, response}), downloadRecording(id, {maxProcessingAttempts});
// file(bytes, {filename, mimeType}); MAX_ATTACHMENT_BYTES; errors with `code`/`status`.
import { RUN_STATUS } from "@wfr/protocol";
import {
  createClient,
  file,
  isTerminalStatus,
  MAX_ATTACHMENT_BYTES,
  type RunEnvelope,
  WorkflowRunApiError,
} from "@wfr/runtime";
import { CliError } from "../cli-error.js";
import { EXIT, exitCodeForApiError } from "../exit-codes.js";

export type { RunEnvelope };
export { file as fileInput, MAX_ATTACHMENT_BYTES };

export type Client = ReturnType<typeof createClient>;

export function connect(baseUrl: string, apiKey: string): Client {
  return createClient({ baseUrl, apiKey });
}

/** Turns a runtime error into a CliError carrying the mapped exit code (never the key). */
export function toCliError(error: unknown): unknown {
  if (isWaitTimeout(error))
    return new CliError(`timed out waiting: ${(error as Error).message}`, EXIT.TIMEOUT);
  if (error instanceof WorkflowRunApiError) {
    const code = (error as { code?: string }).code;
    const status = (error as { status?: number | null }).status;
    return new CliError(
      apiErrorLine(code, status, error.message, error.details),
      exitCodeForApiError(code, status),
    );
  }
  return error;
}

/**
 * One line for an API error: the code and status once (the runtime's message
 * may already start with them), then every field the error names with its reason.
 */
export function apiErrorLine(
  code: string | undefined,
  status: number | null | undefined,
  message: string,
  details: readonly { field?: string; reason?: string; message?: string }[] = [],
): string {
  const prefix = `${code ?? "ERROR"}${status ? ` (HTTP ${status})` : ""}`;
  const text = message
    .replace(new RegExp(`^HTTP ${status ?? "\\d+"}\\s+`), "")
    .replace(new RegExp(`^${code ?? "ERROR"}:?\\s*`), "");
  const fields = details
    .filter((d) => typeof d.field === "string")
    .map((d) => `${d.field} (${d.reason ?? "invalid"}${d.message ? `: ${d.message}` : ""})`);
  return `${prefix}: ${text}${fields.length > 0 ? `; fields: ${fields.join(", ")}` : ""}`;
}

function isWaitTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "WaitTimeoutError";
}

export { isTerminalStatus } from "@wfr/runtime";

/** Terminal and not "succeeded": a failure status the run ended in. */
export function isUnsuccessfulTerminalStatus(status: string): boolean {
  return isTerminalStatus(status) && status !== RUN_STATUS.succeeded;
}
