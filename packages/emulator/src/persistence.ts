// Replay and persistence: what the journal holds, how a record is applied on start-up, and the
// snapshot that compaction writes (journal.ts owns the file itself).

import type { ApiFaultRule } from "./api-faults.js";
import type { BrowserAccessGrant } from "./browser-access-grants.js";
import type { DeliveryAttempt } from "./callbacks.js";
import { VirtualClock } from "./clock.js";
import type { DeliveryFaultPlan } from "./delivery-faults.js";
import { type ApiKey, type EmulatorState, resetEnvironment, tokenHash } from "./emulator-state.js";
import { idempotencyScope } from "./idempotency.js";
import { Journal, type JournalRecord, replayJournal } from "./journal.js";
import {
  applyRunDelta,
  callbackFromRecord,
  callbackRecord,
  frozenRun,
  type RunDelta,
  runDelta,
} from "./journal-records.js";
import type { RunRecord, Scenario, WorkflowState } from "./types.js";

/** The whole run when first accepted, afterwards only what changed (run-delta.ts). */
export function persistRun(st: EmulatorState, run: RunRecord): void {
  const written = st.eventsWritten.get(run.run_id);
  if (written === undefined) st.record({ t: "run", run });
  else st.record(runDelta(run, written));
  st.eventsWritten.set(run.run_id, run.events.length);
}

export function applyRecord(st: EmulatorState, rec: JournalRecord): void {
  switch (rec.t) {
    case "key": {
      // Older journals stored the token itself; keep only its hash.
      const k = rec.key as ApiKey & { token?: string };
      const hash = k.token_sha256 ?? tokenHash(k.token ?? "");
      st.keys.set(hash, {
        token_sha256: hash,
        environment: k.environment,
        workspace: k.workspace,
        scopes: k.scopes,
      });
      break;
    }
    case "key_revoked":
      st.keys.delete(rec.token_sha256 as string);
      break;
    case "scenario": {
      const env = st.envs.get(rec.env as string);
      if (!env) break;
      if (rec.scenario) env.scenarios.set(rec.workflow as string, rec.scenario as Scenario);
      else env.scenarios.delete(rec.workflow as string);
      break;
    }
    case "state": {
      const wf = st.envs.get(rec.env as string)?.def.workflows.get(rec.workflow as string);
      if (wf) wf.state = rec.state as WorkflowState;
      break;
    }
    case "clock":
      if (st.clock instanceof VirtualClock) st.clock.set(rec.now as number);
      break;
    case "run": {
      const run = rec.run as RunRecord;
      if (st.clock instanceof VirtualClock) st.clock.set(run.updated_at);
      st.engine.restore(run);
      st.eventsWritten.set(run.run_id, run.events.length);
      break;
    }
    case "run_upd": {
      const d = rec as RunDelta;
      const run = st.engine.runs.get(d.run_id);
      if (!run) break;
      applyRunDelta(run, d);
      if (st.clock instanceof VirtualClock) st.clock.set(run.updated_at);
      st.engine.restore(run);
      st.eventsWritten.set(run.run_id, run.events.length);
      break;
    }
    case "cb": {
      const cb = callbackFromRecord(rec, st.engine.runs);
      st.pending.set(cb.event_id, cb);
      break;
    }
    case "reset":
      resetEnvironment(st, rec.env as string);
      break;
    case "cb_done":
      st.pending.delete(rec.event_id as string);
      break;
    case "attempt":
      st.envs.get(rec.env as string)?.deliveries.push(rec.attempt as DeliveryAttempt);
      break;
    case "recording_download":
      st.limiter.restore(rec.workspace as string, rec.at as number);
      st.recordingAttempts.push([rec.workspace as string, rec.at as number]);
      break;
    case "grant":
      st.grants.restore(rec.grant as BrowserAccessGrant);
      break;
    case "grant_deleted":
      st.grants.delete(rec.grant_id as string);
      break;
    case "api_fault":
      st.apiFaults.restore(rec.id as string, rec.rule as ApiFaultRule | null);
      break;
    case "delivery_faults":
      st.deliveryFaults.restore(rec.run_id as string, rec.plan as DeliveryFaultPlan | null);
      break;
    default:
      st.agents.apply(rec); // tokens, authoring sessions, drafts
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

export function snapshotSize(st: EmulatorState): number {
  let n = st.keys.size + 1 + st.engine.runs.size + st.pending.size + st.agents.size;
  for (const env of st.envs.values())
    n += env.def.workflows.size + env.scenarios.size + env.deliveries.length;
  n += st.grants.live(st.clock.now()).length + st.deliveryFaults.all().length;
  n += st.apiFaults.list().length;
  return n + st.recordingAttempts.length;
}

/** Replay the journal by streaming it; compact it when it holds superseded records. */
export function replay(st: EmulatorState, file: string): void {
  const summary = replayJournal(file, (rec) => applyRecord(st, rec));
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
