// Edge tests: the real client against a fault-injecting fake API on loopback.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  createClient,
  file,
  HumanWaitConflictError,
  HumanWaitExpiredError,
  IdempotencyConflictError,
  NetworkError,
  NotWaitingForHumanError,
  RateLimitError,
  RecordingNotFoundError,
  RecordingProcessingError,
  RecordingRateLimitedError,
  RecordingTooLargeError,
  RequestTimeoutError,
  RunNotFoundError,
  WaitTimeoutError,
  WorkflowRunApiError,
} from "../src/index.js";
import { type FakeApi, startFakeApi } from "./support/fake-api-server.js";
import { createVirtualClock, invoiceIntake } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
let fake: FakeApi;

beforeEach(async () => {
  fake = await startFakeApi(API_KEY);
});
afterEach(async () => {
  await fake.close();
});

function client(overrides: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({
    baseUrl: fake.baseUrl,
    apiKey: API_KEY,
    clock: createVirtualClock(),
    retry: { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 100, totalTimeoutMs: 60_000 },
    ...overrides,
  });
}

const LAUNCH = /\/automations\/[^/]+\/runs$/;

describe("launch", () => {
  it("On a lost response the caller resends the identical body with the original key: one run exists", async () => {
    fake.script("POST", LAUNCH, { loseResponse: true });
    const run = await client().launch(invoiceIntake, {
      inputs: { vendor_name: "Northwind", amount: 1280.5 },
      metadata: { orderId: "o-1" },
    });
    const attempts = fake.requestsTo("POST", LAUNCH);
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts;
    expect(second?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
    expect(second?.body).toBe(first?.body);
    expect(run.idempotencyKey).toBe(first?.headers["idempotency-key"]);
    expect(fake.runs.size).toBe(1);
    expect(run.run_id).toBe("run_1");
    expect(run.metadata).toEqual({ orderId: "o-1" });
  });

  it("A new intended execution uses a new key: each launch call makes its own key", async () => {
    const wfr = client();
    const a = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const b = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
    expect(fake.runs.size).toBe(2);
  });

  it("Changing the request under the same key returns 409 IDEMPOTENCY_CONFLICT (never retried, key on the error)", async () => {
    const wfr = client();
    await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "A", amount: 1 },
      idempotencyKey: "order-1",
    });
    const error = await wfr
      .launch(invoiceIntake, { inputs: { vendor_name: "B", amount: 2 }, idempotencyKey: "order-1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect((error as IdempotencyConflictError).idempotencyKey).toBe("order-1");
    expect((error as IdempotencyConflictError).status).toBe(409);
    expect(fake.requestsTo("POST", LAUNCH)).toHaveLength(2);
  });

  it("retries 500 and 503 with the same key and byte-identical body", async () => {
    fake.script("POST", LAUNCH, { status: 500, body: { error: "boom", code: "INTERNAL" } });
    fake.script("POST", LAUNCH, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    const run = await client().launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const attempts = fake.requestsTo("POST", LAUNCH);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers["idempotency-key"])).size).toBe(1);
    expect(run.status).toBe("queued");
  });

  it("honours Retry-After on 429 before retrying", async () => {
    const clock = createVirtualClock();
    fake.script("POST", LAUNCH, {
      status: 429,
      headers: { "retry-after": "7" },
      body: { error: "slow down", code: "RATE_LIMITED" },
    });
    await client({ clock }).launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    expect(clock.sleeps).toEqual([7000]);
    expect(fake.requestsTo("POST", LAUNCH)).toHaveLength(2);
  });

  it("gives up on 429 after maxAttempts with a typed RateLimitError carrying retryAfterSeconds", async () => {
    for (let i = 0; i < 2; i += 1) {
      fake.script("POST", LAUNCH, {
        status: 429,
        headers: { "retry-after": "1" },
        body: { error: "slow", code: "RATE_LIMITED" },
      });
    }
    const error = await client({ retry: { maxAttempts: 2 } })
      .launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(1);
    expect(fake.requestsTo("POST", LAUNCH)).toHaveLength(2);
  });

  it("ends an attempt after timeoutMs and retries it; after the last attempt throws RequestTimeoutError with the key", async () => {
    fake.script("POST", LAUNCH, { hang: true });
    const run = await client({ timeoutMs: 150 }).launch(invoiceIntake, {
      inputs: { vendor_name: "A", amount: 1 },
    });
    expect(fake.requestsTo("POST", LAUNCH)).toHaveLength(2);
    expect(fake.runs.size).toBe(1);
    expect(run.run_id).toBe("run_1");

    fake.script("POST", LAUNCH, { hang: true });
    fake.script("POST", LAUNCH, { hang: true });
    const error = await client({ timeoutMs: 100, retry: { maxAttempts: 2 } })
      .launch(invoiceIntake, {
        inputs: { vendor_name: "B", amount: 2 },
        idempotencyKey: "order-timeout",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).idempotencyKey).toBe("order-timeout");
    expect(fake.requestsTo("POST", LAUNCH)).toHaveLength(4);
  });

  it("sends attachments: distinct ids, { attachment_id } in inputs, bytes in input_context.attachments", async () => {
    const pdf = new TextEncoder().encode("%PDF-1.7 hello");
    await client().launch(invoiceIntake, {
      inputs: {
        vendor_name: "A",
        amount: 1,
        invoice_pdf: file(pdf, { filename: "inv.pdf", mimeType: "application/pdf" }),
        attachments: [
          file(new Uint8Array([1, 2, 3]), {
            filename: "a.bin",
            mimeType: "application/octet-stream",
          }),
          file(new Blob(["xy"]), { filename: "b.txt", mimeType: "text/plain" }),
        ],
      },
    });
    const body = JSON.parse(fake.requestsTo("POST", LAUNCH)[0]?.body ?? "{}");
    expect(body.inputs.invoice_pdf).toEqual({ attachment_id: "att_1" });
    expect(body.inputs.attachments).toEqual([
      { attachment_id: "att_2" },
      { attachment_id: "att_3" },
    ]);
    expect(body.input_context.attachments).toEqual([
      {
        id: "att_1",
        filename: "inv.pdf",
        mimeType: "application/pdf",
        base64: Buffer.from(pdf).toString("base64"),
      },
      { id: "att_2", filename: "a.bin", mimeType: "application/octet-stream", base64: "AQID" },
      { id: "att_3", filename: "b.txt", mimeType: "text/plain", base64: "eHk=" },
    ]);
  });

  it("sends the key only as Authorization: Bearer, never in the URL", async () => {
    await client().launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const [request] = fake.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.path).not.toContain(API_KEY);
  });

  it("all 409s are final: HUMAN_WAIT_CONFLICT is not retried (one request)", async () => {
    fake.script("POST", /human-input$/, {
      status: 409,
      body: { error: "changed", code: "HUMAN_WAIT_CONFLICT" },
    });
    await expect(
      client().answerHumanInput("run_1", { checkpointId: "cp_1", response: "yes" }),
    ).rejects.toBeInstanceOf(HumanWaitConflictError);
    expect(fake.requestsTo("POST", /human-input$/)).toHaveLength(1);
  });
});

