// Watching a run as an async iterable of its changes. The service offers no
// stream (docs/service-rules.md#events: the events endpoint is a snapshot),
// so this is polling with the rules of waitForRun
// (docs/service-rules.md#polling): backoff with full jitter between reads,
// reset to the first interval whenever something changed; a status this
// runtime does not know is decided by the result endpoint (200: terminal);
// aborting stops watching only (docs/service-rules.md#endpoints: there is no
// cancellation).
import { RUN_STATUS } from "@wfr/protocol";
import { type Clock, fullJitterDelay } from "./backoff.js";
import { isTerminalStatus } from "./run-status.js";
import type { EventSnapshot, HumanAction, RunEnvelope } from "./wire-types.js";

/** One record of the events snapshot; its fields beyond these are the service's. */
export interface RunEvent {
  readonly id?: string;
  readonly type?: string;
  readonly at?: string;
  readonly [field: string]: unknown;
}

/** What changed between two reads of a run. */
export type RunChange =
  /** The status changed (the first read reports the status as a change from `null`). */
  | {
      readonly type: "status";
      readonly status: RunEnvelope["status"];
      readonly previous: string | null;
      readonly run: RunEnvelope;
    }
  /** A new record in the events snapshot, in snapshot order. */
  | { readonly type: "event"; readonly event: RunEvent; readonly run: RunEnvelope }
  /** A person is awaited at a checkpoint not seen before (a new `checkpoint_id`). */
  | { readonly type: "human_action"; readonly humanAction: HumanAction; readonly run: RunEnvelope };

export interface WatchRunOptions {
  /** First backoff ceiling, and the ceiling again after each change. Default 1,000 ms. */
  readonly initialIntervalMs?: number;
  /** Backoff ceiling cap. Default 15,000 ms. */
  readonly maxIntervalMs?: number;
  /** Read the events snapshot on each poll and report new records. Default true. */
  readonly events?: boolean;
  /** Stops watching (the iteration rejects with the signal's reason); the run carries on. */
  readonly signal?: AbortSignal;
}

interface WatchDependencies {
  readonly getRun: (runId: string, signal?: AbortSignal) => Promise<RunEnvelope>;
  readonly getEvents: (runId: string, signal?: AbortSignal) => Promise<EventSnapshot>;
  /** True when the result endpoint answers 200 (terminal) for the run. */
  readonly resultIsTerminal: (runId: string, signal?: AbortSignal) => Promise<boolean>;
  readonly clock: Clock;
}

/** The records of an events snapshot (the service does not publish its shape: `events` when it is a list). */
export function snapshotEvents(snapshot: EventSnapshot): readonly RunEvent[] {
  const events = (snapshot as { events?: unknown }).events;
  return Array.isArray(events)
    ? events.filter((e): e is RunEvent => e !== null && typeof e === "object" && !Array.isArray(e))
    : [];
}

/** An event's identity: its `id` when it has one, otherwise its place in the snapshot. */
function eventKey(event: RunEvent, index: number): string {
  return typeof event.id === "string" ? `id:${event.id}` : `at:${index}`;
}

/**
 * The changes of one run, until it is terminal: its status changes, new
 * events and new human checkpoints, in that order within one read. The last
 * change of a finished run is its terminal status (after its last events).
 */
export async function* watchRunWith(
  deps: WatchDependencies,
  runId: string,
  options: WatchRunOptions = {},
): AsyncGenerator<RunChange, RunEnvelope, undefined> {
  const initial = options.initialIntervalMs ?? 1_000;
  const max = options.maxIntervalMs ?? 15_000;
  const readEvents = options.events ?? true;
  const { signal } = options;
  let previous: string | null = null;
  const seenEvents = new Set<string>();
  const seenCheckpoints = new Set<string>();
  let attempt = 0;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    const run = await deps.getRun(runId, signal);
    let terminal = isTerminalStatus(run.status);
    if (!terminal && run.status === "unrecognized")
      terminal = await deps.resultIsTerminal(runId, signal);
    const changes: RunChange[] = [];
    if (readEvents) {
      snapshotEvents(await deps.getEvents(runId, signal)).forEach((event, index) => {
        const key = eventKey(event, index);
        if (seenEvents.has(key)) return;
        seenEvents.add(key);
        changes.push({ type: "event", event, run });
      });
    }
    const action = run.human_action;
    if (
      run.status === RUN_STATUS.waiting_for_human_live &&
      action &&
      typeof action.checkpoint_id === "string" &&
      !seenCheckpoints.has(action.checkpoint_id)
    ) {
      seenCheckpoints.add(action.checkpoint_id);
      changes.push({ type: "human_action", humanAction: action, run });
    }
    const statusChange: RunChange | undefined =
      run.serverStatus !== previous
        ? { type: "status", status: run.status, previous, run }
        : undefined;
    previous = run.serverStatus;
    // A terminal status comes last, after the run's last events; any other status first.
    if (statusChange && !terminal) yield statusChange;
    for (const change of changes) yield change;
    if (terminal) {
      if (statusChange) yield statusChange;
      return run;
    }
    attempt = statusChange || changes.length > 0 ? 0 : attempt + 1;
    await deps.clock.sleep(fullJitterDelay(attempt, initial, max, deps.clock.random), signal, {
      pollingUntil: Number.POSITIVE_INFINITY,
    });
  }
}
