// What the request pipeline tells a tracer, as an interface of its own: the
// core never imports a tracing library, so nothing is loaded and nothing runs
// without one. `@wfr/runtime/opentelemetry` implements it over
// @opentelemetry/api (an optional peer dependency).

/** Span attribute values the runtime sets. Undefined values are left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** The span of one API call, or of one wait over many polls. */
export interface CallSpan {
  /** A point in time inside the span: a retry, a Retry-After wait, a poll. */
  addEvent(name: string, attributes?: SpanAttributes): void;
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed with the (already redacted) library error. */
  fail(error: unknown): void;
}

export type SpanKind = "client" | "internal";

/** A tracer, as the runtime uses one. */
export interface Tracing {
  /**
   * Runs `work` inside a new span, active for everything `work` starts (so the
   * polls of a wait are its children, and `inject` sees it), and ends the span
   * when `work` settles.
   */
  inSpan<T>(
    name: string,
    kind: SpanKind,
    attributes: SpanAttributes,
    work: (span: CallSpan) => Promise<T>,
  ): Promise<T>;
  /** Writes the active context's propagation headers (`traceparent`, `tracestate`) into `headers`. */
  inject(headers: Record<string, string>): void;
}

/**
 * Span attribute names. HTTP ones follow the OpenTelemetry semantic
 * conventions; the run's own live under `wfr.`. Never the idempotency key,
 * the API key or a body: only whether a key was sent.
 */
export const ATTR = {
  method: "http.request.method",
  route: "url.template",
  status: "http.response.status_code",
  serverAddress: "server.address",
  runId: "wfr.run_id",
  workflowId: "wfr.workflow_id",
  attempts: "wfr.attempts",
  idempotencyKeyPresent: "wfr.idempotency_key.present",
  errorCode: "wfr.error.code",
  delayMs: "wfr.retry.delay_ms",
  retryAfter: "wfr.retry.from_retry_after",
  reason: "wfr.retry.reason",
  attempt: "wfr.attempt",
} as const;

/** Span event names. */
export const EVENT = {
  retry: "wfr.retry",
  retryAfterWait: "wfr.retry_after_wait",
  poll: "wfr.poll",
} as const;

/**
 * Runs a wait inside an internal span when tracing is on (plain `work` when
 * not): each poll reported through `onPoll` is a `wfr.poll` event, and the
 * count of polls the span's `wfr.attempts`.
 */
export function tracedWait<T>(
  tracing: Tracing | undefined,
  name: string,
  runId: string,
  work: (onPoll: (status: string) => void) => Promise<T>,
): Promise<T> {
  if (!tracing) return work(() => undefined);
  return tracing.inSpan(name, "internal", { [ATTR.runId]: runId }, async (span) => {
    let polls = 0;
    try {
      return await work((status) => {
        polls += 1;
        span.addEvent(EVENT.poll, { [ATTR.attempt]: polls, "wfr.run.status": status });
      });
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.setAttributes({ [ATTR.attempts]: polls });
    }
  });
}