describe("retries on reads", () => {
  it("retries 408, 502 and 504 on a GET, then answers", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const STATUS = new RegExp(`/runs/${run.run_id}$`);
    for (const status of [408, 502, 504])
      fake.script("GET", STATUS, { status, body: { error: "x", code: `HTTP_${status}` } });
    expect((await wfr.getRun(run.run_id)).run_id).toBe(run.run_id);
    expect(fake.requestsTo("GET", STATUS)).toHaveLength(4);
  });

  it("stops retrying when Retry-After would pass totalTimeoutMs, and returns the typed error", async () => {
    const clock = createVirtualClock();
    fake.script("GET", /\/runs\/run_9$/, {
      status: 503,
      headers: { "retry-after": "120" },
      body: { error: "busy", code: "UNAVAILABLE" },
    });
    const error = await client({ clock, retry: { totalTimeoutMs: 60_000 } })
      .getRun("run_9")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE", retryAfterSeconds: 120 });
    expect(clock.sleeps).toEqual([]);
    expect(fake.requestsTo("GET", /run_9/)).toHaveLength(1);
  });
});

describe("results and polling", () => {
  it("The result endpoint returns 202 while the run is not terminal and 200 once it is terminal", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const pending = await wfr.getResult(invoiceIntake, run.run_id);
    expect(pending.state).toBe("pending");
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "succeeded";
    stored.outputs = { total: 12, summary: "ok" };
    const done = await wfr.getResult(invoiceIntake, run.run_id);
    expect(done.state).toBe("terminal");
    if (done.status !== "succeeded") throw new Error(`expected success, got ${done.status}`);
    expect(done.outputs.total).toBe(12);
  });

  it("HTTP 200 from the result endpoint also accompanies failed, error, cancelled, terminated, dead_letter and human_wait_expired runs; callers inspect status and error and do not treat HTTP success as business success", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    for (const status of [
      "failed",
      "error",
      "cancelled",
      "terminated",
      "dead_letter",
      "human_wait_expired",
    ]) {
      stored.status = status;
      const result = await wfr.getResult(invoiceIntake, run.run_id);
      expect(result.state).toBe("terminal");
      expect(result.status).toBe(status);
      expect(result.outputs).toBeUndefined();
    }
  });

  it("Clients must treat any other string as a status they do not know (not terminal until the result endpoint answers 200)", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "thinking"; // the fake answers 202 on /result for this one
    let polls = 0;
    const finished = await wfr.waitForRun(run.run_id, {
      onUpdate: () => {
        polls += 1;
        // The server finishes the run while the client holds the third "thinking" envelope.
        if (polls === 3) stored.status = "archived_for_audit";
      },
    });
    // "thinking" is unknown: polling went on while /result said 202 and stopped when it said 200.
    expect(finished.status).toBe("unrecognized");
    expect(finished.serverStatus).toBe("thinking");
    expect(polls).toBe(3);
    expect(fake.requestsTo("GET", /\/result$/)).toHaveLength(3);
    const result = await wfr.getResult(invoiceIntake, run.run_id);
    expect(result).toMatchObject({
      state: "terminal",
      status: "unrecognized",
      serverStatus: "archived_for_audit",
    });
  });

  it("an unknown server status is 'unrecognized' on every envelope (raw value in serverStatus), never a crash, a human wait or terminal by guess", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    expect(run).toMatchObject({ status: "queued", serverStatus: "queued" });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "paused_by_operator"; // the fake's /result answers 200 for it
    const read = await wfr.getRun(run.run_id);
    expect(read).toMatchObject({ status: "unrecognized", serverStatus: "paused_by_operator" });
    // Serialised as the wire had it plus serverStatus: nothing is lost for logs or storage.
    expect(JSON.parse(JSON.stringify(read))).toMatchObject({ serverStatus: "paused_by_operator" });
    stored.status = "thinking"; // /result answers 202: not terminal
    const waiting = await wfr
      .waitForRun(run.run_id, { initialIntervalMs: 10, maxIntervalMs: 20, timeoutMs: 200 })
      .catch((e: unknown) => e);
    // Polled until the timeout (virtual clock), asking /result each time; the message names the wire value.
    expect(waiting).toBeInstanceOf(WaitTimeoutError);
    expect((waiting as WaitTimeoutError).message).toContain("thinking");
    expect(fake.requestsTo("GET", /\/result$/).length).toBeGreaterThan(1);
    const pending = await wfr.getResult(run.run_id);
    expect(pending).toMatchObject({
      state: "pending",
      status: "unrecognized",
      serverStatus: "thinking",
    });
  });

  it("waitForRun and waitForResult take the per-request maxRetries and headers for every poll", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    let polls = 0;
    const result = await wfr.waitForResult(invoiceIntake, run.run_id, {
      headers: { "x-trace-id": "trace-7" },
      onUpdate: () => {
        polls += 1;
        if (polls === 2) {
          stored.status = "succeeded";
          stored.outputs = { total: 3, summary: "done" };
        }
      },
    });
    expect(result.status).toBe("succeeded");
    const reads = fake.requests.filter((r) => r.method === "GET");
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const read of reads) expect(read.headers["x-trace-id"]).toBe("trace-7");
    const RUN_PATH = new RegExp(`/runs/${run.run_id}$`);
    fake.script("GET", RUN_PATH, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    const before = fake.requestsTo("GET", RUN_PATH).length;
    const error = await wfr.waitForRun(run.run_id, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(fake.requestsTo("GET", RUN_PATH).length - before).toBe(1);
  });

  it("waitForResult polls 202 then 200 and returns typed, validated outputs", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    let polls = 0;
    const result = await wfr.waitForResult(invoiceIntake, run.run_id, {
      onUpdate: () => {
        polls += 1;
        if (polls === 1) {
          stored.status = "succeeded";
          stored.outputs = { total: 3, summary: "done" };
        }
      },
    });
    expect(polls).toBe(2);
    expect(result).toMatchObject({ status: "succeeded", outputs: { total: 3, summary: "done" } });
  });

  it("RUN_NOT_FOUND when missing or not visible maps to RunNotFoundError and is not retried", async () => {
    await expect(client().getRun("run_missing")).rejects.toBeInstanceOf(RunNotFoundError);
    expect(fake.requestsTo("GET", /run_missing/)).toHaveLength(1);
  });

  it("getEvents reads the JSON snapshot", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    expect(await wfr.getEvents(run.run_id)).toEqual({ events: [] });
  });
});

