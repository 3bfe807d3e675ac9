// The pipeline's retry rules, each on its own (src/retry-rules.ts).
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY,
  mayResend,
  RETRYABLE_STATUSES,
  retryDelay,
  shouldRetry,
} from "../src/retry-rules.js";

describe("mayResend: which calls may be sent twice", () => {
  it("a GET or HEAD always; a POST only with an idempotency key or a vouched identical body", () => {
    expect(mayResend("GET", false, { retry: true })).toBe(true);
    expect(mayResend("HEAD", false, { retry: true })).toBe(true);
    expect(mayResend("POST", false, { retry: true })).toBe(false);
    expect(mayResend("POST", true, { retry: true })).toBe(true);
    expect(mayResend("POST", false, { retry: true, identicalBodyIsIdempotent: true })).toBe(true);
  });

  it("a DELETE is not resent without a key (a second delete of a grant would answer 404)", () => {
    expect(mayResend("DELETE", false, { retry: true })).toBe(false);
  });

  it("nothing is resent when the call site says retry: false", () => {
    expect(mayResend("GET", true, { retry: false })).toBe(false);
  });

  it("reads the key from headers too", () => {
    expect(mayResend("POST", new Headers({ "idempotency-key": "k" }), { retry: true })).toBe(true);
    expect(mayResend("POST", new Headers(), { retry: true })).toBe(false);
  });
});

describe("shouldRetry: which outcomes are worth another attempt", () => {
  const base = { attempt: 1, maxAttempts: 4, resendable: true };

  it("408, 429, 500, 502, 503 and 504 are retried", () => {
    for (const status of [408, 429, 500, 502, 503, 504])
      expect(shouldRetry({ ...base, status }), String(status)).toBe(true);
    expect([...RETRYABLE_STATUSES].sort()).toEqual([408, 429, 500, 502, 503, 504]);
  });

  it("409 never, even when a call site lists it", () => {
    expect(shouldRetry({ ...base, status: 409 })).toBe(false);
    expect(shouldRetry({ ...base, status: 409, retryStatuses: new Set([409]) })).toBe(false);
  });

  it("answers and other client errors are final", () => {
    for (const status of [200, 201, 202, 204, 400, 401, 403, 404, 410, 413, 422, 501])
      expect(shouldRetry({ ...base, status }), String(status)).toBe(false);
  });

  it("a call site's own statuses replace the default set (the recording retries 202, not 429)", () => {
    const recording = new Set([202, 500, 503]);
    expect(shouldRetry({ ...base, status: 202, retryStatuses: recording })).toBe(true);
    expect(shouldRetry({ ...base, status: 429, retryStatuses: recording })).toBe(false);
  });

  it("an answer whose body cannot be read (a 2xx cut by a proxy) is retried like no answer, when resendable", () => {
    expect(shouldRetry({ ...base, status: 202, unreadable: true })).toBe(true);
    expect(shouldRetry({ ...base, status: 202, unreadable: true, resendable: false })).toBe(false);
    expect(shouldRetry({ ...base, status: 202, unreadable: true, attempt: 4 })).toBe(false);
  });

  it("a network failure or timeout (no status) is retried", () => {
    expect(shouldRetry({ ...base, status: undefined })).toBe(true);
  });

  it("nothing is retried on the last attempt or when the call may not be resent", () => {
    expect(shouldRetry({ ...base, status: 503, attempt: 4 })).toBe(false);
    expect(shouldRetry({ ...base, status: 503, resendable: false })).toBe(false);
    expect(shouldRetry({ ...base, status: undefined, resendable: false })).toBe(false);
  });
});

describe("retryDelay: how long before the next attempt", () => {
  const input = {
    attempt: 1,
    retryAfterSeconds: undefined,
    retry: DEFAULT_RETRY,
    random: () => 0.5,
    remainingMs: 60_000,
  };

  it("Retry-After is honoured as given (delta seconds)", () => {
    expect(retryDelay({ ...input, retryAfterSeconds: 3 })).toEqual({
      retry: true,
      delayMs: 3000,
      fromRetryAfter: true,
    });
    expect(retryDelay({ ...input, retryAfterSeconds: 0 })).toMatchObject({ delayMs: 0 });
  });

  it("a Retry-After over maxRetryAfterMs is capped by not waiting: the answer is handed back", () => {
    expect(retryDelay({ ...input, retryAfterSeconds: 61 })).toEqual({
      retry: false,
      reason: "retry-after-too-long",
    });
    expect(
      retryDelay({
        ...input,
        retryAfterSeconds: 61,
        retry: { ...DEFAULT_RETRY, maxRetryAfterMs: 120_000 },
        remainingMs: 300_000,
      }),
    ).toMatchObject({ retry: true, delayMs: 61_000 });
  });

  it("a wait that would pass the call's total budget is not started", () => {
    expect(retryDelay({ ...input, retryAfterSeconds: 10, remainingMs: 9_000 })).toEqual({
      retry: false,
      reason: "out-of-time",
    });
    expect(retryDelay({ ...input, remainingMs: 10 })).toEqual({
      retry: false,
      reason: "out-of-time",
    });
  });

  it("without Retry-After: full-jitter exponential backoff under maxDelayMs", () => {
    expect(retryDelay({ ...input, attempt: 1 })).toMatchObject({ delayMs: 125 });
    expect(retryDelay({ ...input, attempt: 3 })).toMatchObject({ delayMs: 500 });
    expect(retryDelay({ ...input, attempt: 20, random: () => 0.999 })).toMatchObject({
      delayMs: 7992,
      fromRetryAfter: false,
    });
  });
});

describe("mayResend: resending a POST", () => {
  it("never resends a POST without an idempotency key unless the identical body is idempotent (human-input)", () => {
    const none = new Headers();
    const keyed = new Headers({ "idempotency-key": "k" });
    expect(mayResend("POST", none, { retry: true })).toBe(false);
    expect(mayResend("POST", keyed, { retry: true })).toBe(true);
    expect(mayResend("POST", none, { retry: true, identicalBodyIsIdempotent: true })).toBe(true);
    expect(mayResend("GET", none, { retry: true })).toBe(true);
    expect(mayResend("GET", none, { retry: false })).toBe(false);
  });
});
