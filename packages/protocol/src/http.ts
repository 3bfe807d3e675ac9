// Scopes, limits, header names and definition file names: docs/service-rules.md#authentication,
// docs/service-rules.md#limits, docs/service-rules.md#endpoints.
/** docs/service-rules.md#authentication */
export const SCOPES = ["workflows:run", "runs:read"] as const;
export type Scope = (typeof SCOPES)[number];
export const SCOPE = { run: "workflows:run", read: "runs:read" } as const satisfies Record<
  string,
  Scope
>;

const MIB = 1024 * 1024;

/** docs/service-rules.md#limits (and #events, #callbacks for the delivery rules). */
export const LIMITS = {
  /** One attachment after base64 decoding: 25 MiB. */
  attachmentBytes: 25 * MIB,
  /** The whole launch body, with all encoded attachments: 36 MiB. */
  launchBodyBytes: 36 * MIB,
  /** idempotency_key: 200 characters (Unicode code points). */
  idempotencyKeyCharacters: 200,
  /** A recording above this is refused with RECORDING_TOO_LARGE: 128 MiB. */
  recordingBytes: 128 * MIB,
  /** Recording download attempts per workspace per hour. */
  recordingAttemptsPerHour: 10,
  /** Retry-After (seconds) on 202 RECORDING_PROCESSING. */
  recordingProcessingRetryAfterSeconds: 3,
  /** Callback delivery: attempts and the timeout of each. */
  callbackAttempts: 3,
  callbackAttemptTimeoutMs: 10_000,
} as const;

/** Header names, lower case as HTTP/2 and `Headers` spell them. */
export const HEADER = {
  authorization: "authorization",
  contentType: "content-type",
  idempotencyKey: "idempotency-key",
  retryAfter: "retry-after",
  requestId: "x-request-id",
  shouldRetry: "x-should-retry",
  wwwAuthenticate: "www-authenticate",
} as const;
export type HeaderName = (typeof HEADER)[keyof typeof HEADER];

/** The file names an environment's definition is published and committed under, preferred first. */
export const DEFINITION_FILE = {
  json: "openapi.json",
  yaml: "openapi.yaml",
  yml: "openapi.yml",
} as const;
export const DEFINITION_FILE_NAMES = [
  DEFINITION_FILE.json,
  DEFINITION_FILE.yaml,
  DEFINITION_FILE.yml,
] as const;
export type DefinitionFileName = (typeof DEFINITION_FILE_NAMES)[number];
/** The published path of an environment's definition, under its base without /api/v1. */
export const DEFINITION_PATH_PREFIX = "/api-docs/";

/** The name a definition is saved under, from its text: JSON or YAML. */
export function definitionFileNameFor(text: string): DefinitionFileName {
  return /^\s*[{[]/.test(text) ? DEFINITION_FILE.json : DEFINITION_FILE.yaml;
}
