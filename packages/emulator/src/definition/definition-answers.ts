// What each operation of the definition can answer: every error code this emulator sends on it
// (from the vocabulary in @wfr/protocol, with its HTTP status from API_ERROR_STATUS), and the
// headers that go with them. The emitted responses are derived from this table, so the
// definition declares exactly what the handlers answer; test/conformance/definition-answers
// drives the traffic through Prism to keep the two from drifting.
import { API_ERROR_STATUS, type ApiErrorCode, CODE } from "@wfr/protocol";
import type { JsonSchema } from "../model/types.js";

export const OPERATIONS = [
  "launch",
  "getRun",
  "getRunResult",
  "getRunEvents",
  "getRunRecording",
  "answerHumanInput",
] as const;
export type OperationKind = (typeof OPERATIONS)[number];

/**
 * Answered on every operation of the public API before its handler runs: the key in a URL
 * (checked on every request), authentication, scope, and an internal failure.
 */
const EVERY_OPERATION = [
  CODE.API_KEY_IN_QUERY,
  CODE.UNAUTHENTICATED,
  CODE.INSUFFICIENT_SCOPE,
  CODE.INTERNAL,
] as const satisfies readonly ApiErrorCode[];

/**
 * The scope each operation requires (docs/service-rules.md#authentication), named in the
 * operation's security requirement; the API's routes require the same (a test compares them).
 */
export const OPERATION_SCOPE = {
  launch: "workflows:run",
  getRun: "runs:read",
  getRunResult: "runs:read",
  getRunEvents: "runs:read",
  getRunRecording: "runs:read",
  answerHumanInput: "workflows:run",
} as const satisfies Record<OperationKind, string>;

/**
 * Answers any operation can get whatever its handler does: a rate limit (the service names
 * "generic rate limiting" without its codes) and an unavailable service (a gateway, a deploy;
 * the emulator's API faults answer both on any route). Their codes are not all known, so
 * `code` stays open; `Retry-After` says when to try again (always on 429, when known on 503).
 */
const ANY_OPERATION_STATUSES = [429, 503] as const;

/** Every code each operation can answer, in the order the handler checks them. */
export const OPERATION_ERRORS: Record<OperationKind, readonly ApiErrorCode[]> = {
  launch: [
    ...EVERY_OPERATION,
    CODE.BODY_TOO_LARGE,
    CODE.WORKFLOW_NOT_FOUND,
    CODE.INVALID_JSON,
    CODE.INVALID_BODY,
    CODE.RUN_OVERRIDE_NOT_ALLOWED,
    CODE.INVALID_IDEMPOTENCY_KEY,
    CODE.IDEMPOTENCY_CONFLICT,
    CODE.WORKFLOW_NOT_ENABLED,
    CODE.INVALID_METADATA,
    CODE.INVALID_MODEL,
    CODE.INVALID_CALLBACK_URL,
    CODE.INVALID_ATTACHMENTS,
    CODE.ATTACHMENT_TOO_LARGE,
    CODE.INVALID_INPUTS,
  ],
  getRun: [...EVERY_OPERATION, CODE.RUN_NOT_FOUND],
  getRunResult: [...EVERY_OPERATION, CODE.RUN_NOT_FOUND],
  getRunEvents: [...EVERY_OPERATION, CODE.RUN_NOT_FOUND],
  getRunRecording: [
    ...EVERY_OPERATION,
    CODE.RUN_NOT_FOUND,
    CODE.RECORDING_RATE_LIMITED,
    CODE.RECORDING_NOT_FOUND,
    CODE.RECORDING_PROCESSING,
    CODE.RECORDING_TOO_LARGE,
  ],
  answerHumanInput: [
    ...EVERY_OPERATION,
    CODE.BODY_TOO_LARGE,
    CODE.RUN_NOT_FOUND,
    CODE.INVALID_JSON,
    CODE.INVALID_BODY,
    CODE.HUMAN_WAIT_CONFLICT,
    CODE.NOT_WAITING_FOR_HUMAN,
    CODE.HUMAN_WAIT_EXPIRED,
  ],
};

