// `@wfr/runtime/opentelemetry`: the runtime's Tracing over @opentelemetry/api,
// an optional peer dependency. Only this entry imports it; a client without
// `tracing` never loads it and runs no tracing code.
//
//   import { openTelemetry } from "@wfr/runtime/opentelemetry";
//   const wfr = createClient({ baseUrl, apiKey, tracing: openTelemetry() });
import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { RUNTIME_VERSION } from "./client-options.js";
import type { CallSpan, SpanAttributes, Tracing } from "./tracing.js";

export interface OpenTelemetryOptions {
  /** The tracer to use. Default: the global provider's tracer named "@wfr/runtime". */
  readonly tracer?: Tracer;
}

/** Attribute values without the undefined ones (OpenTelemetry drops them with a warning). */
function defined(attributes: SpanAttributes | undefined): Attributes {
  const out: Attributes = {};
  if (!attributes) return out;
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined) out[name] = value;
  return out;
}

function callSpan(span: Span): CallSpan {
  return {
    addEvent: (name, attributes) => span.addEvent(name, defined(attributes)),
    setAttributes: (attributes) => span.setAttributes(defined(attributes)),
    fail: (error) => {
      // Library errors are redacted when built; only their class, code and message go out.
      const name = error instanceof Error ? error.name : "Error";
      const message = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown } | null)?.code;
      span.recordException({ name, message });
      span.setAttribute("error.type", typeof code === "string" ? code : name);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
  };
}

/**
 * Client spans for every API call (method, route template, status, run and
 * workflow id, attempts, whether an idempotency key was sent), retries and
 * Retry-After waits as span events, a parent span over the polls of
 * `waitForRun` / `waitForResult`, and `traceparent` on every request (with
 * the global propagator, W3C Trace Context in the SDK's defaults).
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Tracing {
  // Asked per span, so a provider registered after the client is created is used.
  const tracer = () => options.tracer ?? trace.getTracer("@wfr/runtime", RUNTIME_VERSION);
  return {
    inSpan(name, kind, attributes, work) {
      return tracer().startActiveSpan(
        name,
        {
          kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
          attributes: defined(attributes),
        },
        async (span) => {
          try {
            return await work(callSpan(span));
          } finally {
            span.end();
          }
        },
      );
    },
    inject(headers) {
      propagation.inject(context.active(), headers);
    },
  };
}
