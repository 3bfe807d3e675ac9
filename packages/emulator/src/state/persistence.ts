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
import type { RunRecord } from "../model/types.js";
import type { EmulatorState } from "./emulator-state.js";
import { apply } from "./state-changes.js";

/** The whole run when first accepted, afterwards only what changed (run-delta.ts). */
export function persistRun(st: EmulatorState, run: RunRecord): void {
  const written = st.eventsWritten.get(run.run_id);
  if (written === undefined) st.record({ t: "run", run });
  else st.record(runDelta(run, written));
  st.eventsWritten.set(run.run_id, run.events.length);
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

/** Replay the journal by streaming it; compact it when it holds superseded records. */
export function replay(st: EmulatorState, file: string): void {
  // The journal is this emulator's own file: its records are the union it wrote.
  const summary = replayJournal(file, (rec) => apply(st, rec as JournalRecord));
  for (const run of st.engine.runs.values()) {
    if (run.idempotency_key !== null) {
      st.idem.remember(
        idempotencyScope(run.workspace, run.environment, run.workflow_id, run.idempotency_key),
        run.run_id,
        run.fingerprint,
      );
    }
  }
  if (summary.records > snapshotSize(st)) Journal.rewrite(file, snapshot(st));
}
