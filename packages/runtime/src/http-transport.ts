// The thin I/O edge: one fetch wrapper that bounds every attempt end to end
// (headers AND body) and retries (network errors, 408, 429, 500, 502, 503,
// 504) with full-jitter backoff honouring Retry-After. 409 is never retried:
// every 409 of this API is final (IDEMPOTENCY_CONFLICT, HUMAN_WAIT_CONFLICT,
// NOT_WAITING_FOR_HUMAN).
import { CODE } from "@wfr/protocol";
import { type Clock, fullJitterDelay } from "./backoff.js";
import {
  InvalidResponseError,
  NetworkError,
  RequestAbortedError,
  RequestTimeoutError,
} from "./errors.js";
import type { Log } from "./logger.js";
import { redact } from "./redact.js";
import { parseRetryAfterSeconds } from "./retry-after.js";

export interface RetryOptions {
  /** Attempts including the first. Default 4. */
  readonly maxAttempts?: number;
  /** Backoff ceiling of the first retry. Default 250 ms. */
  readonly initialDelayMs?: number;
  /** Backoff ceiling cap. Default 8,000 ms. */
  readonly maxDelayMs?: number;
  /** Budget for all attempts and waits of one call. Default 60,000 ms. */
  readonly totalTimeoutMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 4,
  initialDelayMs: 250,
  maxDelayMs: 8_000,
  totalTimeoutMs: 60_000,
};

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

export interface TransportSettings {
  readonly fetch: typeof globalThis.fetch;
  readonly timeoutMs: number;
  readonly retry: Required<RetryOptions>;
  readonly clock: Clock;
  readonly log: Log;
  readonly secrets: readonly string[];
  readonly userAgent: string;
}

/** Per-request options accepted by every client method. */
export interface RequestOptions {
  /** Aborts the call (a library `RequestAbortedError`; a launch's error carries its idempotency key). */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt limit covering response headers and the whole body. */
  readonly timeoutMs?: number | undefined;
  /** Retries after the first attempt (so attempts = maxRetries + 1). */
  readonly maxRetries?: number | undefined;
  /** Extra request headers (Authorization cannot be overridden). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

export interface CallPolicy extends RequestOptions {
  /** Whether this call may be sent more than once at all. */
  readonly retry: boolean;
  /** For a POST without Idempotency-Key: the call site vouches that resending the identical body is harmless. */
  readonly identicalBodyIsIdempotent?: boolean;
  readonly retryStatuses?: ReadonlySet<number>;
  /** Prebuilt request bytes, sent as they are on every attempt (no copy through a Request). */
  readonly body?: Uint8Array<ArrayBuffer> | undefined;
  /**
   * Leave the response body unread (the recording). Otherwise the body is
   * read inside the attempt's timer, so a stalled body times out like
   * stalled headers do, and a 2xx body that is not JSON is refused here.
   */
  readonly streamBody?: boolean;
}

/**
 * A POST is resent only when resending cannot create new work: it carries an
 * Idempotency-Key (launch) or the call site vouches that the identical body
 * is idempotent (human-input: "An identical answer to the same checkpoint
 * is idempotent").
 */
export function mayResend(method: string, headers: Headers, policy: CallPolicy): boolean {
  if (!policy.retry) return false;
  if (method === "GET" || method === "HEAD") return true;
  return headers.has("idempotency-key") || policy.identicalBodyIsIdempotent === true;
}

class AttemptTimeout extends Error {
  override name = "AttemptTimeout";
}

const STREAM_CHUNK_BYTES = 1024 * 1024;

/**
 * Large bodies go as a stream of views over the same bytes: fetch copies a
 * Uint8Array body whole (per the Fetch spec), which for a 36 MiB launch is
 * one more copy at the peak. Content-Length is set so the server still sees
 * the size up front.
 */
function bodyInit(body: Uint8Array<ArrayBuffer> | undefined, headers: Headers): RequestInit {
  if (!body) return { body: null };
  if (body.byteLength < 4 * STREAM_CHUNK_BYTES) return { body };
  headers.set("content-length", String(body.byteLength));
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= body.byteLength) return controller.close();
      const end = Math.min(offset + STREAM_CHUNK_BYTES, body.byteLength);
      controller.enqueue(body.subarray(offset, end));
      offset = end;
    },
  });
  return { body: stream, duplex: "half" } as RequestInit;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Reads the whole body, or rejects as soon as `signal` aborts (a stalled body). */
