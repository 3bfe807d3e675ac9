/** What a sleep is for, for a clock that knows more than the time (@wfr/testing's). */
export interface SleepOptions {
  /**
   * Set by polling (waitForRun, watchRun): the caller sleeps only to read again what it does not
   * change, so waking later is as good as long as nothing it reads has changed meanwhile, until
   * this time on the same clock (its own deadline; `Infinity` for none). A clock may then let
   * the sleep run past `ms`, never past this time; the system clock wakes at `ms`.
   */
  readonly pollingUntil?: number;
}

/** Injected time sources, so polling and retries are testable without real waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void>;
  random(): number;
}

/** Sleeps `ms`, rejecting with the signal's reason as soon as it aborts. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: abortableSleep,
  random: Math.random,
};

/**
 * "Full jitter" exponential backoff: a uniformly random delay between 0 and
 * min(maxMs, initialMs * 2^attempt), attempt counting from 0.
 */
export function fullJitterDelay(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number,
): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