const json = (schema: JsonSchema) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The success answers of each operation (error-shaped answers such as a 202 RECORDING_PROCESSING are codes above). */
const SUCCESS: Record<OperationKind, Record<string, JsonSchema>> = {
  launch: {
    "202": { description: "Accepted for execution", content: json(ref("RunEnvelope")) },
  },
  getRun: { "200": { description: "Run envelope", content: json(ref("RunEnvelope")) } },
  getRunResult: {
    "200": { description: "Terminal run", content: json(ref("ResultResponse")) },
    "202": { description: "Run not terminal", content: json(ref("ResultResponse")) },
  },
  getRunEvents: {
    "200": {
      description: "Event snapshot",
      content: json({ type: "object", additionalProperties: true }),
    },
  },
  getRunRecording: {
    "200": {
      description: "MP4",
      // OpenAPI 3.1: a binary body is a string with its media type (3.0's `format: binary`).
      content: { "video/mp4": { schema: { type: "string", contentMediaType: "video/mp4" } } },
    },
  },
  answerHumanInput: { "202": { description: "Run envelope", content: json(ref("RunEnvelope")) } },
};

/** Response headers, as components: every answer carries X-Request-Id. */
export const RESPONSE_HEADERS = {
  RequestId: {
    description: "Identifies this request; quote it in support requests.",
    required: true,
    schema: { type: "string" },
  },
  RetryAfter: {
    description: "Seconds to wait before trying the same request again.",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  RetryAfterWhenKnown: {
    description: "Seconds to wait before trying again, when the service knows.",
    required: false,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  ShouldRetry: {
    description: "false: repeating the request unchanged gives the same answer.",
    required: true,
    schema: { type: "string", enum: ["false"] },
  },
  WwwAuthenticate: {
    description: "The bearer challenge.",
    required: true,
    schema: { type: "string" },
  },
} as const;

const header = (name: keyof typeof RESPONSE_HEADERS) => ({
  $ref: `#/components/headers/${name}`,
});

/** The headers an answer with these codes carries, besides X-Request-Id. */
function headersFor(status: number, codes: readonly ApiErrorCode[]) {
  const out: Record<string, unknown> = { "X-Request-Id": header("RequestId") };
  if (
    status === 429 ||
    codes.includes(CODE.RECORDING_PROCESSING) ||
    codes.includes(CODE.RECORDING_RATE_LIMITED)
  )
    out["Retry-After"] = header("RetryAfter");
  else if (status === 503) out["Retry-After"] = header("RetryAfterWhenKnown");
  if (status === 409) out["X-Should-Retry"] = header("ShouldRetry");
  if (status === 401) out["WWW-Authenticate"] = header("WwwAuthenticate");
  return out;
}

/** The `responses` object of one operation: success answers, then one per error status. */
export function operationResponses(kind: OperationKind): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(SUCCESS[kind])) {
    out[status] = { ...structuredClone(response), headers: headersFor(Number(status), []) };
  }
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of OPERATION_ERRORS[kind]) {
    const status = API_ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const status of ANY_OPERATION_STATUSES) if (!byStatus.has(status)) byStatus.set(status, []);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const open = (ANY_OPERATION_STATUSES as readonly number[]).includes(status);
    out[String(status)] = {
      description: open
        ? [
            status === 429 ? "Rate limited" : "Service unavailable",
            ...codes,
            "or another code",
          ].join(", ")
        : codes.join(", "),
      headers: headersFor(status, codes),
      // A status whose codes are all known closes `code` to them; 429 and 503 cannot.
      content: json(
        open
          ? ref("Error")
          : {
              allOf: [
                ref("Error"),
                {
                  type: "object",
                  additionalProperties: true,
                  properties: { code: { enum: codes } },
                },
              ],
            },
      ),
    };
  }
  return out;
}