describe("recording", () => {
  const RECORDING = /\/runs\/run_1\/recording$/;
  const processing = {
    status: 202,
    headers: { "retry-after": "3" },
    body: { error: "assembling", code: "RECORDING_PROCESSING" },
  };

  it("202 RECORDING_PROCESSING with header Retry-After: 3 while the video is assembled; retry the same URL (plain GET, no Range)", async () => {
    const clock = createVirtualClock();
    const video = new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112]);
    fake.script("GET", RECORDING, processing);
    fake.script("GET", RECORDING, processing);
    fake.script("GET", RECORDING, {
      status: 200,
      headers: { "content-type": "video/mp4" },
      body: video,
    });
    const download = await client({ clock }).downloadRecording("run_1");
    const bytes = new Uint8Array(await new Response(download.stream).arrayBuffer());
    expect(bytes).toEqual(video);
    expect(download.contentType).toBe("video/mp4");
    expect(download.contentLength).toBe(video.byteLength);
    const attempts = fake.requestsTo("GET", RECORDING);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.path)).size).toBe(1);
    for (const attempt of attempts) expect(attempt.headers.range).toBeUndefined();
    expect(clock.sleeps).toEqual([3000, 3000]);
  });

  it("gives up with RecordingProcessingError after the bounded attempts", async () => {
    fake.script("GET", RECORDING, processing);
    fake.script("GET", RECORDING, processing);
    const error = await client()
      .downloadRecording("run_1", { maxProcessingAttempts: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingProcessingError);
    expect(fake.requestsTo("GET", RECORDING)).toHaveLength(2);
  });

  it("429 RECORDING_RATE_LIMITED with Retry-After when over the hourly limit is thrown at once, not slept through", async () => {
    const clock = createVirtualClock();
    fake.script("GET", RECORDING, {
      status: 429,
      headers: { "retry-after": "1800" },
      body: { error: "limit", code: "RECORDING_RATE_LIMITED" },
    });
    const error = await client({ clock })
      .downloadRecording("run_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingRateLimitedError);
    expect((error as RecordingRateLimitedError).retryAfterSeconds).toBe(1800);
    expect(clock.sleeps).toEqual([]);
    expect(fake.requestsTo("GET", RECORDING)).toHaveLength(1);
  });

  it("404 RECORDING_NOT_FOUND and 413 RECORDING_TOO_LARGE are typed", async () => {
    fake.script("GET", RECORDING, {
      status: 404,
      body: { error: "none", code: "RECORDING_NOT_FOUND" },
    });
    await expect(client().downloadRecording("run_1")).rejects.toBeInstanceOf(
      RecordingNotFoundError,
    );
    fake.script("GET", RECORDING, {
      status: 413,
      body: { error: "big", code: "RECORDING_TOO_LARGE" },
    });
    await expect(client().downloadRecording("run_1")).rejects.toBeInstanceOf(
      RecordingTooLargeError,
    );
  });
});

