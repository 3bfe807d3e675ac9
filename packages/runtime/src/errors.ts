// One base class for everything the runtime throws, a subclass per code in
// docs/service-rules.md#errors, and one pure function that maps an HTTP response
// to the right class. Messages are redacted when the error is built.

import { type ApiErrorCode, CODE, isApiErrorCode } from "@wfr/protocol";
import { redact, redactValue } from "./redact.js";
import { parseRetryAfterSeconds } from "./retry-after.js";
import type { ErrorDetail } from "./wire-types.js";
import type { InputIssue, OutputIssue } from "./workflow-definition.js";

export interface WorkflowRunApiErrorOptions {
  /** HTTP status, or null when the error was found locally before anything was sent. */
  readonly status: number | null;
  readonly code: string;
  readonly message: string;
  readonly details?: readonly ErrorDetail[] | readonly InputIssue[] | undefined;
  readonly idempotencyKey?: string | undefined;
  readonly requestId?: string | undefined;
  readonly attachmentId?: string | undefined;
  readonly retryAfterSeconds?: number | undefined;
  readonly body?: unknown;
  readonly cause?: unknown;
  /** Strings (the API key) removed from message, body and cause. */
  readonly secrets?: readonly string[];
}

/** Base class of every error the runtime throws. Unknown server codes stay as they are on `code`. */
export class WorkflowRunApiError extends Error {
  override name = "WorkflowRunApiError";
  /** HTTP status; null when found locally, before sending. */
  readonly status: number | null;
  /** Machine-readable code: the server's `code`, or a local one. */
  readonly code: string;
  /** Per-field problems (INVALID_INPUTS: field, reason, message). */
  readonly details: readonly (ErrorDetail | InputIssue)[];
  /** The launch's idempotency key: resend with it after a crash to get the same run. */
  idempotencyKey: string | undefined;
  readonly requestId: string | undefined;
  readonly attachmentId: string | undefined;
  /** Seconds the server asked to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;
  /** The parsed error body, redacted. */
  readonly body: unknown;

  constructor(options: WorkflowRunApiErrorOptions) {
    const secrets = options.secrets ?? [];
    super(
      redact(options.message, secrets),
      options.cause === undefined ? undefined : { cause: redactValue(options.cause, secrets) },
    );
    this.status = options.status;
    this.code = options.code;
    this.details = (redactValue(options.details ?? [], secrets) as ErrorDetail[]) ?? [];
    this.idempotencyKey = options.idempotencyKey;
    this.requestId = options.requestId;
    this.attachmentId = options.attachmentId;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.body = redactValue(options.body, secrets);
  }
}

type Options = WorkflowRunApiErrorOptions;

// Classes by HTTP status, so `catch` can branch on the status family; the
// classes by code below extend them (a RunNotFoundError is a NotFoundError).
export class BadRequestError extends WorkflowRunApiError {
  override name = "BadRequestError";
}
export class AuthenticationError extends WorkflowRunApiError {
  override name = "AuthenticationError";
}
export class BillingError extends WorkflowRunApiError {
  override name = "BillingError";
}
export class PermissionDeniedError extends WorkflowRunApiError {
  override name = "PermissionDeniedError";
}
export class NotFoundError extends WorkflowRunApiError {
  override name = "NotFoundError";
}
export class ConflictError extends WorkflowRunApiError {
  override name = "ConflictError";
}
export class GoneError extends WorkflowRunApiError {
  override name = "GoneError";
}
export class PayloadTooLargeError extends WorkflowRunApiError {
  override name = "PayloadTooLargeError";
}
export class UnprocessableEntityError extends WorkflowRunApiError {
  override name = "UnprocessableEntityError";
}
/** 429 on any route (the recording's hourly limit is the subclass RecordingRateLimitedError). */
export class RateLimitError extends WorkflowRunApiError {
  override name = "RateLimitError";
}
/** A 5xx still there after the retries. */
export class InternalServerError extends WorkflowRunApiError {
  override name = "InternalServerError";
}

