// The retry rules of the request pipeline, as named pure functions: which
// calls may be sent again at all, which answers are worth another attempt,
// and how long to wait before it. The pipeline (pipeline.ts) only asks them.
import { fullJitterDelay } from "./backoff.js";

export interface RetryOptions {
  /** Attempts including the first. Default 4. */
  readonly maxAttempts?: number;
  /** Backoff ceiling of the first retry. Default 250 ms. */
  readonly initialDelayMs?: number;
  /** Backoff ceiling cap. Default 8,000 ms. */
  readonly maxDelayMs?: number;
  /** Budget for all attempts and waits of one call. Default 60,000 ms. */
  readonly totalTimeoutMs?: number;
  /**
   * Longest Retry-After this client waits out. A server asking for longer
   * gets its answer handed back as the typed error (with
   * `retryAfterSeconds`) instead of a shorter wait than it asked for.
   * Default 60,000 ms.
   */
  readonly maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 4,
  initialDelayMs: 250,
  maxDelayMs: 8_000,
  totalTimeoutMs: 60_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Statuses worth another attempt: 408, 429 and the transient 5xx. 409 is
 * never among them: every 409 of this API is final (IDEMPOTENCY_CONFLICT,
 * HUMAN_WAIT_CONFLICT, NOT_WAITING_FOR_HUMAN; docs/service-rules.md#retries).
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** What a call site says about resending its request. */
interface ResendPolicy {
  /** Whether this call may be sent more than once at all. */
  readonly retry: boolean;
  /** For a POST without Idempotency-Key: the call site vouches that resending the identical body is harmless. */
  readonly identicalBodyIsIdempotent?: boolean | undefined;
}

/**
 * A GET or HEAD is resent freely; a POST or DELETE only when resending cannot
 * create new work: it carries an idempotency key (launch, in the header or
 * in the body) or the call site vouches that the identical body is
 * idempotent (human-input: "An identical answer to the same checkpoint is
 * idempotent").
 */
export function mayResend(
  method: string,
  hasIdempotencyKey: boolean | Headers,
  policy: ResendPolicy,
): boolean {
  if (!policy.retry) return false;
  if (method === "GET" || method === "HEAD") return true;
  const keyed =
    typeof hasIdempotencyKey === "boolean"
      ? hasIdempotencyKey
      : hasIdempotencyKey.has("idempotency-key");
  return keyed || policy.identicalBodyIsIdempotent === true;
}

/** Everything `shouldRetry` weighs about one finished attempt. */
interface AttemptOutcome {
  /** The HTTP status, or undefined when the attempt failed without one (network error, timeout). */
  readonly status: number | undefined;
  /** The attempt that just finished, from 1. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** `mayResend` of the call. */
  readonly resendable: boolean;
  /** Statuses worth another attempt for this call. Default RETRYABLE_STATUSES. */
  readonly retryStatuses?: ReadonlySet<number> | undefined;
  /**
   * The status was the call's answer but its body could not be read (not
   * JSON, or empty where JSON belongs: a proxy cut it). The request may have
   * done its work and the call has no answer, as after a network error.
   */
  readonly unreadable?: boolean | undefined;
}

/**
 * Whether the outcome is worth another attempt (before the wait is weighed).
 * No answer (a network error, a timeout, an unreadable body) is; a resend is
 * safe only for a call `mayResend` allows, a launch by its idempotency key
 * (docs/service-rules.md#idempotent-launch: a retry after a lost response
 * returns the original run).
 */
export function shouldRetry(outcome: AttemptOutcome): boolean {
  if (!outcome.resendable || outcome.attempt >= outcome.maxAttempts) return false;
  if (outcome.status === undefined || outcome.unreadable === true) return true;
  if (outcome.status === 409) return false;
  return (outcome.retryStatuses ?? RETRYABLE_STATUSES).has(outcome.status);
}

/** Everything `retryDelay` weighs. */
interface DelayInput {
  /** The attempt that just finished, from 1. */
  readonly attempt: number;
  /** Parsed Retry-After of the answer, when it had one. */
  readonly retryAfterSeconds: number | undefined;
  readonly retry: Required<RetryOptions>;
  readonly random: () => number;
  /** Milliseconds left of the call's `totalTimeoutMs`. */
  readonly remainingMs: number;
}

/** How long to wait before the next attempt, or why not to make one. */
type RetryDelay =
  | { readonly retry: true; readonly delayMs: number; readonly fromRetryAfter: boolean }
  | { readonly retry: false; readonly reason: "retry-after-too-long" | "out-of-time" };

/**
 * Retry-After is honoured as given when the server sends it, up to
 * `maxRetryAfterMs`; without it, full-jitter exponential backoff. A wait
 * that would pass the call's total budget is not started.
 */
export function retryDelay(input: DelayInput): RetryDelay {
  const { retry } = input;
  if (input.retryAfterSeconds !== undefined) {
    const delayMs = Math.ceil(input.retryAfterSeconds * 1000);
    if (delayMs > retry.maxRetryAfterMs) return { retry: false, reason: "retry-after-too-long" };
    if (delayMs >= input.remainingMs) return { retry: false, reason: "out-of-time" };
    return { retry: true, delayMs, fromRetryAfter: true };
  }
  const delayMs = fullJitterDelay(
    input.attempt - 1,
    retry.initialDelayMs,
    retry.maxDelayMs,
    input.random,
  );
  if (delayMs >= input.remainingMs) return { retry: false, reason: "out-of-time" };
  return { retry: true, delayMs, fromRetryAfter: false };
}
