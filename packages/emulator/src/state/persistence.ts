// Replay and persistence: what the journal holds, how a record is applied on start-up, and the
// snapshot that compaction writes (journal.ts owns the file itself).

import { VirtualClock } from "../engine/clock.js";
import { idempotencyScope } from "../engine/idempotency.js";
import { Journal, replayJournal } from "../journal/journal.js";
import {
  callbackRecord,
  frozenRun,
  type JournalRecord,
  runDelta,
} from "../journal/journal-records.js";
import { isTerminal, type RunRecord } from "../model/types.js";
import type { EmulatorState } from "./emulator-state.js";
import { apply } from "./state-changes.js";

/** The idempotency scope of a keyed run (null without a key). */
function keyScope(run: RunRecord): string | null {
  return run.idempotency_key === null
    ? null
    : idempotencyScope(run.workspace, run.environment, run.workflow_id, run.idempotency_key);
}

/** Finished runs kept in memory with --data when `finishedRunsInMemory` is not given. */
export const DEFAULT_FINISHED_RUNS_IN_MEMORY = 1000;

/** The whole run when first accepted, afterwards only what changed (run-delta.ts). */
export function persistRun(st: EmulatorState, run: RunRecord): void {
  const written = st.eventsWritten.get(run.run_id);
  if (written === undefined) st.record({ t: "run", run });
  else st.record(runDelta(run, written));
  st.eventsWritten.set(run.run_id, run.events.length);
  if (isTerminal(run.status)) retire(st, run.run_id);
}

/**
 * A run finished: it joins the finished runs in memory, and the oldest beyond the limit moves to
 * the archive on disk (run-archive.ts), so memory stays flat however many runs come and go.
 * Without --data there is no archive and every run stays in memory.
 */
export function retire(st: EmulatorState, runId: string): void {
  if (!st.archive) return;
  st.finishedInMemory.add(runId);
  const limit = st.cfg.finishedRunsInMemory ?? DEFAULT_FINISHED_RUNS_IN_MEMORY;
  for (const oldest of st.finishedInMemory) {
    if (st.finishedInMemory.size <= limit) break;
    st.finishedInMemory.delete(oldest);
    const run = st.engine.runs.get(oldest);
    if (!run || !isTerminal(run.status)) continue;
    st.archive.put(run);
    st.engine.evict(oldest);
    st.eventsWritten.delete(oldest);
    const scope = keyScope(run);
    if (scope !== null) st.idem.rememberOnDisk(scope, run.run_id);
  }
}

/**
 * Everything the journal must hold to rebuild the current state, one record at a time.
 * `frozen`: runs as copies later changes cannot reach (background compaction serializes
 * them while the server keeps changing the live ones).
 */
export function* snapshot(st: EmulatorState, frozen = false): Generator<JournalRecord> {
  for (const key of st.keys.values()) yield { t: "key", key };
  yield* st.agents.snapshot(); // drafts before the `state` records below
  for (const env of st.envs.values()) {
    for (const wf of env.def.workflows.values())
      yield { t: "state", env: env.def.name, workflow: wf.id, state: wf.state };
    for (const [workflow, scenario] of env.scenarios)
      yield { t: "scenario", env: env.def.name, workflow, scenario };
    for (const attempt of env.deliveries) yield { t: "attempt", env: env.def.name, attempt };
  }
  if (st.clock instanceof VirtualClock) yield { t: "clock", now: st.clock.now() };
  for (const run of st.engine.runs.values()) yield { t: "run", run: frozen ? frozenRun(run) : run };
  for (const cb of st.pending.values()) yield callbackRecord(cb, JSON.parse(cb.body));
  const hourAgo = st.clock.now() - 3_600_000;
  for (const [workspace, at] of st.recordingAttempts)
    if (at > hourAgo) yield { t: "recording_download", workspace, at };
  for (const grant of st.grants.live(st.clock.now())) yield { t: "grant", grant };
  for (const rule of st.apiFaults.list())
    yield { t: "api_fault", id: rule.id, rule: structuredClone(rule) };
  for (const [run_id, plan] of st.deliveryFaults.all())
    yield { t: "delivery_faults", run_id, plan: structuredClone(plan) };
}

function snapshotSize(st: EmulatorState): number {
  let n = st.keys.size + 1 + st.engine.runs.size + st.pending.size + st.agents.size;
  for (const env of st.envs.values())
    n += env.def.workflows.size + env.scenarios.size + env.deliveries.length;
  n += st.grants.live(st.clock.now()).length + st.deliveryFaults.all().length;
  n += st.apiFaults.list().length;
  return n + st.recordingAttempts.length;
}

/**
 * Replay the run archive's index, then the journal, by streaming them; move the finished runs
 * beyond the limit to the archive; compact the journal when it holds superseded records (runs
 * that live in the archive among them, once the archive holds them fsync'd).
 */
export async function replay(st: EmulatorState, file: string): Promise<void> {
  const remember = (run: RunRecord) => {
    const scope = keyScope(run);
    if (scope !== null) st.idem.remember(scope, run.run_id, run.fingerprint);
  };
  st.archive?.load((run) => {
    const scope = keyScope(run);
    if (scope !== null) st.idem.rememberOnDisk(scope, run.run_id);
  });
  // The journal is this emulator's own file: its records are the union it wrote.
  const summary = replayJournal(file, (rec) => apply(st, rec as JournalRecord));
  const finished: RunRecord[] = [];
  for (const run of [...st.engine.runs.values()]) {
    if (st.archive?.has(run.run_id)) {
      // The archive has it as it finished (the journal still held its records, maybe not yet
      // its last delta: the two files are fsync'd apart): the finished run is the later state.
      st.engine.forget(run.run_id);
      st.eventsWritten.delete(run.run_id);
      continue;
    }
    remember(run);
    if (isTerminal(run.status)) finished.push(run);
  }
  finished.sort((a, b) => (a.finished_at ?? 0) - (b.finished_at ?? 0));
  for (const run of finished) retire(st, run.run_id);
  await st.archive?.durable();
  if (summary.records > snapshotSize(st)) Journal.rewrite(file, snapshot(st));
}