// 400s (spec, Errors table)
export class InvalidInputsError extends BadRequestError {
  override name = "InvalidInputsError";
}
/** Local input validation failed before sending; `details` reads like the server's INVALID_INPUTS. */
export class InputValidationError extends InvalidInputsError {
  override name = "InputValidationError";
  constructor(issues: readonly InputIssue[], workflowId: string) {
    const list = issues.map((issue) => `${issue.field} (${issue.reason})`).join(", ");
    super({
      status: null,
      code: CODE.INVALID_INPUTS,
      message: `Inputs for workflow ${workflowId} failed validation: ${list}`,
      details: issues,
    });
  }
}
export class InvalidMetadataError extends BadRequestError {
  override name = "InvalidMetadataError";
}
export class InvalidAttachmentsError extends BadRequestError {
  override name = "InvalidAttachmentsError";
}
export class InvalidJsonError extends BadRequestError {
  override name = "InvalidJsonError";
}
// 404s
export class RouteNotFoundError extends NotFoundError {
  override name = "RouteNotFoundError";
}
export class WorkflowNotFoundError extends NotFoundError {
  override name = "WorkflowNotFoundError";
}
export class RunNotFoundError extends NotFoundError {
  override name = "RunNotFoundError";
}
export class RecordingNotFoundError extends NotFoundError {
  override name = "RecordingNotFoundError";
}
/** 202 RECORDING_PROCESSING that outlasted the bounded attempts. */
export class RecordingProcessingError extends WorkflowRunApiError {
  override name = "RecordingProcessingError";
}
// 409s: all final, never retried
export class IdempotencyConflictError extends ConflictError {
  override name = "IdempotencyConflictError";
}
export class HumanWaitConflictError extends ConflictError {
  override name = "HumanWaitConflictError";
}
export class NotWaitingForHumanError extends ConflictError {
  override name = "NotWaitingForHumanError";
}
// 410
export class HumanWaitExpiredError extends GoneError {
  override name = "HumanWaitExpiredError";
}
// 413s
/** One attachment over 26,214,400 decoded bytes, found locally (status null) or by the server. */
export class AttachmentTooLargeError extends PayloadTooLargeError {
  override name = "AttachmentTooLargeError";
  /** The input field holding the attachment, when found locally. */
  readonly field: string | undefined;
  constructor(options: Options & { readonly field?: string }) {
    super(options);
    this.field = options.field;
  }
}
/** The whole launch body over 37,748,736 bytes, found locally (status null) or by the server. */
export class BodyTooLargeError extends PayloadTooLargeError {
  override name = "BodyTooLargeError";
}
export class RecordingTooLargeError extends PayloadTooLargeError {
  override name = "RecordingTooLargeError";
}
// 429
/** RECORDING_RATE_LIMITED: hourly limit, so not slept through; see `retryAfterSeconds`. */
export class RecordingRateLimitedError extends RateLimitError {
  override name = "RecordingRateLimitedError";
}
/** @deprecated use PermissionDeniedError (same class). */
export const PermissionError = PermissionDeniedError;
// Local errors
/**
 * A draft or disabled workflow (docs/service-rules.md#launchable-workflows: "Only an enabled workflow can be launched"): found locally
 * from the definition (status null) or answered by the server (409 WORKFLOW_NOT_ENABLED). One
 * code either way, as INVALID_INPUTS is one code whoever finds it.
 */
export class WorkflowNotEnabledError extends ConflictError {
  override name = "WorkflowNotEnabledError";
}
/** @deprecated use WorkflowNotEnabledError (same class); its code is WORKFLOW_NOT_ENABLED. */
export const WorkflowNotLaunchableError = WorkflowNotEnabledError;
export type WorkflowNotLaunchableError = WorkflowNotEnabledError;
/** A launch or client option is invalid (callback URL, idempotency key, base URL, API key). */
export class InvalidOptionError extends WorkflowRunApiError {
  override name = "InvalidOptionError";
}
/** A succeeded result's outputs do not match the workflow's output schema. */
export class OutputValidationError extends WorkflowRunApiError {
  override name = "OutputValidationError";
  readonly issues: readonly OutputIssue[];
  constructor(issues: readonly OutputIssue[], runId: string) {
    const list = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
    super({
      status: 200,
      code: CODE.INVALID_OUTPUTS,
      message: `Outputs of run ${runId} do not match the schema: ${list}`,
    });
    this.issues = issues;
  }
}
/** The server answered with something that is not the API's JSON (for example a proxy's HTML page). */
export class InvalidResponseError extends WorkflowRunApiError {
  override name = "InvalidResponseError";
}
/** The request never got an HTTP answer (connection failure), after all retries. */
export class NetworkError extends WorkflowRunApiError {
  override name = "NetworkError";
}
/** Same class as NetworkError, under the name other SDKs use. */
export const ConnectionError = NetworkError;
/** An attempt exceeded `timeoutMs` (headers or body), after all retries. */
export class RequestTimeoutError extends NetworkError {
  override name = "RequestTimeoutError";
}
/** Same class as RequestTimeoutError. */
export const TimeoutError = RequestTimeoutError;
/** The caller's signal aborted the call. For a launch, the server may already have it: relaunch with `idempotencyKey`. */
export class RequestAbortedError extends WorkflowRunApiError {
  override name = "RequestAbortedError";
}

