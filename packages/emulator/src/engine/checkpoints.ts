// Human checkpoints (docs/service-rules.md#human-checkpoints): a checkpoint made from a scenario's
// `human` step or from a fault injected by the admin API, what its `human.requested` event
// records, and how an answer to it is judged. The engine (run-engine.ts) applies the outcome.
import { RUN_STATUS } from "@wfr/protocol";
import { newId } from "../model/ids.js";
import type { Checkpoint, RunRecord, ScenarioStep } from "../model/types.js";
import { iso } from "./clock.js";

/** A scenario's `human` step, or the checkpoint a fault injects. */
export type HumanStep = Extract<ScenarioStep, { human: unknown }>["human"];

export type AnswerOutcome =
  | { kind: "accepted" }
  | { kind: "idempotent" }
  | { kind: "conflict"; message: string }
  | { kind: "not_waiting" }
  | { kind: "expired" };

/** A checkpoint awaited from `now` until `expires_in_ms` later, at the run's step `step`. */
export function newCheckpoint(human: HumanStep, now: number, step: number): Checkpoint {
  return {
    checkpoint_id: newId("chk"),
    kind: human.kind,
    reason: human.reason,
    instructions: human.instructions ?? null,
    stop_condition: human.stop_condition ?? null,
    expires_at: now + human.expires_in_ms,
    step,
  };
}

/**
 * What `human.requested` records of a checkpoint: enough to replay it (`wfr runs export` reads
 * it back), never the answer. `expires_at` is an ISO time like every time the API shows.
 */
export function checkpointEventData(cp: Checkpoint): Record<string, unknown> {
  return {
    checkpoint_id: cp.checkpoint_id,
    kind: cp.kind,
    reason: cp.reason,
    ...(cp.instructions ? { instructions: cp.instructions } : {}),
    ...(cp.stop_condition ? { stop_condition: cp.stop_condition } : {}),
    expires_at: iso(cp.expires_at),
  };
}

/**
 * docs/service-rules.md#human-checkpoints: identical answer idempotent; changed answer or stale
 * checkpoint 409 HUMAN_WAIT_CONFLICT; not waiting 409 NOT_WAITING_FOR_HUMAN; expired 410.
 * `accept` names the awaited checkpoint the answer (`canon`, canonical JSON) is taken for.
 */
export function judgeAnswer(
  run: RunRecord,
  checkpointId: string | undefined,
  canon: string,
): Exclude<AnswerOutcome, { kind: "accepted" }> | { kind: "accept"; checkpoint: Checkpoint } {
  const current = run.waiting === null ? undefined : run.checkpoints[run.waiting];
  const named =
    checkpointId === undefined
      ? (current ?? run.checkpoints[run.checkpoints.length - 1])
      : run.checkpoints.find((c) => c.checkpoint_id === checkpointId);
  if (named?.expired) return { kind: "expired" };
  if (named && named.answer !== undefined) {
    return named.answer === canon
      ? { kind: "idempotent" }
      : {
          kind: "conflict",
          message: "a different answer was already accepted for this checkpoint",
        };
  }
  if (!current || run.status !== RUN_STATUS.waiting_for_human_live) {
    // Naming a checkpoint that is no longer awaited is a stale checkpoint; an answer that names
    // none while the run is not in a human wait is "Run not in a human wait" (spec).
    if (named && checkpointId !== undefined)
      return { kind: "conflict", message: "this checkpoint is no longer awaited" };
    // An answer that arrives before the run reaches a checkpoint is not stored (README).
    return { kind: "not_waiting" };
  }
  if (named !== current) {
    return {
      kind: "conflict",
      message: "stale or unknown checkpoint_id: another checkpoint is awaited",
    };
  }
  return { kind: "accept", checkpoint: current };
}
