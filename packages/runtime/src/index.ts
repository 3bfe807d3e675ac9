export type { Clock } from "./backoff.js";
export { abortableSleep, fullJitterDelay, systemClock } from "./backoff.js";
export { base64EncodedLength, encodeBase64 } from "./base64.js";
export type { CallbackEventStore, MemoryEventStoreOptions } from "./callback-event-store.js";
export { createMemoryEventStore } from "./callback-event-store.js";
export type {
  CallbackContext,
  CallbackHandlerOptions,
  ParsedCallback,
} from "./callback-handler.js";
export { createCallbackHandler, parseCallbackBody } from "./callback-handler.js";
export type { CallbackClaim, LeasedCallbackEventStore } from "./callback-lease-store.js";
export type {
  ClientOptions,
  DownloadRecordingOptions,
  EnvironmentInfo,
  HumanInputAnswer,
  LaunchedRun,
  LaunchOptions,
  RecordingDownload,
  UntypedLaunchOptions,
  WorkflowRunClient,
} from "./client.js";
export { createClient, isPlainObject, MAX_IDEMPOTENCY_KEY_LENGTH } from "./client.js";
export * from "./errors.js";
export type { FileData, FileInput, FileOptions } from "./file-input.js";
export { file, isFileInput } from "./file-input.js";
export type { DownloadFileOutputOptions, FileOutputReference } from "./file-output.js";
export { downloadFileOutput, FileOutputDownloadError } from "./file-output.js";
export type { RetryOptions } from "./http-transport.js";
export { DEFAULT_RETRY, RETRYABLE_STATUSES } from "./http-transport.js";
export {
  extractAttachments,
  MAX_ATTACHMENT_BYTES,
  MAX_LAUNCH_BODY_BYTES,
  predictBodyBytes,
  serializeLaunchBody,
} from "./launch-body.js";
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
export { redact, redactError, redactValue } from "./redact.js";
export { parseRetryAfterSeconds } from "./retry-after.js";
export type {
  PendingResult,
  RunResult,
  SucceededResult,
  TerminalResult,
  UnsuccessfulResult,
} from "./run-result.js";
export { toRunResult } from "./run-result.js";
export type {
  ActiveStatus,
  TerminalStatus,
  UnrecognizedStatus,
  UnsuccessfulTerminalStatus,
} from "./run-status.js";
export {
  ACTIVE_STATUSES,
  isKnownStatus,
  isTerminalStatus,
  UNSUCCESSFUL_TERMINAL_STATUSES,
} from "./run-status.js";
export type { UrlCheck } from "./url-checks.js";
export { checkBaseUrl, checkPublicCallbackUrl, isLoopbackHost } from "./url-checks.js";
export type { WaitDependencies, WaitOptions } from "./wait-for-run.js";
export { stopReason, WaitTimeoutError, waitForRunWith } from "./wait-for-run.js";
export type {
  Attachment,
  CallbackBody,
  CallbackEventType,
  ErrorBody,
  ErrorDetail,
  EventSnapshot,
  HumanAction,
  ResultResponse,
  RunEnvelope,
  RunError,
  RunStatus,
} from "./wire-types.js";
export type {
  AnyWorkflowDefinition,
  InputIssue,
  InputIssueReason,
  InputsOf,
  LaunchableWorkflow,
  ModelName,
  OutputIssue,
  OutputsOf,
  SchemaLike,
  WorkflowDefinition,
  WorkflowState,
} from "./workflow-definition.js";
