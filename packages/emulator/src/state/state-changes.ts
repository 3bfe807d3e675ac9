// Every change of the emulator's state that the journal holds, applied by one function per kind
// of record. The live path commits a change (journal first, then this same function) and replay
// applies the journal's records with it, so the two cannot disagree; a change the journal
// cannot take (it throws while serializing) is never made.
//
// Two kinds are made elsewhere on the live path, on purpose: runs (`run`, `run_upd`) change
// inside the engine, step by step, and are journalled after each step from the run itself
// (persistence.ts: the whole run once, then deltas copied from its fields); a pending callback
// (`cb`) is held with its full body on the live path, while its record leaves out the metadata
// it repeats (journal-records.ts). Replay applies both here.

import { tokenHash } from "../access/credentials.js";
import { VirtualClock } from "../engine/clock.js";
import {
  applyRunDelta,
  callbackFromRecord,
  type JournalRecord,
} from "../journal/journal-records.js";
import { type EmulatorState, resetEnvironment } from "./emulator-state.js";

const HOUR_MS = 3_600_000;

/** Journal the change, then make it (the same function replay uses). */
export function commit(st: EmulatorState, rec: JournalRecord): void {
  st.record(rec);
  apply(st, rec);
}

/** Make the change a record describes; on replay, and after `commit` journalled it. */
export function apply(st: EmulatorState, rec: JournalRecord): void {
  switch (rec.t) {
    case "key": {
      const k = rec.key;
      const hash = k.token_sha256 ?? tokenHash(k.token ?? "");
      st.keys.set(hash, {
        token_sha256: hash,
        environment: k.environment,
        workspace: k.workspace,
        scopes: k.scopes,
      });
      return;
    }
    case "key_revoked":
      st.keys.delete(rec.token_sha256);
      return;
    case "scenario": {
      const env = st.envs.get(rec.env);
      if (!env) return;
      if (rec.scenario) env.scenarios.set(rec.workflow, rec.scenario);
      else env.scenarios.delete(rec.workflow);
      return;
    }
    case "state": {
      const wf = st.envs.get(rec.env)?.def.workflows.get(rec.workflow);
      if (wf) wf.state = rec.state;
      return;
    }
    case "clock":
      if (st.clock instanceof VirtualClock) st.clock.set(rec.now);
      return;
    case "run": {
      const run = rec.run;
      if (st.clock instanceof VirtualClock) st.clock.set(run.updated_at);
      st.engine.restore(run);
      st.eventsWritten.set(run.run_id, run.events.length);
      return;
    }
    case "run_upd": {
      const run = st.engine.runs.get(rec.run_id);
      if (!run) return;
      applyRunDelta(run, rec);
      if (st.clock instanceof VirtualClock) st.clock.set(run.updated_at);
      st.engine.restore(run);
      st.eventsWritten.set(run.run_id, run.events.length);
      return;
    }
    case "cb": {
      const cb = callbackFromRecord(rec, { get: (id) => st.engine.find(id) });
      st.pending.set(cb.event_id, cb);
      return;
    }
    case "reset":
      resetEnvironment(st, rec.env);
      return;
    case "cb_done":
      st.pending.delete(rec.event_id);
      return;
    case "attempt":
      st.envs.get(rec.env)?.deliveries.push(rec.attempt);
      return;
    case "recording_download": {
      st.limiter.restore(rec.workspace, rec.at);
      const attempts = st.recordingAttempts;
      while ((attempts[0]?.[1] ?? rec.at) <= rec.at - HOUR_MS) attempts.shift();
      attempts.push([rec.workspace, rec.at]);
      return;
    }
    case "grant":
      st.grants.restore(rec.grant);
      return;
    case "grant_deleted":
      st.grants.delete(rec.grant_id);
      return;
    case "delivery_faults":
      st.deliveryFaults.restore(rec.run_id, rec.plan);
      return;
    case "api_fault":
      st.apiFaults.restore(rec.id, rec.rule);
      return;
    case "pat":
    case "pat_revoked":
    case "oauth_client":
    case "oauth_grant":
    case "oauth_grant_revoked":
    case "authoring_session":
    case "workflow":
      st.agents.apply(rec); // tokens, OAuth grants, authoring sessions, drafts (agent-surface.ts)
      return;
    default:
      unknownRecord(rec);
  }
}

/**
 * Exhaustiveness: a new member of JournalRecord without a case fails to compile here. At run
 * time a record of a kind this version does not know (a newer journal) is skipped, as before.
 */
function unknownRecord(_rec: never): void {}
