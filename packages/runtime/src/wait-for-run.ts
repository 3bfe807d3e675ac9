// Polling: "Callers poll with delay and backoff" (GET /runs/{runId}).
import { CODE, RUN_STATUS } from "@wfr/protocol";
import { type Clock, fullJitterDelay } from "./backoff.js";
import { WorkflowRunApiError } from "./errors.js";
import { isTerminalStatus } from "./run-status.js";
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
  /**
   * Checkpoints already answered by this caller: a wait at one of them is
   * not a new wait (the answer may not be acknowledged yet). A different
   * checkpoint_id is a new wait and stops polling.
   */
  readonly answeredCheckpointIds?: Iterable<string>;
  /**
   * Per-request options of each poll (GET /runs/{runId}, and /result for an
   * unrecognized status): the same `maxRetries` and `headers` every method
   * takes. (`timeoutMs` and `signal` above bound the whole wait; each poll is
   * also cut at the wait's deadline.)
   */
  readonly maxRetries?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** waitForRun ran out of `timeoutMs`; the run carries on. */
export class WaitTimeoutError extends WorkflowRunApiError {
  override name = "WaitTimeoutError";
}

interface WaitDependencies<Envelope extends RunEnvelope = RunEnvelope> {
  readonly getRun: (runId: string, signal?: AbortSignal) => Promise<Envelope>;
  /** True when the result endpoint answers 200 (terminal) for the run. */
  readonly resultIsTerminal: (runId: string, signal?: AbortSignal) => Promise<boolean>;
  readonly clock: Clock;
}

/**
 * A person is awaited only while there is an unanswered checkpoint: spec,
 * States rule 4, "Answering a checkpoint leaves the run in
 * waiting_for_human_live with human_action.response_accepted true until the
 * runtime acknowledges it".
 */
export function awaitsPerson(
  run: RunEnvelope,
  answeredCheckpointIds: ReadonlySet<string>,
): boolean {
  if (run.status !== RUN_STATUS.waiting_for_human_live) return false;
  const action = run.human_action;
  // Spec: human_action is populated while waiting; without it nothing shows an answer.
  if (!action) return true;
  if (action.response_accepted === true) return false;
  return !(
    typeof action.checkpoint_id === "string" && answeredCheckpointIds.has(action.checkpoint_id)
  );
}

/** Why polling stops on this envelope, or undefined to keep polling. */
export async function stopReason(
  run: RunEnvelope,
  options: WaitOptions,
  answered: ReadonlySet<string>,
  resultIsTerminal: () => Promise<boolean>,
): Promise<"terminal" | "waiting_for_human" | undefined> {
  const { status } = run;
  if (isTerminalStatus(status)) return "terminal";
  if (status === RUN_STATUS.waiting_for_human_live)
    return !options.keepWaitingOnHuman && awaitsPerson(run, answered)
      ? "waiting_for_human"
      : undefined;
  // definition-format: an unknown status is "not terminal until the result
  // endpoint answers 200". So it is asked on every poll; while it answers
  // 202 polling goes on, up to `timeoutMs` (WaitTimeoutError names the
  // server's status). Never treated as terminal or as a human wait on a guess.
  if (status === "unrecognized" && (await resultIsTerminal())) return "terminal";
  return undefined;
}

/**
 * Polls the run with exponential backoff and full jitter until it is
 * terminal, or a person is awaited at an unanswered checkpoint (unless
 * keepWaitingOnHuman), and returns the last envelope. A status it does not
 * know is decided by the result endpoint: 200 means terminal. `timeoutMs`
 * holds even while one poll is stuck: each poll is aborted at the deadline.
 */
export async function waitForRunWith<Envelope extends RunEnvelope>(
  deps: WaitDependencies<Envelope>,
  runId: string,
  options: WaitOptions = {},
): Promise<Envelope> {
  const { clock } = deps;
  const initial = options.initialIntervalMs ?? 1_000;
  const max = options.maxIntervalMs ?? 15_000;
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  const deadline = clock.now() + timeoutMs;
  const answered = new Set(options.answeredCheckpointIds ?? []);
  let lastStatus = "unknown";
  const timedOut = () =>
    new WaitTimeoutError({
      status: null,
      code: CODE.WAIT_TIMEOUT,
      message: `Run ${runId} was still ${lastStatus} when waiting timed out after ${timeoutMs} ms; the run itself continues`,
    });
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw options.signal.reason;
    const deadlineTimer = new AbortController();
    const timer = setTimeout(
      () => deadlineTimer.abort(new Error("wait deadline")),
      Math.max(1, deadline - clock.now()),
    );
    const signal = options.signal
      ? AbortSignal.any([options.signal, deadlineTimer.signal])
      : deadlineTimer.signal;
    let reason: "terminal" | "waiting_for_human" | undefined;
    let run: Envelope;
    try {
      run = await deps.getRun(runId, signal);
      lastStatus = run.serverStatus;
      options.onUpdate?.(run);
      reason = await stopReason(run, options, answered, () => deps.resultIsTerminal(runId, signal));
    } catch (error) {
      if (deadlineTimer.signal.aborted && !options.signal?.aborted) throw timedOut();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (reason) return run;
    const delay = fullJitterDelay(attempt, initial, max, clock.random);
    if (clock.now() + delay > deadline) throw timedOut();
    await clock.sleep(delay, options.signal, { pollingUntil: deadline });
    // A sleep may end past the deadline (a suspended process, a test clock that skipped ahead).
    if (clock.now() >= deadline) throw timedOut();
  }
}
