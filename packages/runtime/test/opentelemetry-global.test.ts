// Tracing with no `tracing` option (src/opentelemetry-global.ts): through the tracer provider
// registered with @opentelemetry/api, found under the API's global symbol; nothing without one.
// Recorded by the SDK's in-memory exporter against the fake API.
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../src/index.js";
import { isCompatibleApiVersion } from "../src/opentelemetry-global.js";
import { type FakeApi, startFakeApi } from "./support/fake-api-server.js";
import { createVirtualClock } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
const LAUNCH = /\/automations\/[^/]+\/runs$/;
const GLOBAL_KEY = Symbol.for("opentelemetry.js.api.1");
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const inputs = { vendor_name: "V", amount: 1, invoice_pdf: { attachment_id: "x" } };
let fake: FakeApi;

type Globals = { version?: string } | undefined;
const registered = () => (globalThis as { [GLOBAL_KEY]?: Globals })[GLOBAL_KEY];

function registerAll() {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

function unregisterAll() {
  trace.disable();
  context.disable();
  propagation.disable();
}

function client(extra: { tracing?: false } = {}) {
  return createClient({
    baseUrl: fake.baseUrl,
    apiKey: API_KEY,
    clock: createVirtualClock(),
    ...extra,
  });
}

const spans = () => exporter.getFinishedSpans();
const launchSpans = () =>
  spans().filter((s: ReadableSpan) => s.name === "POST /automations/{workflowId}/runs");
const sentTraceparent = () => fake.requestsTo("POST", LAUNCH)[0]?.headers.traceparent;

beforeEach(async () => {
  exporter.reset();
  fake = await startFakeApi(API_KEY);
});
afterEach(async () => {
  unregisterAll();
  await fake.close();
});

describe("with a tracer provider registered and no tracing option", () => {
  beforeEach(registerAll);

  it("each call is a client span, and traceparent names it", async () => {
    const run = await client().launch("wf_invoice", { inputs, idempotencyKey: "order-1" });
    const [span, ...more] = launchSpans();
    expect(more).toHaveLength(0);
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toMatchObject({
      "http.request.method": "POST",
      "url.template": "/automations/{workflowId}/runs",
      "http.response.status_code": 202,
      "wfr.workflow_id": "wf_invoice",
      "wfr.idempotency_key.present": true,
    });
    expect(span?.instrumentationScope.name).toBe("@wfr/runtime");
    const { traceId, spanId } = span?.spanContext() ?? {};
    expect(sentTraceparent()).toBe(`00-${traceId}-${spanId}-01`);
    expect(run.run_id).toMatch(/^run_/);
  });

  it("a wait is a parent span over its polls", async () => {
    const wfr = client();
    const run = await wfr.launch("wf_invoice", { inputs });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "succeeded";
    exporter.reset();
    await wfr.waitForRun(run.run_id);
    const wait = spans().find((s) => s.name === "wfr waitForRun");
    const polls = spans().filter((s) => s.name === "GET /runs/{runId}");
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls)
      expect(poll.parentSpanContext?.spanId).toBe(wait?.spanContext().spanId);
  });

  it("tracing: false traces nothing and sends no traceparent", async () => {
    await client({ tracing: false }).launch("wf_invoice", { inputs });
    expect(spans()).toHaveLength(0);
    expect(sentTraceparent()).toBeUndefined();
  });

  it("a registered API older than the runtime's oldest supported minor is not used", async () => {
    const globals = registered();
    if (!globals) throw new Error("nothing registered");
    const own = globals.version;
    globals.version = "1.2.0";
    try {
      await client().launch("wf_invoice", { inputs });
    } finally {
      globals.version = own;
    }
    expect(spans()).toHaveLength(0);
    expect(sentTraceparent()).toBeUndefined();
  });
});

describe("with nothing registered", () => {
  it("nothing is traced, no traceparent is sent and no OpenTelemetry global is created", async () => {
    const wfr = client();
    await wfr.launch("wf_invoice", { inputs });
    expect(spans()).toHaveLength(0);
    expect(sentTraceparent()).toBeUndefined();
    expect((registered() as { trace?: unknown } | undefined)?.trace).toBeUndefined();
  });

  it("a provider registered after the client was created is used from the next call", async () => {
    const wfr = client();
    await wfr.launch("wf_invoice", { inputs });
    expect(spans()).toHaveLength(0);
    registerAll();
    await wfr.launch("wf_invoice", { inputs });
    expect(launchSpans()).toHaveLength(1);
  });
});

describe("isCompatibleApiVersion, as @opentelemetry/api's own semver check", () => {
  it.each([
    ["1.3.0", true],
    ["1.9.0", true],
    ["1.12.4", true],
    ["1.2.9", false],
    ["2.0.0", false],
    ["0.3.0", false],
    ["1.9.0-rc.1", false],
    ["1.9", false],
    [undefined, false],
    [19, false],
  ])("%s -> %s", (version, compatible) => {
    expect(isCompatibleApiVersion(version)).toBe(compatible);
  });
});
