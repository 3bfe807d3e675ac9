// The request pipeline (src/pipeline.ts) through the client, against the fault-injecting fake API:
// one fetch per attempt, the retry rules applied, raw access on every call.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createClient,
  InvalidResponseError,
  RateLimitError,
  RequestTimeoutError,
  WorkflowRunClient,
} from "../src/index.js";
import { type FakeApi, startFakeApi } from "./support/fake-api-server.js";
import { createVirtualClock, invoiceIntake } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
const LAUNCH = /\/automations\/[^/]+\/runs$/;
const RUN = /\/runs\/[^/]+$/;
let fake: FakeApi;

beforeEach(async () => {
  fake = await startFakeApi(API_KEY);
});
afterEach(async () => {
  await fake.close();
});

const inputs = () => ({ vendor_name: "V", amount: 1, invoice_pdf: { attachment_id: "x" } });

describe("the request pipeline", () => {
  it("calls fetch once per attempt with a URL and plain init (no Request object of its own)", async () => {
    const seen: { input: unknown; body: unknown }[] = [];
    const wfr = createClient({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
      fetch: (input, init) => {
        seen.push({ input, body: init?.body });
        return globalThis.fetch(input, init);
      },
    });
    fake.script("POST", LAUNCH, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    const run = await wfr.launch("wf_invoice", { inputs: inputs() });
    await wfr.getRun(run.run_id);
    expect(seen).toHaveLength(3);
    for (const { input } of seen) expect(typeof input).toBe("string");
    expect(seen[0]?.body).toBeInstanceOf(Uint8Array);
    // The same bytes object on both attempts: built once, never copied through a Request.
    expect(seen[1]?.body).toBe(seen[0]?.body);
  });

  it("a Retry-After longer than maxRetryAfterMs is not slept through: the typed error at once", async () => {
    const clock = createVirtualClock();
    const wfr = createClient({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      clock,
      retry: { totalTimeoutMs: 600_000 },
    });
    fake.script("GET", RUN, {
      status: 429,
      headers: { "retry-after": "120" },
      body: { error: "slow down", code: "RATE_LIMITED" },
    });
    const error = await wfr.getRun("run_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(120);
    expect(clock.sleeps).toEqual([]);
    expect(fake.requestsTo("GET", RUN)).toHaveLength(1);
  });

  it("a launch whose key travels in the body (not header-safe) is still resent after a 503", async () => {
    const wfr = createClient({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
    });
    fake.script("POST", LAUNCH, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    const key = "clé-de-commande-42";
    const run = await wfr.launch("wf_invoice", { inputs: inputs(), idempotencyKey: key });
    expect(run.idempotencyKey).toBe(key);
    const sent = fake.requestsTo("POST", LAUNCH);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body).toBe(sent[0]?.body);
    expect(sent[0]?.headers["idempotency-key"]).toBeUndefined();
  });

  it("every method gives its raw response through .withResponse(), one request each", async () => {
    const wfr = createClient({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
    });
    const launched = await wfr
      .launch(invoiceIntake, {
        inputs: { vendor_name: "V", amount: 1, invoice_pdf: { attachment_id: "x" } as never },
        validate: false,
      })
      .withResponse();
    expect(launched.response.status).toBe(202);
    expect(launched.data.run_id).toMatch(/^run_/);
    const run = await wfr.getRun(launched.data.run_id).withResponse();
    expect(run.response.status).toBe(200);
    expect(run.data._requestId).toBe(run.requestId);
    const result = await wfr.getResult(launched.data.run_id).withResponse();
    expect([200, 202]).toContain(result.response.status);
    expect(fake.requestsTo("GET", RUN)).toHaveLength(1);
  });

  it("the client is a named class; its methods are bound (destructuring works)", async () => {
    const wfr = createClient({ baseUrl: fake.baseUrl, apiKey: API_KEY });
    expect(wfr).toBeInstanceOf(WorkflowRunClient);
    const { launch, getRun } = wfr;
    const run = await launch("wf_invoice", { inputs: inputs() });
    expect((await getRun(run.run_id)).run_id).toBe(run.run_id);
  });

  it("a 200 with an empty body where JSON belongs is an InvalidResponseError, not a TypeError", async () => {
    const wfr = createClient({
      baseUrl: fake.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
    });
    // Every attempt answers so (an unreadable answer is tried again within the attempts).
    for (let attempt = 0; attempt < 4; attempt++)
      fake.script("GET", RUN, { status: 200, body: "" });
    const error = await wfr.getRun("run_1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain("an empty body");
    expect(fake.requestsTo("GET", RUN)).toHaveLength(4);
  });

  it("the signal of answered calls, handed on, still closes the socket of a later attempt that gets no headers", async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const signals = new Set<AbortSignal | null | undefined>();
    const server = createServer((req, res) => {
      if (req.url?.endsWith("/runs/run_1")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ run_id: "run_1", workflow_id: "wf_1", status: "queued" }));
        return;
      }
      req.socket.once("close", closed); // never answered
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const wfr = createClient({
        baseUrl: `http://127.0.0.1:${port}/api/v1`,
        apiKey: API_KEY,
        // Two of the three attempts are answered, and must be within it on a loaded machine.
        timeoutMs: 2_000,
        retry: { maxAttempts: 1 },
        fetch: (input, init) => {
          signals.add(init?.signal);
          return globalThis.fetch(input, init);
        },
      });
      await wfr.getRun("run_1");
      await wfr.getRun("run_1");
      const error = await wfr.getRun("run_2").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestTimeoutError);
      // One signal served all three attempts: the two answered ones and the stalled one.
      expect(signals.size).toBe(1);
      await serverSawClose;
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);
  it("an API answer that redirects is not followed: a typed error naming the redirect, and the target never asked", async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      if (req.url?.startsWith("/elsewhere")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ run_id: "run_1", workflow_id: "wf_1", status: "queued" }));
        return;
      }
      res.writeHead(302, { location: "/elsewhere/api/v1/runs/run_1" });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const inits: (RequestInit | undefined)[] = [];
      const wfr = createClient({
        baseUrl: `http://127.0.0.1:${port}/api/v1`,
        apiKey: API_KEY,
        clock: createVirtualClock(),
        fetch: (input, init) => {
          inits.push(init);
          return globalThis.fetch(input, init);
        },
      });
      const error = await wfr.getRun("run_1").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      // Node has the "error" mode: its fetch fails and says why in the cause, which the message carries.
      expect(inits[0]?.redirect).toBe("error");
      expect((error as Error).message).toMatch(
        /GET \/api\/v1\/runs\/run_1 failed .*unexpected redirect/,
      );
      expect(asked.every((line) => line.startsWith("GET /api/v1/runs/run_1"))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
