// Every error code a wfr package or the service it models can put on the wire or on an error:
// one list per source, so each table mapping codes (error classes, exit codes, next steps, the
// definition's answers) is a Record over exactly the codes it must decide about.
import { memberOf, named } from "./named.js";

/** The service's error codes (docs/service-rules.md#errors), in its order. */
export const SPEC_ERROR_CODES = [
  "INVALID_INPUTS",
  "INVALID_METADATA",
  "INVALID_ATTACHMENTS",
  "INVALID_JSON",
  "NOT_FOUND",
  "WORKFLOW_NOT_FOUND",
  "RUN_NOT_FOUND",
  "RECORDING_NOT_FOUND",
  "RECORDING_PROCESSING",
  "IDEMPOTENCY_CONFLICT",
  "HUMAN_WAIT_CONFLICT",
  "NOT_WAITING_FOR_HUMAN",
  "HUMAN_WAIT_EXPIRED",
  "ATTACHMENT_TOO_LARGE",
  "BODY_TOO_LARGE",
  "RECORDING_TOO_LARGE",
  "RECORDING_RATE_LIMITED",
] as const;

/**
 * Conditions the spec names only as symptoms ("authentication or scope failure, launching a
 * draft or disabled workflow") or not at all, with the codes this project answers for them on
 * the public API (/api/v1). The emulator README explains each.
 */
export const SERVICE_ERROR_CODES = [
  "UNAUTHENTICATED",
  "INSUFFICIENT_SCOPE",
  "API_KEY_IN_QUERY",
  "WORKFLOW_NOT_ENABLED",
  "INVALID_BODY",
  "RUN_OVERRIDE_NOT_ALLOWED",
  "INVALID_IDEMPOTENCY_KEY",
  "INVALID_MODEL",
  "INVALID_CALLBACK_URL",
  "INVALID_GRANT",
  "SESSION_NOT_STARTED",
  "GRANT_NOT_FOUND",
  "INTERNAL",
] as const;

/** Every code the public API (/api/v1) answers. */
export const API_ERROR_CODES = [...SPEC_ERROR_CODES, ...SERVICE_ERROR_CODES] as const;
export type SpecErrorCode = (typeof SPEC_ERROR_CODES)[number];
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The HTTP status each API code is answered with: the one place that pairs them. */
export const API_ERROR_STATUS = {
  INVALID_INPUTS: 400,
  INVALID_METADATA: 400,
  INVALID_ATTACHMENTS: 400,
  INVALID_JSON: 400,
  NOT_FOUND: 404,
  WORKFLOW_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  RECORDING_NOT_FOUND: 404,
  RECORDING_PROCESSING: 202,
  IDEMPOTENCY_CONFLICT: 409,
  HUMAN_WAIT_CONFLICT: 409,
  NOT_WAITING_FOR_HUMAN: 409,
  HUMAN_WAIT_EXPIRED: 410,
  ATTACHMENT_TOO_LARGE: 413,
  BODY_TOO_LARGE: 413,
  RECORDING_TOO_LARGE: 413,
  RECORDING_RATE_LIMITED: 429,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_SCOPE: 403,
  API_KEY_IN_QUERY: 400,
  WORKFLOW_NOT_ENABLED: 409,
  INVALID_BODY: 400,
  RUN_OVERRIDE_NOT_ALLOWED: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  INVALID_MODEL: 400,
  INVALID_CALLBACK_URL: 400,
  INVALID_GRANT: 400,
  SESSION_NOT_STARTED: 409,
  GRANT_NOT_FOUND: 404,
  INTERNAL: 500,
} as const satisfies Record<ApiErrorCode, number>;

/** The browser-facing portal (live view with a grant or a portal session), outside /api/v1. */
export const PORTAL_ERROR_CODES = [
  "PORTAL_SESSION_REQUIRED",
  "BROWSER_GRANT_INVALID",
  "ORIGIN_NOT_PERMITTED",
] as const;
export type PortalErrorCode = (typeof PORTAL_ERROR_CODES)[number];

