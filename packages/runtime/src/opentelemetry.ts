// `@wfr/runtime/opentelemetry`: the runtime's Tracing over @opentelemetry/api,
// an optional peer dependency, for a tracer of the caller's choosing. Without
// any option a client already traces through a registered tracer provider
// (opentelemetry-global.ts); this entry is for a specific tracer, or for
// tracing through the API's own functions.
//
//   import { openTelemetry } from "@wfr/runtime/opentelemetry";
//   const wfr = createClient({ baseUrl, apiKey, tracing: openTelemetry({ tracer }) });
import { context, propagation, type Tracer, trace } from "@opentelemetry/api";
import { RUNTIME_VERSION } from "./client-options.js";
import { type OtelTracerLike, tracingOver } from "./opentelemetry-global.js";
import type { Tracing } from "./tracing.js";

export interface OpenTelemetryOptions {
  /** The tracer to use. Default: the global provider's tracer named "@wfr/runtime". */
  readonly tracer?: Tracer;
}

/**
 * Client spans for every API call (method, route template, status, run and
 * workflow id, attempts, whether an idempotency key was sent), retries and
 * Retry-After waits as span events, a parent span over the polls of
 * `waitForRun` / `waitForResult`, and `traceparent` on every request (with
 * the global propagator, W3C Trace Context in the SDK's defaults).
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Tracing {
  return tracingOver({
    // Asked per span, so a provider registered after the client is created is used.
    tracer: () =>
      (options.tracer ?? trace.getTracer("@wfr/runtime", RUNTIME_VERSION)) as OtelTracerLike,
    inject: (headers) => propagation.inject(context.active(), headers),
  });
}