describe("human input", () => {
  const HUMAN = /\/runs\/run_1\/human-input$/;
  const waitingEnvelope = {
    run_id: "run_1",
    workflow_id: "wf_invoice",
    status: "waiting_for_human_live",
    timestamps: {},
    error: null,
    metadata: {},
    human_action: { checkpoint_id: "cp_1", response_accepted: true },
  };

  it("checkpoint_id (string; technically optional for compatibility, always sent)", async () => {
    fake.script("POST", HUMAN, { status: 202, body: waitingEnvelope });
    const run = await client().answerHumanInput("run_1", {
      checkpointId: "cp_1",
      response: { approve: true },
    });
    expect(JSON.parse(fake.requestsTo("POST", HUMAN)[0]?.body ?? "")).toEqual({
      checkpoint_id: "cp_1",
      response: { approve: true },
    });
    expect(run.human_action?.response_accepted).toBe(true);
  });

  it("An identical answer to the same checkpoint is idempotent: a 503 is retried with the identical body only", async () => {
    fake.script("POST", HUMAN, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    fake.script("POST", HUMAN, { status: 202, body: waitingEnvelope });
    await client().answerHumanInput("run_1", { checkpointId: "cp_1", response: "approve" });
    const attempts = fake.requestsTo("POST", HUMAN);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.body).toBe(attempts[0]?.body);
  });

  it("A changed answer or stale checkpoint returns 409 HUMAN_WAIT_CONFLICT. Run not in a human wait returns 409 NOT_WAITING_FOR_HUMAN. Expired wait returns 410 HUMAN_WAIT_EXPIRED", async () => {
    fake.script("POST", HUMAN, {
      status: 409,
      headers: { "x-should-retry": "false" },
      body: { error: "x", code: "HUMAN_WAIT_CONFLICT" },
    });
    fake.script("POST", HUMAN, {
      status: 409,
      body: { error: "x", code: "NOT_WAITING_FOR_HUMAN" },
    });
    fake.script("POST", HUMAN, { status: 410, body: { error: "x", code: "HUMAN_WAIT_EXPIRED" } });
    const wfr = client();
    const answer = { checkpointId: "cp_1", response: "yes" };
    await expect(wfr.answerHumanInput("run_1", answer)).rejects.toBeInstanceOf(
      HumanWaitConflictError,
    );
    await expect(wfr.answerHumanInput("run_1", answer)).rejects.toBeInstanceOf(
      NotWaitingForHumanError,
    );
    await expect(wfr.answerHumanInput("run_1", answer)).rejects.toBeInstanceOf(
      HumanWaitExpiredError,
    );
    expect(fake.requestsTo("POST", HUMAN)).toHaveLength(3);
  });
});

