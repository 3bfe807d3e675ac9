// What an agent should do after each error a tool can see: one sentence per code of the
// vocabulary, so that an agent retries only what is safe to retry and hands the rest to a person.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ClientErrorCode, isClientErrorCode } from "@wfr/protocol";
import { BackendError } from "../backend.js";

const FIX_AND_RELAUNCH =
  "Fix the request (see get_workflow_schema) and launch again with the same idempotency_key.";
const POLL_LATER = "Keep polling the run with get_run; do not launch again to force progress.";
const RETRY_LATER =
  "Try again later with the same idempotency_key; the service may already have the run.";
const ASK_A_PERSON = "A person has to act on this in the web application; tell them the run id.";

/**
 * Every code a tool can see -> what the agent should do next; null: the generic advice. A
 * Record over the vocabulary, so a new code needs a decision here to compile.
 */
const NEXT_STEP: Record<ClientErrorCode, string | null> = {
  IDEMPOTENCY_CONFLICT:
    "This key was used for a different request: use a new idempotency_key for new work, or resend the identical request.",
  INVALID_INPUTS:
    "Fix the listed fields (see get_workflow_schema) and launch again with the same idempotency_key.",
  INVALID_METADATA: "metadata must be a JSON object; fix it and launch again.",
  INVALID_ATTACHMENTS: FIX_AND_RELAUNCH,
  INVALID_JSON: FIX_AND_RELAUNCH,
  INVALID_BODY: FIX_AND_RELAUNCH,
  RUN_OVERRIDE_NOT_ALLOWED:
    "Browser and proxy settings come from the saved workflow; remove them from the request.",
  INVALID_IDEMPOTENCY_KEY: "Use an idempotency_key of 1 to 200 characters.",
  INVALID_MODEL: "Use a model the workflow's schema allows (get_workflow_schema), or none.",
  MODEL_NOT_EXPOSED: "This environment does not expose model for this workflow; leave it out.",
  MODEL_NOT_ALLOWED: "Use a model the workflow's schema allows (get_workflow_schema), or none.",
  INVALID_CALLBACK_URL: "A callback_url must be a public HTTPS URL; leave it out to poll instead.",
  NOT_FOUND: null,
  WORKFLOW_NOT_FOUND: "Check the id with list_workflows.",
  WORKFLOW_NOT_ENABLED:
    "Only enabled workflows can be launched; a person enables a draft in the web application.",
  RUN_NOT_FOUND: "Check the run id; runs of other workspaces are not visible.",
  RECORDING_NOT_FOUND: "This run has no recording (none yet, or a computer session).",
  RECORDING_PROCESSING: "The recording is being assembled; ask again in a few seconds.",
  RECORDING_TOO_LARGE: "The recording is over 128 MiB; open it in the web application.",
  RECORDING_RATE_LIMITED: "The hourly recording limit is reached; try again after Retry-After.",
  HUMAN_WAIT_CONFLICT: ASK_A_PERSON,
  NOT_WAITING_FOR_HUMAN: POLL_LATER,
  HUMAN_WAIT_EXPIRED: "The human wait expired and the run ended; launch again if still wanted.",
  ATTACHMENT_TOO_LARGE: "Each file must be at most 25 MiB; send a smaller file.",
  BODY_TOO_LARGE: "The whole request must be at most 36 MiB; send fewer or smaller files.",
  UNAUTHENTICATED: "The token is missing or wrong.",
  INSUFFICIENT_SCOPE: "The token lacks the scope this needs.",
  API_KEY_IN_QUERY: "Send the key only in the Authorization header, never in the URL.",
  INVALID_API_KEY: "The token is missing or wrong.",
  INVALID_BASE_URL: "The configured base URL is invalid; a person fixes the configuration.",
  INVALID_GRANT: null,
  SESSION_NOT_STARTED: POLL_LATER,
  GRANT_NOT_FOUND: null,
  INTERNAL: RETRY_LATER,
  INVALID_CHECKPOINT_ID: ASK_A_PERSON,
  INVALID_OUTPUTS: "The run's outputs do not match the workflow's schema; tell a person.",
  INVALID_RESPONSE: RETRY_LATER,
  NETWORK_ERROR: RETRY_LATER,
  TIMEOUT: RETRY_LATER,
  ABORTED: RETRY_LATER,
  WAIT_TIMEOUT: POLL_LATER,
  UNEXPECTED: null,
  LAUNCH_INTENT_CONFLICT:
    "This key was used for a different request: use a new idempotency_key for new work.",
  LAUNCH_JOURNAL_INVARIANT: null,
  FILE_OUTPUT_DOWNLOAD_FAILED: "Use the download link from the result again, or tell a person.",
  FILE_OUTPUT_DOWNLOAD_REFUSED:
    "The file's link points outside the environment and its storage origins: do not fetch it; tell a person.",
  DEFINITION_INVALID: "The environment's definition cannot be read; a person pulls it again.",
  REQUEST_FAILED: RETRY_LATER,
  HTTP_ERROR: RETRY_LATER,
  GENERATE_FAILED:
    "The committed definitions could not be generated (the message names the file): a person fixes or pulls them again; no generated file was changed.",
  INVALID_ARGUMENTS:
    "Fix the named arguments (see the tool's input schema in tools/list) and call again; nothing was done.",
};

export function toolError(error: unknown): CallToolResult {
  if (error instanceof BackendError) {
    const next =
      (isClientErrorCode(error.code) ? NEXT_STEP[error.code] : null) ??
      "See the message; nothing was changed by this call unless it says so.";
    return {
      isError: true,
      content: [{ type: "text", text: `${error.code}: ${error.message}\nNext: ${next}` }],
    };
  }
  // Never a stack: a short message only.
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: "text", text: `INTERNAL_ERROR: ${message.split("\n")[0]}` }],
  };
}