/** `run.error.code` of a run that ended unsuccessfully (besides HUMAN_WAIT_EXPIRED). */
export const RUN_ERROR_CODES = [
  "HUMAN_WAIT_EXPIRED",
  "CREDENTIAL_NOT_FOUND",
  "EMULATOR_ERROR",
  "INJECTED",
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/**
 * The emulator's own surfaces (admin API, web application, agent endpoint, authoring): not part
 * of the service's public API, but answered in the same `{ error, code }` shape.
 */
export const EMULATOR_ERROR_CODES = [
  "HOST_NOT_ALLOWED",
  "CROSS_SITE_ADMIN_REQUEST",
  "ADMIN_TOKEN_REQUIRED",
  "UNSUPPORTED_MEDIA_TYPE",
  "CROSS_SITE_REQUEST",
  "CSRF_TOKEN_INVALID",
  "METHOD_NOT_ALLOWED",
  "ENVIRONMENT_NOT_FOUND",
  "FAULT_NOT_APPLICABLE",
  "INVALID_FAULT",
  "EVENT_NOT_FOUND",
  "INVALID_ENVIRONMENT",
  "INVALID_SCOPE",
  "KEY_NOT_FOUND",
  "TOKEN_NOT_FOUND",
  "INVALID_STATE",
  "INVALID_WORKFLOW",
  "INVALID_SCENARIO",
  "CLOCK_NOT_VIRTUAL",
  "NO_JOURNAL",
  "AUTHORING_SESSION_NOT_FOUND",
  "AUTHORING_SESSION_EXPIRED",
  "ORIGIN_NOT_ALLOWED",
  "MCP_SESSION_NOT_FOUND",
  "MCP_SESSION_REQUIRED",
  "WORKSPACE_NOT_IN_ENVIRONMENT",
  "DRAFT_TOO_LARGE",
] as const;
export type EmulatorErrorCode = (typeof EMULATOR_ERROR_CODES)[number];

/**
 * Codes the runtime (and the packages built on it) raise themselves, before or without an HTTP
 * answer. Where a local check refuses what the server would refuse, it uses the server's code
 * (INVALID_INPUTS, BODY_TOO_LARGE, WORKFLOW_NOT_ENABLED, ...), so those are not repeated here.
 */
export const LOCAL_ERROR_CODES = [
  "INVALID_API_KEY",
  "INVALID_BASE_URL",
  "INVALID_CHECKPOINT_ID",
  "MODEL_NOT_EXPOSED",
  "MODEL_NOT_ALLOWED",
  "INVALID_OUTPUTS",
  "INVALID_RESPONSE",
  "NETWORK_ERROR",
  "TIMEOUT",
  "ABORTED",
  "WAIT_TIMEOUT",
  "UNEXPECTED",
  "LAUNCH_INTENT_CONFLICT",
  "LAUNCH_JOURNAL_INVARIANT",
  "FILE_OUTPUT_DOWNLOAD_FAILED",
  "FILE_OUTPUT_DOWNLOAD_REFUSED",
  "DEFINITION_INVALID",
  "REQUEST_FAILED",
  "INVALID_ARGUMENTS",
  // A non-success answer that carries no code of its own (a gateway's HTML 502, a proxy's 503):
  // one named code, the answer's status on the error, never a code made up from the status.
  "HTTP_ERROR",
  // `wfr mcp`'s generate tool: the committed definitions could not be turned into code.
  "GENERATE_FAILED",
] as const;
export type LocalErrorCode = (typeof LOCAL_ERROR_CODES)[number];

/** What a wfr client can see on an error: the API's codes and its own. */
export const CLIENT_ERROR_CODES = [...API_ERROR_CODES, ...LOCAL_ERROR_CODES] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/** Every code in this vocabulary, once. */
export const ERROR_CODES = [
  ...new Set([
    ...API_ERROR_CODES,
    ...PORTAL_ERROR_CODES,
    ...RUN_ERROR_CODES,
    ...EMULATOR_ERROR_CODES,
    ...LOCAL_ERROR_CODES,
  ]),
] as ReadonlyArray<
  ApiErrorCode | PortalErrorCode | RunErrorCode | EmulatorErrorCode | LocalErrorCode
>;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** `CODE.RUN_NOT_FOUND`: the one spelling of each code outside this package. */
export const CODE = named([
  ...API_ERROR_CODES,
  ...PORTAL_ERROR_CODES,
  ...RUN_ERROR_CODES,
  ...EMULATOR_ERROR_CODES,
  ...LOCAL_ERROR_CODES,
] as const);

export const isApiErrorCode = memberOf(API_ERROR_CODES);
export const isClientErrorCode = memberOf(CLIENT_ERROR_CODES);
export const isLocalErrorCode = memberOf(LOCAL_ERROR_CODES);

/** Per-field reason codes of INVALID_INPUTS `details` (docs/service-rules.md#errors). */
export const INPUT_REASONS = ["INVALID_TYPE", "REQUIRED", "UNKNOWN_INPUT"] as const;
export type InputReason = (typeof INPUT_REASONS)[number];
export const INPUT_REASON = named(INPUT_REASONS);
