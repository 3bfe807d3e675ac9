// Polling: "Callers poll with delay and backoff" (GET /runs/{runId}).
import { type Clock, fullJitterDelay } from "./backoff.js";
import { WorkflowRunApiError } from "./errors.js";
import { isKnownStatus, isTerminalStatus } from "./run-status.js";
import type { RunEnvelope } from "./wire-types.js";

export interface WaitOptions {
  /** First backoff ceiling. Default 1,000 ms. */
  readonly initialIntervalMs?: number;
  /** Backoff ceiling cap. Default 15,000 ms. */
  readonly maxIntervalMs?: number;
  /** Give up (WaitTimeoutError) after this long. Default 30 minutes. */
  readonly timeoutMs?: number;
  /**
   * Stops watching. It does NOT cancel the run: the API has no cancellation
   * endpoint ("There is no public run-cancellation endpoint").
   */
  readonly signal?: AbortSignal;
  /** Called with every envelope read. */
  readonly onUpdate?: (run: RunEnvelope) => void;
  /** Keep polling through waiting_for_human_live instead of returning. Default false. */
  readonly keepWaitingOnHuman?: boolean;
}

/** waitForRun ran out of `timeoutMs`; the run carries on. */
export class WaitTimeoutError extends WorkflowRunApiError {
  override name = "WaitTimeoutError";
}

export interface WaitDependencies {
  readonly getRun: (runId: string, signal?: AbortSignal) => Promise<RunEnvelope>;
  /** True when the result endpoint answers 200 (terminal) for the run. */
  readonly resultIsTerminal: (runId: string, signal?: AbortSignal) => Promise<boolean>;
  readonly clock: Clock;
}

/** Why polling stops on this envelope, or undefined to keep polling. */
export async function stopReason(
  run: RunEnvelope,
  options: WaitOptions,
  resultIsTerminal: () => Promise<boolean>,
): Promise<"terminal" | "waiting_for_human" | undefined> {
  const status = String(run.status);
  if (isTerminalStatus(status)) return "terminal";
  if (status === "waiting_for_human_live")
    return options.keepWaitingOnHuman ? undefined : "waiting_for_human";
  if (!isKnownStatus(status) && (await resultIsTerminal())) return "terminal";
  return undefined;
}

/**
 * Polls the run with exponential backoff and full jitter until it is
 * terminal, or waits for a person (unless keepWaitingOnHuman), and returns
 * the last envelope. A status it does not know is decided by the result
 * endpoint: 200 means terminal.
 */
export async function waitForRunWith(
  deps: WaitDependencies,
  runId: string,
  options: WaitOptions = {},
): Promise<RunEnvelope> {
  const { clock } = deps;
  const initial = options.initialIntervalMs ?? 1_000;
  const max = options.maxIntervalMs ?? 15_000;
  const deadline = clock.now() + (options.timeoutMs ?? 30 * 60_000);
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw options.signal.reason;
    const run = await deps.getRun(runId, options.signal);
    options.onUpdate?.(run);
    const reason = await stopReason(run, options, () =>
      deps.resultIsTerminal(runId, options.signal),
    );
    if (reason) return run;
    const delay = fullJitterDelay(attempt, initial, max, clock.random);
    if (clock.now() + delay > deadline) {
      throw new WaitTimeoutError({
        status: null,
        code: "WAIT_TIMEOUT",
        message: `Run ${runId} was still ${String(run.status)} when waiting timed out; the run itself continues`,
      });
    }
    await clock.sleep(delay, options.signal);
  }
}
