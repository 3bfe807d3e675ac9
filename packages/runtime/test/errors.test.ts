// The README's promise: everything the runtime throws is a WorkflowRunApiError carrying a code.
// Checked over the package's real exports, so a new exported error class that forgets the base
// fails here, and over the generated builders' errors, which extend the runtime's. Then the
// mapping of every API answer to its class (src/errors.ts, errorFromResponse).
import { isClientErrorCode } from "@wfr/protocol";
import { describe, expect, it } from "vitest";
import { errorFromResponse } from "../src/errors.js";
import * as runtime from "../src/index.js";
import {
  AttachmentTooLargeError,
  AuthenticationError,
  BillingError,
  BodyTooLargeError,
  ConflictError,
  HumanWaitConflictError,
  IdempotencyConflictError,
  InvalidAttachmentsError,
  InvalidInputsError,
  InvalidJsonError,
  InvalidMetadataError,
  PermissionError,
  RateLimitError,
  RecordingRateLimitedError,
  RouteNotFoundError,
  WorkflowNotEnabledError,
  WorkflowNotFoundError,
  WorkflowRunApiError,
} from "../src/index.js";
import * as node from "../src/node.js";

const exportedErrorClasses = (module: Record<string, unknown>) =>
  Object.entries(module).filter(
    (entry): entry is [string, new (...args: never[]) => Error] =>
      typeof entry[1] === "function" && entry[1].prototype instanceof Error,
  );

describe("one error hierarchy", () => {
  it("every error class the runtime exports extends WorkflowRunApiError", () => {
    const classes = [...exportedErrorClasses(runtime), ...exportedErrorClasses(node)];
    expect(classes.length).toBeGreaterThan(30);
    const outside = classes
      .filter(([, type]) => !(type.prototype instanceof runtime.WorkflowRunApiError))
      .map(([name]) => name)
      .filter((name) => name !== "WorkflowRunApiError");
    expect(outside).toEqual([]);
  });

  it("the errors that used to stand outside carry the base and a code of the vocabulary", () => {
    const conflict = new runtime.LaunchIntentConflictError("intent-1", "key-1");
    const invariant = runtime.LaunchJournalInvariantError.unknownIntent("intent-2");
    const download = new runtime.FileOutputDownloadError(403, "a.pdf");
    for (const error of [conflict, invariant, download]) {
      expect(error).toBeInstanceOf(runtime.WorkflowRunApiError);
      expect(runtime.LOCAL_ERROR_CODES).toContain(error.code);
    }
    expect(conflict.idempotencyKey).toBe("key-1");
    expect(conflict.status).toBeNull();
    expect(download.status).toBe(403);
  });
});

describe("errorFromResponse", () => {
  const headers = (init: Record<string, string> = {}) => new Headers(init);
  it("a gateway's answer without a code (an HTML 502) gets the one named code HTTP_ERROR, a member of @wfr/protocol, with its status", () => {
    const html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    for (const [status, body] of [
      [502, html],
      [503, ""],
      [500, { error: "no code here" }],
    ] as const) {
      const error = errorFromResponse(status, body, headers({ "content-type": "text/html" }));
      expect(error.code).toBe("HTTP_ERROR");
      expect(error.status).toBe(status);
      expect(isClientErrorCode(error.code)).toBe(true);
      expect(error.message).toContain(`HTTP ${status}`);
    }
  });
  it("maps every code in docs/service-rules.md#errors, plus 401/402/403/429, and keeps unknown codes as-is", () => {
    const cases: [number, string, unknown][] = [
      [400, "INVALID_INPUTS", InvalidInputsError],
      [400, "INVALID_METADATA", InvalidMetadataError],
      [400, "INVALID_ATTACHMENTS", InvalidAttachmentsError],
      [400, "INVALID_JSON", InvalidJsonError],
      [404, "NOT_FOUND", RouteNotFoundError],
      [404, "WORKFLOW_NOT_FOUND", WorkflowNotFoundError],
      [409, "IDEMPOTENCY_CONFLICT", IdempotencyConflictError],
      [409, "HUMAN_WAIT_CONFLICT", HumanWaitConflictError],
      [413, "ATTACHMENT_TOO_LARGE", AttachmentTooLargeError],
      [413, "BODY_TOO_LARGE", BodyTooLargeError],
      [429, "RECORDING_RATE_LIMITED", RecordingRateLimitedError],
      [401, "WHATEVER", AuthenticationError],
      [402, "NO_CREDITS", BillingError],
      [403, "SCOPE", PermissionError],
      [429, "SLOW_DOWN", RateLimitError],
    ];
    for (const [status, code, type] of cases) {
      const error = errorFromResponse(status, { error: "m", code }, headers());
      expect(error, code).toBeInstanceOf(type as typeof WorkflowRunApiError);
      expect(error.code).toBe(code);
      expect(error.status).toBe(status);
    }
    const unknown = errorFromResponse(
      418,
      { error: "teapot", code: "TEAPOT" },
      headers({ "x-request-id": "req_9" }),
    );
    expect(unknown.constructor).toBe(WorkflowRunApiError);
    expect(unknown).toMatchObject({ code: "TEAPOT", requestId: "req_9" });
  });

  it("For input validation, details lists the affected fields with per-field reason codes; ATTACHMENT_TOO_LARGE body includes attachment_id", () => {
    const invalid = errorFromResponse(
      400,
      {
        error: "bad",
        code: "INVALID_INPUTS",
        details: [{ field: "amount", reason: "INVALID_TYPE", message: "number" }],
      },
      headers(),
    );
    expect(invalid.details).toEqual([
      { field: "amount", reason: "INVALID_TYPE", message: "number" },
    ]);
    expect(
      errorFromResponse(
        413,
        { error: "big", code: "ATTACHMENT_TOO_LARGE", attachment_id: "att_2" },
        headers(),
      ).attachmentId,
    ).toBe("att_2");
  });
});

describe("errorFromResponse: a refused launch", () => {
  it("the server's refusal of a draft or disabled workflow is the same class and code as the local one", () => {
    const error = errorFromResponse(
      409,
      { error: "workflow is draft", code: "WORKFLOW_NOT_ENABLED", state: "draft" },
      new Headers(),
    );
    expect(error).toBeInstanceOf(WorkflowNotEnabledError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe("WORKFLOW_NOT_ENABLED");
  });
});
