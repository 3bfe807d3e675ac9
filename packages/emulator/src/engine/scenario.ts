// Scenario format (README "Scenario format"): ordered steps that drive a run on the clock.

import { FAIL_STATUSES, isFailStatus, RUN_STATUS } from "@wfr/protocol";
import { isObject } from "../model/json-text.js";
import type { RecordingConfig, Scenario, ScenarioStep } from "../model/types.js";
import { fileMarkerProblem } from "./file-markers.js";

export class ScenarioError extends Error {}

/** Longest duration a scenario may name (one year): longer ones overflow timers and dates. */
export const MAX_SCENARIO_MS = 365 * 86_400_000;

/**
 * Steps in one scenario (docs/limits.md): a recorded run of a long workflow has hundreds; every
 * step is replayed by the engine on the request path, and 300,000 blocked other callers for
 * seconds.
 */
export const MAX_SCENARIO_STEPS = 10_000;

function nonNegInt(v: unknown, where: string, max = MAX_SCENARIO_MS): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > max) {
    throw new ScenarioError(`${where} must be a number from 0 to ${max}`);
  }
  return Math.floor(v);
}

/** One scenario step (also the body of an injected fault); errors name `steps[i]`. */
export function parseStep(raw: unknown, i: number): ScenarioStep {
  const where = `steps[${i}]`;
  if (!isObject(raw)) throw new ScenarioError(`${where} must be an object`);
  const keys = Object.keys(raw);
  if (keys.length !== 1) {
    throw new ScenarioError(
      `${where} must have exactly one of wait_ms, event, human, succeed, fail`,
    );
  }
  const [kind] = keys;
  const v = raw[kind as string];
  switch (kind) {
    case "wait_ms":
      return { wait_ms: nonNegInt(v, `${where}.wait_ms`) };
    case "event":
      if (!isObject(v) || typeof v.type !== "string" || v.type === "") {
        throw new ScenarioError(`${where}.event must be an object with a string type`);
      }
      return { event: v as { type: string } };
    case "human": {
      if (!isObject(v) || typeof v.kind !== "string" || typeof v.reason !== "string") {
        throw new ScenarioError(`${where}.human needs string kind and reason`);
      }
      if (v.instructions !== undefined && typeof v.instructions !== "string") {
        throw new ScenarioError(`${where}.human.instructions must be a string`);
      }
      return {
        human: {
          kind: v.kind,
          reason: v.reason,
          ...(typeof v.instructions === "string" ? { instructions: v.instructions } : {}),
          ...(typeof v.stop_condition === "string" ? { stop_condition: v.stop_condition } : {}),
          expires_in_ms: nonNegInt(v.expires_in_ms ?? 3_600_000, `${where}.human.expires_in_ms`),
        },
      };
    }
    case "succeed":
      if (v !== null && v !== undefined && !isObject(v)) {
        throw new ScenarioError(`${where}.succeed must be an object`);
      }
      if (isObject(v) && v.outputs !== undefined && !isObject(v.outputs)) {
        throw new ScenarioError(`${where}.succeed.outputs must be an object`);
      }
      if (isObject(v)) {
        const problem = fileMarkerProblem(v.outputs, `${where}.succeed.outputs`);
        if (problem) throw new ScenarioError(problem);
      }
      return { succeed: isObject(v) && isObject(v.outputs) ? { outputs: v.outputs } : {} };
    case "fail": {
      if (!isObject(v)) throw new ScenarioError(`${where}.fail must be an object`);
      const status = v.status ?? RUN_STATUS.failed;
      if (!isFailStatus(status)) {
        throw new ScenarioError(`${where}.fail.status must be one of ${FAIL_STATUSES.join(", ")}`);
      }
      const err = isObject(v.error) ? v.error : {};
      const message = typeof err.message === "string" ? err.message : `run ${status}`;
      return {
        fail: {
          status,
          error: { ...(typeof err.code === "string" ? { code: err.code } : {}), message },
        },
      };
    }
    default:
      throw new ScenarioError(`${where}: unknown step kind ${JSON.stringify(kind)}`);
  }
}

export function parseScenario(raw: unknown): Scenario {
  if (!isObject(raw)) throw new ScenarioError("scenario must be an object");
  if (!Array.isArray(raw.steps)) throw new ScenarioError("scenario.steps must be an array");
  if (raw.steps.length > MAX_SCENARIO_STEPS)
    throw new ScenarioError(
      `scenario.steps has ${raw.steps.length} steps; at most ${MAX_SCENARIO_STEPS} (docs/limits.md)`,
    );
  const out: Scenario = { steps: raw.steps.map(parseStep) };
  if (raw.recording !== undefined) {
    const r = raw.recording;
    if (!isObject(r) || !["none", "ready", "processing"].includes(r.mode as string)) {
      throw new ScenarioError('scenario.recording.mode must be "none", "ready" or "processing"');
    }
    const rec: RecordingConfig = { mode: r.mode as RecordingConfig["mode"] };
    if (r.processing_ms !== undefined)
      rec.processing_ms = nonNegInt(r.processing_ms, "recording.processing_ms");
    if (r.size_bytes !== undefined)
      rec.size_bytes = nonNegInt(r.size_bytes, "recording.size_bytes", 2 ** 40);
    out.recording = rec;
  }
  if (raw.session !== undefined) {
    if (raw.session !== "browser" && raw.session !== "computer") {
      throw new ScenarioError('scenario.session must be "browser" or "computer"');
    }
    out.session = raw.session;
  }
  if (raw.queue_ms !== undefined) out.queue_ms = nonNegInt(raw.queue_ms, "queue_ms");
  if (raw.start_ms !== undefined) out.start_ms = nonNegInt(raw.start_ms, "start_ms");
  return out;
}

/** The default when none is set: short waits, then success with synthesized outputs. */
export function defaultScenario(): Scenario {
  return {
    steps: [
      { event: { type: "step.started", name: "open portal" } },
      { wait_ms: 100 },
      { event: { type: "step.completed", name: "open portal" } },
      { wait_ms: 100 },
      { succeed: {} },
    ],
    recording: { mode: "ready" },
    session: "browser",
  };
}