describe("secrets", () => {
  it("Keys are sent only from server-side code, never in a URL ... or public issues: the key is absent from every error message, cause chain and log line", async () => {
    const lines: string[] = [];
    const logger = {
      debug: (m: string, f?: object) => lines.push(m + JSON.stringify(f)),
      info: (m: string, f?: object) => lines.push(m + JSON.stringify(f)),
      warn: (m: string, f?: object) => lines.push(m + JSON.stringify(f)),
      error: (m: string, f?: object) => lines.push(m + JSON.stringify(f)),
    };
    // A fetch whose failures quote the Authorization header, as a careless proxy library might.
    const leakyFetch: typeof fetch = async (_input, init) => {
      const auth = new Headers(init?.headers).get("authorization");
      throw new TypeError(`fetch failed for ${auth}`, {
        cause: new Error(`socket said ${API_KEY}`),
      });
    };
    const errors: unknown[] = [];
    errors.push(
      await client({ fetch: leakyFetch, logger })
        .getRun("run_1")
        .catch((e: unknown) => e),
    );
    fake.script("GET", /\/runs\/run_2$/, {
      status: 500,
      body: { error: `upstream echoed ${API_KEY}`, code: "INTERNAL" },
    });
    errors.push(
      await client({ logger, retry: { maxAttempts: 1 } })
        .getRun("run_2")
        .catch((e: unknown) => e),
    );
    errors.push(
      await client({ logger, apiKey: `${API_KEY}x` })
        .getRun("run_1")
        .catch((e: unknown) => e),
    );
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect(errors[2]).toBeInstanceOf(AuthenticationError);
    for (const error of errors) {
      expect(error).toBeInstanceOf(WorkflowRunApiError);
      let current: unknown = error;
      let depth = 0;
      while (current instanceof Error) {
        expect(current.message).not.toContain("SECRET123");
        expect(String(current.stack)).not.toContain("SECRET123");
        current = (current as { cause?: unknown }).cause;
        depth += 1;
      }
      expect(JSON.stringify(error)).not.toContain("SECRET123");
      if (error === errors[0]) expect(depth).toBe(3);
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain("SECRET123");
  });
});
