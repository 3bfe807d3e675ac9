// Pure tests: no server, no real time.
import { describe, expect, it } from "vitest";
import { fullJitterDelay } from "../src/backoff.js";
import { base64EncodedLength, encodeBase64 } from "../src/base64.js";
import { errorFromResponse } from "../src/errors.js";
import {
  AttachmentTooLargeError,
  AuthenticationError,
  BillingError,
  BodyTooLargeError,
  ConflictError,
  checkPublicCallbackUrl,
  createClient,
  file,
  HumanWaitConflictError,
  IdempotencyConflictError,
  InputValidationError,
  InvalidAttachmentsError,
  InvalidInputsError,
  InvalidJsonError,
  InvalidMetadataError,
  InvalidOptionError,
  MAX_ATTACHMENT_BYTES,
  MAX_LAUNCH_BODY_BYTES,
  OutputValidationError,
  PermissionError,
  RateLimitError,
  RecordingRateLimitedError,
  RouteNotFoundError,
  WaitTimeoutError,
  WorkflowNotEnabledError,
  WorkflowNotFoundError,
  WorkflowNotLaunchableError,
  WorkflowRunApiError,
} from "../src/index.js";
import { extractAttachments, serializeLaunchBody } from "../src/launch-body.js";
import { redact, redactError } from "../src/redact.js";
import { parseRetryAfterSeconds } from "../src/retry-after.js";
import { mayResend } from "../src/retry-rules.js";
import { toRunEnvelope } from "../src/run-envelope.js";
import { toRunResult } from "../src/run-result.js";
import { checkBaseUrl } from "../src/url-checks.js";
import { stopReason, waitForRunWith } from "../src/wait-for-run.js";
import type { RunEnvelope } from "../src/wire-types.js";
import { createVirtualClock, draftInvoice, invoiceIntake } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
/** A fetch that fails the test if anything is sent. */
const noNetwork: typeof fetch = async () => {
  throw new Error("nothing should have been sent");
};
const offlineClient = () =>
  createClient({ baseUrl: "https://api.example.com/api/v1", apiKey: API_KEY, fetch: noNetwork });

describe("redact", () => {
  it("removes the key and any Bearer token from text", () => {
    expect(redact(`key ${API_KEY} and Authorization: Bearer abc.def`, [API_KEY])).toBe(
      "key [REDACTED] and Authorization: Bearer [REDACTED]",
    );
  });
  it("rebuilds an error's cause chain with every message redacted", () => {
    const inner = new Error(`inner ${API_KEY}`);
    const outer = new TypeError(`outer ${API_KEY}`, {
      cause: { detail: API_KEY, authorization: "x", nested: inner },
    });
    const clean = redactError(outer, [API_KEY]);
    expect(JSON.stringify(clean) + clean.message + String(clean.stack)).not.toContain(API_KEY);
    const cause = clean.cause as { detail: string; authorization: string; nested: Error };
    expect(cause).toMatchObject({ detail: "[REDACTED]", authorization: "[REDACTED]" });
    expect(cause.nested.message).toBe("inner [REDACTED]");
  });
});

describe("base URL", () => {
  it("the API base is {base_url} (it ends in the version prefix /api/v1): https, http only on loopback", () => {
    expect(checkBaseUrl("https://api.example.com/api/v1/")).toEqual({
      ok: true,
      baseUrl: "https://api.example.com/api/v1",
    });
    expect(checkBaseUrl("http://127.0.0.1:8080/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://127.9.9.9/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://[::1]:3000/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://localhost:3000/api/v1").ok).toBe(true);
    expect(checkBaseUrl("http://api.example.com/api/v1").ok).toBe(false);
    expect(checkBaseUrl("http://10.0.0.1/api/v1").ok).toBe(false);
    expect(checkBaseUrl("https://api.example.com/api/v2").ok).toBe(false);
    expect(checkBaseUrl("https://api.example.com/api/v1?key=x").ok).toBe(false);
    expect(() =>
      createClient({ baseUrl: "http://api.example.com/api/v1", apiKey: API_KEY }),
    ).toThrow(InvalidOptionError);
    expect(
      createClient({
        environment: { name: "p", workspace: "w", baseUrl: "https://x.test/api/v1" },
        apiKey: "k",
      }).baseUrl,
    ).toBe("https://x.test/api/v1");
  });
});

