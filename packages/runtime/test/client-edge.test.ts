// Edge tests: the real client against a fault-injecting fake API on loopback: the launch, retries
// on reads, and the key kept out of every error and log line. After the launch (results, polling,
// the recording, human input): client-edge-runs.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  createClient,
  file,
  HumanWaitConflictError,
  IdempotencyConflictError,
  NetworkError,
  RateLimitError,
  RequestTimeoutError,
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
    // The bound must also hold for the answered retry on a loaded machine: generous, not tight.
    const run = await client({ timeoutMs: 2_000 }).launch(invoiceIntake, {
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
