// Journal records for runs and callbacks: the whole run once, when it is accepted, then only
// what changed; a pending callback without the run metadata it repeats.
// Inputs, metadata, attachments and the scenario never change after launch, so a run's records
// over its life stay close to the size of its launch body, so the journal does not outgrow the runs it holds.

import type { BrowserAccessGrant } from "../access/browser-access-grants.js";
import type {
  ApiKey,
  OAuthClient,
  OAuthGrant,
  PersonalAccessToken,
} from "../access/credentials.js";
import type { DeliveryAttempt, PendingCallback } from "../engine/callbacks.js";
import type { ApiFaultRule } from "../faults/api-faults.js";
import type { DeliveryFaultPlan } from "../faults/delivery-faults.js";
import { isObject } from "../model/json-text.js";
import type {
  AuthoringSession,
  RunRecord,
  Scenario,
  WorkflowDef,
  WorkflowState,
} from "../model/types.js";

/**
 * Every record the journal holds: one member per kind of state change. Each is applied by one
 * function (state-changes.ts), the same on the live path and on replay.
 */
export type JournalRecord =
  /** A key was made (older journals stored the token itself; only its hash is kept). */
  | { t: "key"; key: ApiKey & { token?: string } }
  | { t: "key_revoked"; token_sha256: string }
  /** A workflow's scenario was set, or (null) put back to the catalog's. */
  | { t: "scenario"; env: string; workflow: string; scenario: Scenario | null }
  | { t: "state"; env: string; workflow: string; state: WorkflowState }
  | { t: "clock"; now: number }
  | { t: "run"; run: RunRecord }
  | RunDelta
  | CallbackRecord
  | { t: "reset"; env: string }
  | { t: "cb_done"; event_id: string }
  | { t: "attempt"; env: string; attempt: DeliveryAttempt }
  | { t: "recording_download"; workspace: string; at: number }
  | { t: "grant"; grant: BrowserAccessGrant }
  | { t: "grant_deleted"; grant_id: string }
  /** A run's armed callback delivery faults, whole (null: none left). */
  | { t: "delivery_faults"; run_id: string; plan: DeliveryFaultPlan | null }
  /** An API fault rule, whole, after it was armed or fired (null: removed). */
  | { t: "api_fault"; id: string; rule: ApiFaultRule | null }
  | { t: "pat"; pat: PersonalAccessToken }
  | { t: "pat_revoked"; id: string }
  /** A connector registered with /mcp's authorization server (agent/oauth/). */
  | { t: "oauth_client"; client: OAuthClient }
  /** A connector's grant, whole, each time its tokens are issued (hashes only). */
  | { t: "oauth_grant"; grant: OAuthGrant }
  | { t: "oauth_grant_revoked"; id: string }
  | { t: "authoring_session"; session: AuthoringSession }
  /** A draft saved by an agent. */
  | { t: "workflow"; env: string; workflow: WorkflowDef };

/** A pending callback; `payload` without the run metadata it repeats (older journals: body). */
export type CallbackRecord = {
  t: "cb";
  cb: PendingCallback;
  payload?: Record<string, unknown>;
};

/** The fields of a run that change after launch; events are appended, never rewritten. */
const MUTABLE = [
  "status",
  "step",
  "next_at",
  "updated_at",
  "started_at",
  "finished_at",
  "session_id",
  "error",
  "outputs",
  "checkpoints",
  "waiting",
  "event_seq",
] as const satisfies readonly (keyof RunRecord)[];

export type RunDelta = {
  t: "run_upd";
  run_id: string;
  fields: Partial<RunRecord>;
  /** Events appended since the last record of this run. */
  events: RunRecord["events"];
};

/** What changed in `run` since `eventsWritten` of its events were journalled. */
export function runDelta(run: RunRecord, eventsWritten: number): RunDelta {
  const fields: Record<string, unknown> = {};
  for (const k of MUTABLE) fields[k] = run[k];
  // Outputs stay null until the run ends, so they are written once.
  if (run.outputs === null) delete fields.outputs;
  return {
    t: "run_upd",
    run_id: run.run_id,
    fields: fields as Partial<RunRecord>,
    events: run.events.slice(eventsWritten),
  };
}

/**
 * A copy of `run` that later changes cannot reach, cheap for any size: the fields set at launch
 * (inputs, metadata, attachments, scenario: the bulk) are never changed, so they are shared;
 * the fields that change are cloned (they are small) and the events list is copied (events are
 * appended, never changed). Background compaction serializes such copies a piece at a time.
 */
export function frozenRun(run: RunRecord): RunRecord {
  const copy = { ...run, events: run.events.slice() };
  for (const k of MUTABLE)
    (copy as unknown as Record<string, unknown>)[k] = structuredClone(run[k]);
  return copy;
}

export function applyRunDelta(run: RunRecord, delta: RunDelta): void {
  for (const k of MUTABLE) {
    if (Object.hasOwn(delta.fields, k))
      (run as unknown as Record<string, unknown>)[k] = delta.fields[k];
  }
  run.events.push(...delta.events);
}

/**
 * A pending callback as a journal record. Its payload repeats the run's metadata (up to 36 MiB)
 * in `run` and `result`; the journal holds it once, in the run, and puts it back on replay.
 */
export function callbackRecord(
  cb: PendingCallback,
  payload: Record<string, unknown>,
): CallbackRecord {
  const stored: Record<string, unknown> = { ...payload };
  for (const part of ["run", "result"]) {
    const v = stored[part];
    if (isObject(v) && Object.hasOwn(v, "metadata")) stored[part] = { ...v, metadata: null };
  }
  return { t: "cb", cb: { ...cb, body: "" }, payload: stored };
}

export function callbackFromRecord(
  rec: CallbackRecord,
  runs: { get(runId: string): RunRecord | undefined },
): PendingCallback {
  const cb = rec.cb;
  if (!isObject(rec.payload)) return cb; // older journals stored the body itself
  const payload = rec.payload;
  const metadata = runs.get(cb.run_id)?.metadata ?? {};
  for (const part of ["run", "result"]) {
    const v = payload[part];
    if (isObject(v) && Object.hasOwn(v, "metadata")) v.metadata = metadata;
  }
  return { ...cb, body: JSON.stringify(payload) };
}