async function readBodyWithin(
  response: Response,
  signal: AbortSignal,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!response.body) return new Uint8Array(0);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return new Uint8Array(await Promise.race([response.arrayBuffer(), aborted]));
  } catch (error) {
    response.body.cancel().catch(() => undefined);
    throw error;
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/**
 * A stream that errors when no chunk arrives for `idleMs` (the recording,
 * whose body is handed to the caller): a stalled download ends in a
 * RequestTimeoutError instead of hanging the reader.
 */
export function withIdleTimeout(
  stream: ReadableStream<Uint8Array>,
  idleMs: number,
  onTimeout: () => Error,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), idleMs);
      });
      try {
        const { done, value } = await Promise.race([reader.read(), idle]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        reader.cancel().catch(() => undefined);
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function isJsonText(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns a fetch for openapi-fetch's per-request `fetch` option (or to be
 * called directly with a Request). The body is read once and the same bytes
 * are sent on every attempt.
 */
export function createRetryingFetch(settings: TransportSettings, policy: CallPolicy) {
  return async (request: Request): Promise<Response> => {
    const { clock, log } = settings;
    const body =
      policy.body ?? (request.body ? new Uint8Array(await request.arrayBuffer()) : undefined);
    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries(policy.headers ?? {})) {
      if (name.toLowerCase() !== "authorization") headers.set(name, value);
    }
    if (!headers.has("user-agent")) headers.set("user-agent", settings.userAgent);
    const idempotencyKey = headers.get("idempotency-key") ?? undefined;
    const resendable = mayResend(request.method, headers, policy);
    const retryStatuses = policy.retryStatuses ?? RETRYABLE_STATUSES;
    const maxAttempts =
      policy.maxRetries !== undefined ? policy.maxRetries + 1 : settings.retry.maxAttempts;
    const timeoutMs = policy.timeoutMs ?? settings.timeoutMs;
    const deadline = clock.now() + settings.retry.totalTimeoutMs;
    const path = new URL(request.url).pathname;
    const fail = (ErrorType: typeof NetworkError, code: string, reason: string, cause: unknown) =>
      new ErrorType({
        status: null,
        code,
        message: `${request.method} ${path} ${reason}`,
        idempotencyKey,
        cause,
        secrets: settings.secrets,
      });
    let attempt = 0;
    for (;;) {
      attempt += 1;
      const started = Date.now();
      const remaining = deadline - clock.now();
      const attemptTimeout = new AbortController();
      const timer = setTimeout(
        () =>
          attemptTimeout.abort(new AttemptTimeout(`no complete response within ${timeoutMs} ms`)),
        Math.max(1, Math.min(timeoutMs, remaining)),
      );
      const signal = policy.signal
        ? AbortSignal.any([policy.signal, attemptTimeout.signal])
        : attemptTimeout.signal;
      let failure: unknown;
      try {
        let response = await settings.fetch(request.url, {
          method: request.method,
          headers,
          ...bodyInit(body, headers),
          signal,
        });
        const canRetry = resendable && retryStatuses.has(response.status) && attempt < maxAttempts;
        if (!canRetry && !policy.streamBody) {
          const bytes = await readBodyWithin(response, signal);
          if (response.ok && bytes.byteLength > 0 && !isJsonText(bytes)) {
            throw new InvalidResponseError({
              status: response.status,
              code: CODE.INVALID_RESPONSE,
              message: `${request.method} ${path} answered HTTP ${response.status} with a body that is not JSON (content-type ${response.headers.get("content-type") ?? "none"}); a proxy may be in the way`,
              idempotencyKey,
              requestId: response.headers.get("x-request-id") ?? undefined,
              secrets: settings.secrets,
            });
          }
          response = new Response(NULL_BODY_STATUSES.has(response.status) ? null : bytes, {
            status: response.status,
            statusText: response.statusText,
            headers: response.headers,
          });
        }
        clearTimeout(timer);
        log("debug", "request", {
          method: request.method,
          path,
          status: response.status,
          ms: Date.now() - started,
          attempt,
        });
        if (!canRetry) return response;
        const retryAfter = parseRetryAfterSeconds(response.headers.get("retry-after"), clock.now());
        const delay =
          retryAfter !== undefined
            ? retryAfter * 1000
            : fullJitterDelay(
                attempt - 1,
                settings.retry.initialDelayMs,
                settings.retry.maxDelayMs,
                clock.random,
              );
        if (clock.now() + delay >= deadline) {
          // Out of budget: hand back this answer, its body bounded like any other.
          const bodySignal = policy.signal
            ? AbortSignal.any([policy.signal, AbortSignal.timeout(timeoutMs)])
            : AbortSignal.timeout(timeoutMs);
          const bytes = await readBodyWithin(response, bodySignal).catch(() => new Uint8Array(0));
          return new Response(bytes, { status: response.status, headers: response.headers });
        }
        await response.body?.cancel();
        log("warn", "retrying after HTTP status", {
          method: request.method,
          path,
          status: response.status,
          attempt,
          delayMs: delay,
        });
        await sleepOrAbort(clock, delay, policy.signal, () =>
          fail(RequestAbortedError, CODE.ABORTED, "was aborted", policy.signal?.reason),
        );
        continue;
      } catch (error) {
        clearTimeout(timer);
        if (error instanceof InvalidResponseError || error instanceof RequestAbortedError)
          throw error;
        if (policy.signal?.aborted)
          throw fail(RequestAbortedError, CODE.ABORTED, "was aborted", policy.signal.reason);
        failure = error;
      }
      const timedOut = attemptTimeout.signal.aborted;
      const delay = fullJitterDelay(
        attempt - 1,
        settings.retry.initialDelayMs,
        settings.retry.maxDelayMs,
        clock.random,
      );
      if (resendable && attempt < maxAttempts && clock.now() + delay < deadline) {
        log("warn", timedOut ? "retrying after attempt timeout" : "retrying after network error", {
          method: request.method,
          path,
          attempt,
          delayMs: delay,
          error: failure,
        });
        await sleepOrAbort(clock, delay, policy.signal, () =>
          fail(RequestAbortedError, CODE.ABORTED, "was aborted", policy.signal?.reason),
        );
        continue;
      }
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw fail(
        timedOut ? RequestTimeoutError : NetworkError,
        timedOut ? CODE.TIMEOUT : CODE.NETWORK_ERROR,
        `failed after ${attempt} attempt(s): ${redact(reason, settings.secrets)}`,
        failure,
      );
    }
  };
}

async function sleepOrAbort(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  aborted: () => Error,
): Promise<void> {
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw aborted();
    throw error;
  }
}
