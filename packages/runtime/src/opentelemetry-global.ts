// Tracing with no option at all: when an application has registered an
// OpenTelemetry tracer provider, the runtime finds it where @opentelemetry/api
// keeps its globals and traces through it. Nothing is imported (the core runs
// on web globals only, workerd included): one symbol-keyed read of globalThis
// per call, and without a registration nothing else runs.
//
// The shapes below are the parts of @opentelemetry/api 1.x the runtime calls,
// as structural types; `@wfr/runtime/opentelemetry` hands the imported API to
// the same `tracingOver`, so both ways trace identically.
import { RUNTIME_VERSION } from "./client-options.js";
import type { CallSpan, SpanAttributes, SpanKind, Tracing } from "./tracing.js";

type AttributeValues = Record<string, string | number | boolean>;

/** The part of an OpenTelemetry Span the runtime calls. */
export interface OtelSpanLike {
  addEvent(name: string, attributes?: AttributeValues): unknown;
  setAttributes(attributes: AttributeValues): unknown;
  setAttribute(name: string, value: string): unknown;
  recordException(exception: { name: string; message: string }): void;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry Tracer the runtime calls. */
export interface OtelTracerLike {
  startActiveSpan<F extends (span: OtelSpanLike) => unknown>(
    name: string,
    options: { kind: number; attributes: AttributeValues },
    fn: F,
  ): ReturnType<F>;
}

interface OtelTracerProviderLike {
  getTracer(name: string, version?: string): OtelTracerLike;
}

interface OtelContextManagerLike {
  active(): unknown;
}

interface OtelPropagatorLike {
  inject(
    context: unknown,
    carrier: Record<string, string>,
    setter: { set(carrier: Record<string, string>, key: string, value: string): void },
  ): void;
}

/** What @opentelemetry/api 1.x stores under its global symbol (internal/global-utils). */
interface OtelGlobals {
  readonly version?: unknown;
  readonly trace?: OtelTracerProviderLike;
  readonly context?: OtelContextManagerLike;
  readonly propagation?: OtelPropagatorLike;
}

// The API's own numbering (SpanKind, SpanStatusCode), stable across 1.x.
const SPAN_KIND_INTERNAL = 0;
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/** The key @opentelemetry/api 1.x registers its globals under: `opentelemetry.js.api.<major>`. */
const GLOBAL_KEY = Symbol.for("opentelemetry.js.api.1");
/**
 * The oldest 1.x minor the runtime calls into (the peer dependency's range).
 * As the API's own check (internal/semver `isCompatible`): same major, the
 * global's minor at least ours, and no prerelease (those must match exactly).
 */
const MIN_MINOR = 3;
const VERSION = /^1\.(\d+)\.\d+$/;

/** Whether a registered API of this version offers everything the runtime calls. */
export function isCompatibleApiVersion(version: unknown): boolean {
  if (typeof version !== "string") return false;
  const match = VERSION.exec(version);
  return match !== null && Number(match[1]) >= MIN_MINOR;
}

/** Attribute values without the undefined ones (OpenTelemetry drops them with a warning). */
function defined(attributes: SpanAttributes | undefined): AttributeValues {
  const out: AttributeValues = {};
  if (!attributes) return out;
  for (const name in attributes) {
    const value = attributes[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function callSpan(span: OtelSpanLike): CallSpan {
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
      span.setStatus({ code: STATUS_ERROR, message });
    },
  };
}

/** How `tracingOver` reaches OpenTelemetry: a tracer, and propagation into headers. */
interface OtelAccess {
  readonly tracer: () => OtelTracerLike;
  readonly inject: (headers: Record<string, string>) => void;
}

/** The runtime's Tracing over an OpenTelemetry tracer and propagator. */
export function tracingOver(access: OtelAccess): Tracing {
  return {
    inSpan<T>(
      name: string,
      kind: SpanKind,
      attributes: SpanAttributes,
      work: (span: CallSpan) => Promise<T>,
    ): Promise<T> {
      return access.tracer().startActiveSpan(
        name,
        {
          kind: kind === "client" ? SPAN_KIND_CLIENT : SPAN_KIND_INTERNAL,
          attributes: defined(attributes),
        },
        async (span: OtelSpanLike) => {
          try {
            return await work(callSpan(span));
          } finally {
            span.end();
          }
        },
      );
    },
    inject: access.inject,
  };
}

const headerSetter = {
  set(carrier: Record<string, string>, key: string, value: string) {
    carrier[key] = value;
  },
};

function registeredGlobals(): OtelGlobals | undefined {
  return (globalThis as { [GLOBAL_KEY]?: OtelGlobals })[GLOBAL_KEY];
}

/** Into the active context's headers, when a context manager and a propagator are registered. */
function injectRegistered(headers: Record<string, string>): void {
  // Read at injection: a context manager or propagator registered after the provider is used too.
  const globals = registeredGlobals();
  const context = globals?.context;
  const propagation = globals?.propagation;
  if (context && propagation) propagation.inject(context.active(), headers, headerSetter);
}

// The last registration seen, so a hot client checks the version and asks for a tracer once.
let seenProvider: OtelTracerProviderLike | undefined;
let seenVersion: unknown;
let seenTracing: Tracing | undefined;

/**
 * The Tracing of the tracer provider registered with @opentelemetry/api 1.x
 * (`trace.setGlobalTracerProvider`, which `NodeSDK.start()` calls), or
 * undefined when none is registered or the registered API is too old. Read
 * per call, so a provider registered after the client was created is used,
 * and one disabled is no longer.
 */
function registeredOpenTelemetry(): Tracing | undefined {
  const globals = registeredGlobals();
  const provider = globals?.trace;
  if (!provider) return undefined;
  if (provider !== seenProvider || globals.version !== seenVersion) {
    seenProvider = provider;
    seenVersion = globals.version;
    seenTracing = undefined;
    if (isCompatibleApiVersion(seenVersion)) {
      const tracer = provider.getTracer("@wfr/runtime", RUNTIME_VERSION);
      seenTracing = tracingOver({ tracer: () => tracer, inject: injectRegistered });
    }
  }
  return seenTracing;
}

/**
 * The tracing of a call: the client's own, none with `tracing: false`, else
 * the registered OpenTelemetry provider's (if any).
 */
export function activeTracing(option: Tracing | false | undefined): Tracing | undefined {
  if (option === false) return undefined;
  return option ?? registeredOpenTelemetry();
}
