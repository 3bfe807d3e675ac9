// The client's options and the checks made once when a client is created.
import { CODE } from "@wfr/protocol";
import type { Clock } from "./backoff.js";
import { InvalidOptionError } from "./errors.js";
import type { Logger } from "./logger.js";
import type { RetryOptions } from "./retry-rules.js";
import type { Tracing } from "./tracing.js";
import { checkBaseUrl } from "./url-checks.js";
import { VERSION } from "./version.js";

/** The environment object generated code exports. */
export interface EnvironmentInfo {
  readonly name: string;
  readonly workspace: string;
  readonly baseUrl: string;
}

export interface ClientOptions {
  /** API base ending in /api/v1; https, or http to a loopback host. Give this or `environment`. */
  readonly baseUrl?: string;
  /** The generated environment object; its baseUrl is used. */
  readonly environment?: EnvironmentInfo;
  /** Workspace API key. Sent only as `Authorization: Bearer`, redacted from errors and logs. */
  readonly apiKey: string;
  /** A Web fetch that honours `init.signal` (the attempt limit acts through it); defaults to globalThis.fetch. */
  readonly fetch?: typeof globalThis.fetch;
  /** Per-attempt timeout covering response headers and the whole body. Default 30,000 ms. */
  readonly timeoutMs?: number;
  /** Retry rules (retry-rules.ts): attempts, backoff, total budget, longest Retry-After waited out. */
  readonly retry?: RetryOptions;
  readonly logger?: Logger;
  /** Time source for retries and polling (tests). */
  readonly clock?: Clock;
  /**
   * Origins of the service's file storage (`https://files.example.com`) that
   * `downloadFileOutput` may fetch from, besides the environment's own root.
   */
  readonly fileOrigins?: readonly string[];
  /**
   * Spans of every call and `traceparent` on every request. Default: through
   * the tracer provider registered with `@opentelemetry/api` 1.x, if any
   * (found without importing the API; nothing runs without one). `false`:
   * never traced. Or a tracer of your own: `openTelemetry({ tracer })` from
   * `@wfr/runtime/opentelemetry`.
   */
  readonly tracing?: Tracing | false;
}

/** Sent as User-Agent on every request. */
export const RUNTIME_VERSION: string = VERSION;
export const USER_AGENT = `wfr-runtime/${RUNTIME_VERSION}`;

/**
 * An API key goes into an HTTP header: visible ASCII only. Checked once when
 * the client is created; the message names the position, never the key.
 */
export function checkApiKey(apiKey: unknown): void {
  if (typeof apiKey !== "string" || apiKey.length === 0) {
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_API_KEY,
      message: "apiKey is required",
    });
  }
  for (let index = 0; index < apiKey.length; index += 1) {
    const code = apiKey.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) {
      throw new InvalidOptionError({
        status: null,
        code: CODE.INVALID_API_KEY,
        message: `apiKey has a character that cannot be sent in a header (position ${index + 1} of ${apiKey.length}); check for a stray newline or space`,
      });
    }
  }
}

/** Spec, Launch body: "Must be a JSON object (null, array, string, number, boolean are invalid)". */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The checked API base of the options (baseUrl, or the environment's). */
export function resolveBaseUrl(options: ClientOptions): string {
  const raw = options.baseUrl ?? options.environment?.baseUrl;
  if (!raw) {
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_BASE_URL,
      message: "Give baseUrl or environment",
    });
  }
  const checked = checkBaseUrl(raw);
  if (!checked.ok)
    throw new InvalidOptionError({
      status: null,
      code: CODE.INVALID_BASE_URL,
      message: checked.reason,
    });
  return checked.baseUrl;
}
