// The public API of @wfr/runtime. Internals (body serialisers, backoff,
// redaction, status helpers used by polling) stay unexported.

// The vocabulary (@wfr/protocol), so callers and generated code name statuses and codes through
// the one package they already depend on.
export {
  ACTIVE_STATUSES,
  API_ERROR_CODES,
  type ApiErrorCode,
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  CODE,
  HUMAN_WAIT_STATUSES,
  INPUT_REASON,
  INPUT_REASONS,
  type InputReason,
  LOCAL_ERROR_CODES,
  type LocalErrorCode,
  RUN_STATUS,
  RUN_STATUSES,
  TERMINAL_STATUSES,
  UNSUCCESSFUL_TERMINAL_STATUSES,
} from "@wfr/protocol";
export type { Clock, SleepOptions } from "./backoff.js";
export type { CompletionOutcome } from "./callback-completion.js";
export type {
  CallbackEventStore,
  ClaimResult,
  CompletedWithin,
  MemoryEventStoreOptions,
  TransactionalCallbackEventStore,
} from "./callback-event-store.js";
export { createMemoryEventStore } from "./callback-event-store.js";
export type {
  CallbackContext,
  CallbackHandler,
  CallbackHandlerOptions,
  ParsedCallback,
  TransactionalCallbackContext,
  TransactionalCallbackHandlerOptions,
} from "./callback-handler.js";
export { createCallbackHandler, parseCallbackBody } from "./callback-handler.js";
export type {
  BrowserAccessGrantOptions,
  ClientOptions,
  DownloadRecordingOptions,
  EnvironmentInfo,
  GetResult,
  HumanInputAnswer,
  LaunchedRun,
  LaunchOptions,
  RecordingDownload,
  UntypedLaunchOptions,
  WithRequestId,
  WithResponse,
  WithResponseMethods,
} from "./client.js";
export {
  ApiCall,
  createClient,
  DEFAULT_RECORDING_ATTEMPTS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  RUNTIME_VERSION,
  WorkflowRunClient,
} from "./client.js";
export type { DownloadPolicy } from "./download-policy.js";
export { FileOutputDownloadRefusedError } from "./download-policy.js";
// Every error class (by HTTP status and by code); errorFromResponse stays internal.
export type { WorkflowRunApiErrorOptions } from "./errors.js";
export {
  AttachmentTooLargeError,
  AuthenticationError,
  BadRequestError,
  BillingError,
  BodyTooLargeError,
  ConflictError,
  ConnectionError,
  GoneError,
  HumanWaitConflictError,
  HumanWaitExpiredError,
  IdempotencyConflictError,
  InputValidationError,
  InternalServerError,
  InvalidAttachmentsError,
  InvalidInputsError,
  InvalidJsonError,
  InvalidMetadataError,
  InvalidOptionError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  NotWaitingForHumanError,
  OutputValidationError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PermissionError,
  RateLimitError,
  RecordingNotFoundError,
  RecordingProcessingError,
  RecordingRateLimitedError,
  RecordingTooLargeError,
  RequestAbortedError,
  RequestTimeoutError,
  RouteNotFoundError,
  RunNotFoundError,
  TimeoutError,
  UnprocessableEntityError,
  WorkflowNotEnabledError,
  WorkflowNotFoundError,
  WorkflowNotLaunchableError,
  WorkflowRunApiError,
} from "./errors.js";
export type { FileData, FileInput, FileOptions } from "./file-input.js";
export { file, isFileInput } from "./file-input.js";
export type { DownloadFileOutputOptions, FileOutputReference } from "./file-output.js";
export { downloadFileOutput, FileOutputDownloadError } from "./file-output.js";
export type { RequestOptions } from "./http-transport.js";
export { MAX_ATTACHMENT_BYTES, MAX_LAUNCH_BODY_BYTES } from "./launch-body.js";
export type {
  LaunchIntent,
  LaunchIntentState,
  LaunchJournal,
  ListUnacknowledgedOptions,
  NewLaunchIntent,
} from "./launch-journal.js";
export {
  createMemoryLaunchJournal,
  fingerprintBody,
  LaunchJournalInvariantError,
} from "./launch-journal.js";
export type {
  JournaledLaunchSteps,
  LaunchIntentOptions,
  LaunchRequestParts,
} from "./launch-with-journal.js";
export {
  fingerprintLaunchRequest,
  idempotencyKeyForIntent,
  LaunchIntentConflictError,
  launchWithJournal,
} from "./launch-with-journal.js";
export type { Logger, LogLevel, LogRecord } from "./logger.js";
export type { RetryOptions } from "./retry-rules.js";
export { DEFAULT_RETRY, RETRYABLE_STATUSES } from "./retry-rules.js";
export type {
  PendingResult,
  RunResult,
  SucceededResult,
  TerminalResult,
  UnsuccessfulResult,
} from "./run-result.js";
export type {
  ActiveStatus,
  RunStatus,
  TerminalStatus,
  UnrecognizedStatus,
  UnsuccessfulTerminalStatus,
} from "./run-status.js";
export { isTerminalStatus } from "./run-status.js";
export type { CallSpan, SpanAttributes, SpanKind, Tracing } from "./tracing.js";
export type { UrlCheck } from "./url-checks.js";
export { checkPublicCallbackUrl } from "./url-checks.js";
export type { WaitOptions } from "./wait-for-run.js";
export { WaitTimeoutError } from "./wait-for-run.js";
export type { RunChange, RunEvent, WatchRunOptions } from "./watch-run.js";
export type {
  StandardWebhookHeaders,
  VerifyStandardWebhookOptions,
  WebhookVerification,
} from "./webhook-signature.js";
export { verifyStandardWebhook } from "./webhook-signature.js";
export type {
  Attachment,
  BrowserAccessGrant,
  BrowserAccessGrantWithToken,
  CallbackBody,
  CallbackEventType,
  ErrorBody,
  ErrorDetail,
  EventSnapshot,
  HumanAction,
  ResultResponse,
  RunEnvelope,
  RunError,
  WireRunEnvelope,
} from "./wire-types.js";
export type {
  AnyWorkflowDefinition,
  InputIssue,
  InputIssueReason,
  InputsOf,
  LaunchableWorkflow,
  ModelName,
  ModelOf,
  OutputIssue,
  OutputsOf,
  SchemaLike,
  WorkflowDefinition,
  WorkflowState,
} from "./workflow-definition.js";
