// Tracing through @wfr/runtime/opentelemetry (src/opentelemetry.ts), recorded by the SDK's
// in-memory exporter, against the fault-injecting fake API.
import { readdirSync, readFileSync } from "node:fs";
import { context, propagation, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, RunNotFoundError } from "../src/index.js";
import { openTelemetry } from "../src/opentelemetry.js";
import { type FakeApi, startFakeApi } from "./support/fake-api-server.js";
import { createVirtualClock } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
const LAUNCH = /\/automations\/[^/]+\/runs$/;
const RUN = /\/runs\/[^/]+$/;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let fake: FakeApi;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});
beforeEach(async () => {
  exporter.reset();
  fake = await startFakeApi(API_KEY);
});
afterEach(async () => {
  await fake.close();
});

function client(clock = createVirtualClock()) {
  return createClient({
    baseUrl: fake.baseUrl,
    apiKey: API_KEY,
    clock,
    tracing: openTelemetry({ tracer: provider.getTracer("test") }),
  });
}

const inputs = { vendor_name: "V", amount: 1, invoice_pdf: { attachment_id: "x" } };
const spans = () => exporter.getFinishedSpans();
const named = (name: string) => spans().filter((s) => s.name === name);
const only = (name: string): ReadableSpan => {
  const found = named(name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
};

describe("OpenTelemetry spans", () => {
  it("a launch is one client span with method, route template, status, ids and attempts; its retry is an event", async () => {
    fake.script("POST", LAUNCH, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    const run = await client().launch("wf_invoice", {
      inputs,
      idempotencyKey: "order-4711-secret-ish",
    });
    const span = only("POST /automations/{workflowId}/runs");
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({
      "http.request.method": "POST",
      "url.template": "/automations/{workflowId}/runs",
      "http.response.status_code": 202,
      "wfr.workflow_id": "wf_invoice",
      "wfr.attempts": 2,
      "wfr.idempotency_key.present": true,
    });
    expect(span.events.map((e) => e.name)).toEqual(["wfr.retry"]);
    expect(span.events[0]?.attributes).toMatchObject({
      "wfr.attempt": 1,
      "http.response.status_code": 503,
    });
    expect(run.run_id).toMatch(/^run_/);
    // Never the key, the API key or a body.
    const everything = JSON.stringify(spans().map((s) => [s.attributes, s.events]));
    expect(everything).not.toContain("order-4711-secret-ish");
    expect(everything).not.toContain(API_KEY);
  });

  it("a Retry-After wait is its own event with the delay", async () => {
    fake.script("GET", RUN, {
      status: 429,
      headers: { "retry-after": "2" },
      body: { error: "slow", code: "RATE_LIMITED" },
    });
    const run = await client().launch("wf_invoice", { inputs });
    exporter.reset();
    await client().getRun(run.run_id);
    const span = only("GET /runs/{runId}");
    expect(span.attributes).toMatchObject({ "wfr.run_id": run.run_id, "wfr.attempts": 2 });
    expect(span.events.map((e) => [e.name, e.attributes?.["wfr.retry.delay_ms"]])).toEqual([
      ["wfr.retry_after_wait", 2000],
    ]);
  });

  it("traceparent goes out on every request, naming the call's own span", async () => {
    const run = await client().launch("wf_invoice", { inputs });
    const header = fake.requestsTo("POST", LAUNCH)[0]?.headers.traceparent;
    const span = only("POST /automations/{workflowId}/runs");
    expect(header).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    expect(run.run_id).toBeDefined();
  });

  it("a failed call is an error span with the library's code", async () => {
    await expect(client().getRun("run_missing")).rejects.toBeInstanceOf(RunNotFoundError);
    const span = only("GET /runs/{runId}");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      "http.response.status_code": 404,
      "wfr.error.code": "RUN_NOT_FOUND",
      "error.type": "RUN_NOT_FOUND",
    });
  });

  it("waitForResult is a parent span over waitForRun, whose polls are its children and its events", async () => {
    const wfr = client();
    const run = await wfr.launch("wf_invoice", { inputs });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    exporter.reset();
    let seen = 0;
    await wfr.waitForResult(run.run_id, {
      onUpdate: () => {
        seen += 1;
        if (seen === 2) stored.status = "succeeded";
      },
    });
    const outer = only("wfr waitForResult");
    const wait = only("wfr waitForRun");
    expect(wait.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    const polls = named("GET /runs/{runId}");
    expect(polls).toHaveLength(seen);
    expect(seen).toBeGreaterThanOrEqual(2);
    for (const poll of polls)
      expect(poll.parentSpanContext?.spanId).toBe(wait.spanContext().spanId);
    expect(wait.events.filter((e) => e.name === "wfr.poll")).toHaveLength(polls.length);
    expect(wait.attributes["wfr.attempts"]).toBe(polls.length);
    const result = only("GET /runs/{runId}/result");
    expect(result.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it("a grant's id is not put on the span as a run id", async () => {
    await client()
      .getBrowserAccessGrant("bag_1")
      .catch(() => undefined);
    const span = only("GET /browser-access-grants/{grantId}");
    expect(span.attributes["wfr.run_id"]).toBeUndefined();
    expect(JSON.stringify(span.attributes)).not.toContain("bag_1");
  });

  it("without tracing nothing is traced and no traceparent is sent", async () => {
    const wfr = createClient({ baseUrl: fake.baseUrl, apiKey: API_KEY });
    await wfr.launch("wf_invoice", { inputs });
    expect(spans()).toHaveLength(0);
    expect(fake.requestsTo("POST", LAUNCH)[0]?.headers.traceparent).toBeUndefined();
  });

  it("only the opentelemetry entry imports @opentelemetry/api: the core loads nothing of it", () => {
    const dir = new URL("../src/", import.meta.url);
    const importers = readdirSync(dir)
      .filter((name) => name.endsWith(".ts"))
      .filter((name) => readFileSync(new URL(name, dir), "utf8").includes('from "@opentelemetry/'));
    expect(importers).toEqual(["opentelemetry.ts"]);
  });
});