describe("checkPublicCallbackUrl", () => {
  it("A private or localhost address is not a public receiver", () => {
    const rejected = [
      "http://hooks.example.com/cb",
      "https://localhost/cb",
      "https://LOCALHOST./cb",
      "https://app.localhost/cb",
      "https://metadata.google.internal/computeMetadata",
      "https://127.0.0.1/cb",
      "https://127.1/cb",
      "https://2130706433/cb",
      "https://0x7f000001/cb",
      "https://0.0.0.0/cb",
      "https://10.1.2.3/cb",
      "https://172.16.0.1/cb",
      "https://172.31.255.255/cb",
      "https://192.168.1.1/cb",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/cb",
      "https://100.127.255.255/cb",
      "https://[::1]/cb",
      "https://[::]/cb",
      "https://[fc00::1]/cb",
      "https://[fd12:3456::1]/cb",
      "https://[fe80::1]/cb",
      "https://[::ffff:127.0.0.1]/cb",
      "https://[::ffff:a9fe:a9fe]/cb",
      "https://[::ffff:10.0.0.1]/cb",
      "https://[64:ff9b::192.168.0.1]/cb",
      "https://user:pass@hooks.example.com/cb",
      "not a url",
    ];
    for (const url of rejected) expect(checkPublicCallbackUrl(url).ok, url).toBe(false);
    const accepted = [
      "https://hooks.example.com/wfr",
      "https://8.8.8.8/cb",
      "https://172.32.0.1/cb",
      "https://100.128.0.1/cb",
      "https://[2606:4700::1111]/cb",
      "https://[::ffff:8.8.8.8]/cb",
    ];
    for (const url of accepted) expect(checkPublicCallbackUrl(url).ok, url).toBe(true);
  });
});