type ErrorClass = new (options: Options) => WorkflowRunApiError;

/**
 * Every code the API answers, and the class it becomes: a Record over the closed union, so a
 * code added to the vocabulary does not compile until it is given a class here.
 */
const CLASS_BY_CODE: Readonly<Record<ApiErrorCode, ErrorClass>> = {
  INVALID_INPUTS: InvalidInputsError,
  INVALID_METADATA: InvalidMetadataError,
  INVALID_ATTACHMENTS: InvalidAttachmentsError,
  INVALID_JSON: InvalidJsonError,
  NOT_FOUND: RouteNotFoundError,
  WORKFLOW_NOT_FOUND: WorkflowNotFoundError,
  RUN_NOT_FOUND: RunNotFoundError,
  RECORDING_NOT_FOUND: RecordingNotFoundError,
  RECORDING_PROCESSING: RecordingProcessingError,
  IDEMPOTENCY_CONFLICT: IdempotencyConflictError,
  HUMAN_WAIT_CONFLICT: HumanWaitConflictError,
  NOT_WAITING_FOR_HUMAN: NotWaitingForHumanError,
  HUMAN_WAIT_EXPIRED: HumanWaitExpiredError,
  ATTACHMENT_TOO_LARGE: AttachmentTooLargeError,
  BODY_TOO_LARGE: BodyTooLargeError,
  RECORDING_TOO_LARGE: RecordingTooLargeError,
  RECORDING_RATE_LIMITED: RecordingRateLimitedError,
  UNAUTHENTICATED: AuthenticationError,
  INSUFFICIENT_SCOPE: PermissionDeniedError,
  API_KEY_IN_QUERY: BadRequestError,
  WORKFLOW_NOT_ENABLED: WorkflowNotEnabledError,
  INVALID_BODY: BadRequestError,
  RUN_OVERRIDE_NOT_ALLOWED: BadRequestError,
  INVALID_IDEMPOTENCY_KEY: BadRequestError,
  INVALID_MODEL: BadRequestError,
  INVALID_CALLBACK_URL: BadRequestError,
  INVALID_GRANT: BadRequestError,
  SESSION_NOT_STARTED: ConflictError,
  GRANT_NOT_FOUND: NotFoundError,
  INTERNAL: InternalServerError,
};

const CLASS_BY_STATUS: Readonly<Record<number, ErrorClass>> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: BillingError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

function classByStatus(status: number): ErrorClass | undefined {
  return CLASS_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : undefined);
}

interface ErrorContext {
  readonly idempotencyKey?: string | undefined;
  readonly secrets?: readonly string[];
  readonly nowMs?: number;
}

function readString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Maps a non-success HTTP response to its error class: by the body's `code`
 * first (docs/service-rules.md#errors), then by status for the conditions whose
 * codes the spec does not show (401, 402, 403, generic 429). Unknown codes
 * stay as they are on a plain `WorkflowRunApiError`.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
  context: ErrorContext = {},
): WorkflowRunApiError {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const code = readString(record.code) ?? CODE.HTTP_ERROR;
  const serverMessage =
    readString(record.error) ?? (typeof body === "string" ? body.slice(0, 500) : "");
  const ErrorType =
    (isApiErrorCode(code) ? CLASS_BY_CODE[code] : undefined) ??
    classByStatus(status) ??
    WorkflowRunApiError;
  const details = Array.isArray(record.details) ? (record.details as ErrorDetail[]) : undefined;
  return new ErrorType({
    status,
    code,
    message: `HTTP ${status} ${code}${serverMessage ? `: ${serverMessage}` : ""}`,
    details,
    idempotencyKey: context.idempotencyKey,
    requestId: headers.get("x-request-id") ?? undefined,
    attachmentId: readString(record.attachment_id),
    retryAfterSeconds: parseRetryAfterSeconds(headers.get("retry-after"), context.nowMs),
    body,
    secrets: context.secrets ?? [],
  });
}
