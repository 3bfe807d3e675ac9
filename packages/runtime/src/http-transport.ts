// The thin I/O edge: one fetch wrapper that adds per-attempt timeouts and
// retries (network errors, 408, 429, 500, 502, 503, 504) with full-jitter
// backoff honouring Retry-After. 409 is never retried: every 409 of this
// API is final (IDEMPOTENCY_CONFLICT, HUMAN_WAIT_CONFLICT, NOT_WAITING_FOR_HUMAN).
import { type Clock, fullJitterDelay } from "./backoff.js";
import { NetworkError, RequestTimeoutError } from "./errors.js";
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
/** The recording's 429 is an hourly limit (RECORDING_RATE_LIMITED): not worth sleeping through. */
export const RECORDING_RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 500, 502, 503, 504]);

export interface TransportSettings {
  readonly fetch: typeof globalThis.fetch;
  readonly timeoutMs: number;
  readonly retry: Required<RetryOptions>;
  readonly clock: Clock;
  readonly log: Log;
  readonly secrets: readonly string[];
}

export interface CallPolicy {
  /** Whether this call may be sent more than once at all. */
  readonly retry: boolean;
  /** For a POST without Idempotency-Key: the call site vouches that resending the identical body is harmless. */
  readonly identicalBodyIsIdempotent?: boolean;
  readonly retryStatuses?: ReadonlySet<number>;
  /** The caller's signal: aborting stops the call without retrying. */
  readonly signal?: AbortSignal | undefined;
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

/**
 * Returns a fetch for openapi-fetch's per-request `fetch` option. The body is
 * read once and the same bytes are sent on every attempt.
 */
export function createRetryingFetch(settings: TransportSettings, policy: CallPolicy) {
  return async (request: Request): Promise<Response> => {
    const { clock, retry, log } = settings;
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const idempotencyKey = request.headers.get("idempotency-key") ?? undefined;
    const resendable = mayResend(request.method, request.headers, policy);
    const retryStatuses = policy.retryStatuses ?? RETRYABLE_STATUSES;
    const deadline = clock.now() + retry.totalTimeoutMs;
    const path = new URL(request.url).pathname;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      const remaining = deadline - clock.now();
      const attemptTimeout = new AbortController();
      const timer = setTimeout(
        () =>
          attemptTimeout.abort(new AttemptTimeout(`no response within ${settings.timeoutMs} ms`)),
        Math.max(1, Math.min(settings.timeoutMs, remaining)),
      );
      const signal = policy.signal
        ? AbortSignal.any([policy.signal, attemptTimeout.signal])
        : attemptTimeout.signal;
      let failure: unknown;
      try {
        const response = await settings.fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: body ?? null,
          signal,
        });
        clearTimeout(timer);
        const canRetry =
          resendable && retryStatuses.has(response.status) && attempt < retry.maxAttempts;
        if (!canRetry) return response;
        const retryAfter = parseRetryAfterSeconds(response.headers.get("retry-after"), clock.now());
        const delay =
          retryAfter !== undefined
            ? retryAfter * 1000
            : fullJitterDelay(attempt - 1, retry.initialDelayMs, retry.maxDelayMs, clock.random);
        if (clock.now() + delay >= deadline) return response;
        await response.body?.cancel();
        log("warn", "retrying after HTTP status", {
          method: request.method,
          path,
          status: response.status,
          attempt,
          delayMs: delay,
        });
        await clock.sleep(delay, policy.signal);
        continue;
      } catch (error) {
        clearTimeout(timer);
        if (policy.signal?.aborted) throw policy.signal.reason;
        failure = error;
      }
      const timedOut = attemptTimeout.signal.aborted;
      const delay = fullJitterDelay(
        attempt - 1,
        retry.initialDelayMs,
        retry.maxDelayMs,
        clock.random,
      );
      if (resendable && attempt < retry.maxAttempts && clock.now() + delay < deadline) {
        log("warn", timedOut ? "retrying after attempt timeout" : "retrying after network error", {
          method: request.method,
          path,
          attempt,
          delayMs: delay,
          error: failure,
        });
        await clock.sleep(delay, policy.signal);
        continue;
      }
      const ErrorType = timedOut ? RequestTimeoutError : NetworkError;
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw new ErrorType({
        status: null,
        code: timedOut ? "TIMEOUT" : "NETWORK_ERROR",
        message: `${request.method} ${path} failed after ${attempt} attempt(s): ${redact(reason, settings.secrets)}`,
        idempotencyKey,
        cause: failure,
        secrets: settings.secrets,
      });
    }
  };
}