describe("attachments and limits", () => {
  it("encodes base64 like the platform, in chunks, with the arithmetic length", () => {
    for (const size of [0, 1, 2, 3, 4, 5, 100, 3 * 16_384 + 1, 200_000]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 255);
      const encoded = encodeBase64(bytes);
      expect(encoded).toBe(Buffer.from(bytes).toString("base64"));
      expect(encoded.length).toBe(base64EncodedLength(size));
    }
  });

  it("Attachment identifiers must be distinct within a request: nested files get att_1, att_2, ... and the caller's object is untouched", () => {
    const file1 = () => file(new Uint8Array([1]), { filename: "a", mimeType: "x/y" });
    const one = file1();
    const inputs = {
      doc: one,
      more: [file1(), file1()],
      nested: { deep: file1() },
      __proto__field: 1,
    };
    const { inputs: wire, attachments } = extractAttachments(inputs);
    expect(wire).toEqual({
      doc: { attachment_id: "att_1" },
      more: [{ attachment_id: "att_2" }, { attachment_id: "att_3" }],
      nested: { deep: { attachment_id: "att_4" } },
      __proto__field: 1,
    });
    expect(attachments.map((a) => a.field)).toEqual(["doc", "more[0]", "more[1]", "nested.deep"]);
    expect(inputs.doc).toBe(one);
  });

  it("the same file() value in several fields is one attachment, encoded once", async () => {
    const one = file(new Uint8Array([1, 2, 3]), { filename: "a", mimeType: "x/y" });
    const body = JSON.parse(
      await serializeLaunchBody({ inputs: { doc: one, more: [one, one], nested: { deep: one } } }),
    );
    expect(body.inputs).toEqual({
      doc: { attachment_id: "att_1" },
      more: [{ attachment_id: "att_1" }, { attachment_id: "att_1" }],
      nested: { deep: { attachment_id: "att_1" } },
    });
    expect(body.input_context.attachments).toEqual([
      { id: "att_1", filename: "a", mimeType: "x/y", base64: "AQID" },
    ]);
  });

  it("One attachment, after base64 decoding | 25 MiB (26,214,400 bytes): exactly the limit passes, one byte more is rejected without encoding", async () => {
    // An object that only reports its size: encoding it would throw, proving the check comes first.
    const huge = { byteLength: MAX_ATTACHMENT_BYTES + 1 } as unknown as Uint8Array;
    const error = await serializeLaunchBody({
      inputs: { invoice_pdf: file(huge, { filename: "big.pdf", mimeType: "application/pdf" }) },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    expect(error).toMatchObject({ attachmentId: "att_1", field: "invoice_pdf", status: null });
    expect((error as Error).message).toContain("big.pdf");
    const exact = await serializeLaunchBody({
      inputs: {
        f: file(new Uint8Array(MAX_ATTACHMENT_BYTES), { filename: "ok.bin", mimeType: "x/y" }),
      },
    });
    expect(exact.length).toBeLessThanOrEqual(MAX_LAUNCH_BODY_BYTES);
  });

  it("Base64 adds about one third to file size; several files each under 25 MiB may together exceed the body limit", async () => {
    const twentyMiB = { byteLength: 20 * 1024 * 1024 } as unknown as Uint8Array;
    const error = await serializeLaunchBody({
      inputs: {
        a: file(twentyMiB, { filename: "a.bin", mimeType: "x/y" }),
        b: file(twentyMiB, { filename: "b.bin", mimeType: "x/y" }),
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
  });

  it("predicts the serialised size exactly, so the 37,748,736-byte check is precise", async () => {
    const bytes = new Uint8Array(1234);
    const body = await serializeLaunchBody({
      inputs: { "naïve ✓": file(bytes, { filename: "é.bin", mimeType: "x/y" }) },
      metadata: { a: "ü" },
    });
    const { predictBodyBytes } = await import("../src/launch-body.js");
    const { inputs, attachments } = extractAttachments({
      "naïve ✓": file(bytes, { filename: "é.bin", mimeType: "x/y" }),
    });
    const skeleton = {
      inputs,
      metadata: { a: "ü" },
      input_context: {
        attachments: [{ id: "att_1", filename: "é.bin", mimeType: "x/y", base64: "" }],
      },
    };
    expect(predictBodyBytes(skeleton, attachments)).toBe(new TextEncoder().encode(body).byteLength);
  });
});

describe("launch checks before sending", () => {
  it("Only an enabled workflow can be launched; a draft or disabled one cannot", async () => {
    const wfr = offlineClient();
    // @ts-expect-error a draft definition is rejected by the types too
    const launching = wfr.launch(draftInvoice, { inputs: { vendor_name: "A", amount: 1 } });
    const error = await launching.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowNotLaunchableError);
    expect(error).toBeInstanceOf(WorkflowNotEnabledError);
    expect((error as WorkflowNotEnabledError).code).toBe("WORKFLOW_NOT_ENABLED");
    expect((error as WorkflowNotLaunchableError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

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

  it("Undeclared keys are rejected; missing required values are rejected: reported per field with INVALID_TYPE, REQUIRED, UNKNOWN_INPUT", async () => {
    const wfr = offlineClient();
    const badInputs = { vendor_name: 5, extra: true } as never; // the types reject these too (launch-types.test-d.ts)
    const error = await wfr
      .launch(invoiceIntake, { inputs: badInputs, idempotencyKey: "k-1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect(error).toBeInstanceOf(InvalidInputsError);
    expect((error as InputValidationError).code).toBe("INVALID_INPUTS");
    expect((error as InputValidationError).idempotencyKey).toBe("k-1");
    expect((error as InputValidationError).details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "extra", reason: "UNKNOWN_INPUT" }),
        expect.objectContaining({ field: "vendor_name", reason: "INVALID_TYPE" }),
        expect.objectContaining({ field: "amount", reason: "REQUIRED" }),
      ]),
    );
  });

  it("metadata must be a JSON object (null, array, string, number, boolean are invalid)", async () => {
    for (const metadata of [null, [], "x", 1, true, new Date()]) {
      const error = await offlineClient()
        .launch("wf_any", { inputs: {}, metadata: metadata as never })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidMetadataError);
    }
  });

  it("idempotency_key | string, max 200 chars", async () => {
    const error = await offlineClient()
      .launch("wf_any", { inputs: {}, idempotencyKey: "k".repeat(201) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_IDEMPOTENCY_KEY" });
  });

  it("callback_url: a private or localhost address is not a public receiver (rejected before sending)", async () => {
    const error = await offlineClient()
      .launch("wf_any", { inputs: {}, callbackUrl: "https://169.254.169.254/x" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_CALLBACK_URL" });
  });
});

describe("errorFromResponse", () => {
  const headers = (init: Record<string, string> = {}) => new Headers(init);
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

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfterSeconds("3")).toBe(3);
    expect(
      parseRetryAfterSeconds(
        "Wed, 21 Oct 2015 07:28:10 GMT",
        Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"),
      ),
    ).toBe(10);
    expect(parseRetryAfterSeconds("soon")).toBeUndefined();
    expect(
      errorFromResponse(
        429,
        { error: "x", code: "RECORDING_RATE_LIMITED" },
        headers({ "retry-after": "60" }),
      ).retryAfterSeconds,
    ).toBe(60);
  });
});

describe("retry policy", () => {
  it("never resends a POST without an idempotency key unless the identical body is idempotent (human-input)", () => {
    const none = new Headers();
    const keyed = new Headers({ "idempotency-key": "k" });
    expect(mayResend("POST", none, { retry: true })).toBe(false);
    expect(mayResend("POST", keyed, { retry: true })).toBe(true);
    expect(mayResend("POST", none, { retry: true, identicalBodyIsIdempotent: true })).toBe(true);
    expect(mayResend("GET", none, { retry: true })).toBe(true);
    expect(mayResend("GET", none, { retry: false })).toBe(false);
  });

  it("full jitter stays within [0, min(max, initial * 2^attempt))", () => {
    expect(fullJitterDelay(0, 100, 1000, () => 0.999)).toBe(99);
    expect(fullJitterDelay(3, 100, 1000, () => 0.5)).toBe(400);
    expect(fullJitterDelay(10, 100, 1000, () => 0.5)).toBe(500);
    expect(fullJitterDelay(10, 100, 1000, () => 0)).toBe(0);
  });
});

describe("results", () => {
  const body = (status: string, outputs: unknown = null) =>
    ({ run_id: "run_1", status, error: null, metadata: {}, outputs }) as never;
  it("only status succeeded carries outputs, checked with the workflow's checkOutputs", () => {
    expect(
      toRunResult(200, body("succeeded", { total: 1, summary: "s" }), "run_1", invoiceIntake),
    ).toMatchObject({
      state: "terminal",
      status: "succeeded",
      outputs: { total: 1 },
    });
    expect(() =>
      toRunResult(200, body("succeeded", { total: "1" }), "run_1", invoiceIntake),
    ).toThrow(OutputValidationError);
    const failed = toRunResult(200, body("failed", { total: 1 }), "run_1", invoiceIntake);
    expect(failed).not.toHaveProperty("outputs");
    expect(toRunResult(202, body("running"), "run_1")).toMatchObject({
      state: "pending",
      status: "running",
    });
    expect(toRunResult(202, body("warming_up"), "run_1")).toMatchObject({
      status: "unrecognized",
      serverStatus: "warming_up",
    });
  });
});

describe("waitForRun (pure, virtual clock)", () => {
  const envelope = (status: string): RunEnvelope =>
    toRunEnvelope({
      run_id: "run_1",
      workflow_id: "wf",
      status,
      timestamps: {},
      error: null,
      metadata: {},
    });

  it("polls with exponential backoff and full jitter, stops on a terminal status", async () => {
    const clock = createVirtualClock(() => 0.5);
    const statuses = ["queued", "running", "running", "running", "succeeded"];
    const run = await waitForRunWith(
      {
        getRun: async () => envelope(statuses.shift() ?? "succeeded"),
        resultIsTerminal: async () => false,
        clock,
      },
      "run_1",
      { initialIntervalMs: 100, maxIntervalMs: 500 },
    );
    expect(run.status).toBe("succeeded");
    expect(clock.sleeps).toEqual([50, 100, 200, 250]);
  });

  it("Answering a checkpoint leaves the run in waiting_for_human_live: stops there unless keepWaitingOnHuman", async () => {
    const waiting = envelope("waiting_for_human_live");
    expect(await stopReason(waiting, {}, new Set(), async () => false)).toBe("waiting_for_human");
    expect(
      await stopReason(waiting, { keepWaitingOnHuman: true }, new Set(), async () => false),
    ).toBeUndefined();
    expect(await stopReason(envelope("dead_letter"), {}, new Set(), async () => false)).toBe(
      "terminal",
    );
    expect(await stopReason(envelope("new_status"), {}, new Set(), async () => true)).toBe(
      "terminal",
    );
    expect(
      await stopReason(envelope("new_status"), {}, new Set(), async () => false),
    ).toBeUndefined();
  });

  it("times out with WaitTimeoutError, and aborting stops watching only (no cancel request exists)", async () => {
    const clock = createVirtualClock(() => 1);
    const deps = {
      getRun: async () => envelope("running"),
      resultIsTerminal: async () => false,
      clock,
    };
    await expect(
      waitForRunWith(deps, "run_1", { timeoutMs: 1000, initialIntervalMs: 100 }),
    ).rejects.toBeInstanceOf(WaitTimeoutError);
    const controller = new AbortController();
    controller.abort(new Error("stop watching"));
    await expect(waitForRunWith(deps, "run_1", { signal: controller.signal })).rejects.toThrow(
      "stop watching",
    );
  });
});

describe("public API", () => {
  it("index.ts exports the public API only; internals stay unexported", async () => {
    const runtime: Record<string, unknown> = await import("../src/index.js");
    for (const internal of [
      "stopReason",
      "waitForRunWith",
      "awaitsPerson",
      "toRunResult",
      "toRunEnvelope",
      "attachRequestId",
      "errorFromResponse",
      "buildLaunchBody",
      "serializeLaunchBody",
      "createRetryingFetch",
      "createPipeline",
      "toLibraryError",
      "mayResend",
      "shouldRetry",
      "retryDelay",
      "planLaunchBody",
      "requestStreamsSupported",
      "checkApiKey",
      "isPlainObject",
      "redact",
    ]) {
      expect(runtime, internal).not.toHaveProperty(internal);
    }
    for (const name of [
      "createClient",
      "file",
      "createCallbackHandler",
      "isTerminalStatus",
      "WorkflowRunClient",
      "ApiCall",
    ]) {
      expect(typeof runtime[name], name).toBe("function");
    }
  });
});
