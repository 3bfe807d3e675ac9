// A real run, recorded into a scenario the emulator replays: `wfr runs export` reads a run's
// envelope, events snapshot and result from any environment and writes this file; `wfr emulator
// --scenario <file>` and the testing kit replay it for that workflow. The replay reproduces the
// run's step events with their spacing, its checkpoints, and its end (outputs, or the failure),
// in order.
//
// The service does not publish the fields of an event record (docs/service-rules.md#events);
// this reads the emulator's (`type`, `at`, `data`) and, for other services, any top-level fields.
// The file is meant to be committed, so it is written by allow-list: what is known to be safe is
// kept (the steps and their order, timings, event types, field names, a checkpoint's kind, an
// error's code, a file's media type) and every value a run carried (event data, outputs, a
// checkpoint's text, an error's message, file names and bytes) is replaced by a placeholder of
// the same JSON type, unless asked to keep values. A deny-list of secret-looking names cannot
// know every name a secret goes by (`jwt`, `pin`, `session`, an output named `api_key`...). Even
// with values kept, fields whose names say they hold a secret are replaced unless asked to keep
// them too. Caller metadata never enters the file (a scenario has none).
import { isFailStatus, RUN_STATUS } from "@wfr/protocol";
import { isObject } from "../model/json-text.js";
import type { Scenario, ScenarioStep } from "../model/types.js";
import { MAX_SCENARIO_MS, parseScenario } from "./scenario.js";

export const RECORDED_RUN_FORMAT = "wfr-recorded-run/1";

export interface RecordedRun {
  readonly format: typeof RECORDED_RUN_FORMAT;
  readonly environment: string;
  readonly workflow_id: string;
  /** Where it came from: the run id, the API host (never a key, a query or a path) and its status. */
  readonly recorded_from: {
    readonly run_id: string;
    readonly api_host: string;
    readonly status: string;
  };
  readonly scenario: Scenario;
}

export interface RecordedRunInput {
  /** The run envelope (GET /runs/{runId}). */
  readonly run: Record<string, unknown>;
  /** The events snapshot (GET /runs/{runId}/events). */
  readonly events: unknown;
  /** The result body (GET /runs/{runId}/result), terminal. */
  readonly result: Record<string, unknown>;
  readonly environment: string;
  readonly apiBase: string;
  /** Bytes of file outputs by `download_url`, when they were fetched (`--fetch-files`). */
  readonly files?: ReadonlyMap<string, Uint8Array>;
  /**
   * Keep the values a run carried: event data, outputs, checkpoint text, error message, file
   * names and bytes (default: each replaced by a placeholder of the same JSON type).
   */
  readonly keepValues?: boolean;
  /** With `keepValues`, also keep event fields whose names look secret (default: "[stripped]"). */
  readonly keepSecretLookingFields?: boolean;
}

export class RecordedRunError extends Error {
  override name = "RecordedRunError";
  /** Which of the recorded runs given to startEmulator (0-based) could not be replayed, if one. */
  readonly recordedRunIndex: number | undefined;
  constructor(message: string, recordedRunIndex?: number) {
    super(message);
    this.recordedRunIndex = recordedRunIndex;
  }
}

/** Events the replay makes by itself: copying them would repeat them. */
const ENGINE_EVENTS = new Set([
  "run.queued",
  "run.starting",
  "run.running",
  "run.waiting_for_human_live",
  "human.requested",
  "human.answered",
  "human.acknowledged",
  "human.expired",
]);
const SECRET_LOOKING = /pass(word)?|secret|token|api[_-]?key|authorization|cookie|otp|credential/i;
const DEFAULT_HUMAN_WAIT_MS = 24 * 3_600_000;

interface RecordedEvent {
  readonly type: string;
  readonly at: number;
  readonly data: Record<string, unknown>;
}

function readEvents(snapshot: unknown): RecordedEvent[] {
  const list = isObject(snapshot) && Array.isArray(snapshot.events) ? snapshot.events : [];
  const events: RecordedEvent[] = [];
  for (const item of list) {
    if (!isObject(item) || typeof item.type !== "string") continue;
    const at = typeof item.at === "string" ? Date.parse(item.at) : Number.NaN;
    const { id: _id, type: _type, at: _at, step: _step, data, ...rest } = item;
    events.push({ type: item.type, at, data: isObject(data) ? { ...data } : rest });
  }
  // Stable: events without a time keep their place among their neighbours.
  return events;
}

function stripSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k, {
      value: SECRET_LOOKING.test(k) ? "[stripped]" : stripSecrets(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

/** The text every replaced string becomes. */
export const REDACTED = "[redacted]";

/**
 * `value` with its structure and field names, every leaf replaced by a placeholder of its JSON
 * type: a replay still sees the shape it expects, and no value of the recorded run.
 */
function placeholders(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(placeholders);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: placeholders(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  if (typeof value === "string") return REDACTED;
  if (typeof value === "number") return 0;
  if (typeof value === "boolean") return false;
  return null;
}

/** A file's name without what it says: its extension (a type) only. */
function placeholderFilename(filename: string): string {
  const extension = /\.[A-Za-z0-9]{1,10}$/.exec(filename)?.[0] ?? "";
  return `file${extension}`;
}

/**
 * File output references become `$file` markers (with their bytes when fetched and values are
 * kept); other values are kept or replaced by placeholders.
 */
function fileMarkers(
  value: unknown,
  files: ReadonlyMap<string, Uint8Array> | undefined,
  keepValues: boolean,
): unknown {
  if (Array.isArray(value)) return value.map((v) => fileMarkers(v, files, keepValues));
  if (!isObject(value)) return keepValues ? value : placeholders(value);
  if (
    typeof value.download_url === "string" &&
    typeof value.filename === "string" &&
    typeof value.mime_type === "string"
  ) {
    const bytes = keepValues ? files?.get(value.download_url) : undefined;
    return {
      $file: {
        filename: keepValues ? value.filename : placeholderFilename(value.filename),
        mime_type: value.mime_type,
        ...(bytes ? { base64: Buffer.from(bytes).toString("base64") } : {}),
      },
    };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k, {
      value: fileMarkers(v, files, keepValues),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

/** A duration between two recorded times, or undefined when one is unknown; bounded like any scenario duration. */
function between(from: number, to: number): number | undefined {
  if (!Number.isFinite(from) || !Number.isFinite(to)) return undefined;
  return Math.min(Math.max(0, Math.round(to - from)), MAX_SCENARIO_MS);
}

/** The scenario that replays a recorded run. */
export function recordRun(input: RecordedRunInput): RecordedRun {
  const { run, result } = input;
  const runId = typeof run.run_id === "string" ? run.run_id : "";
  const workflowId = typeof run.workflow_id === "string" ? run.workflow_id : "";
  const status = typeof result.status === "string" ? result.status : "";
  if (!runId || !workflowId)
    throw new RecordedRunError("the run envelope has no run_id or workflow_id");
  if (
    status !== RUN_STATUS.succeeded &&
    status !== RUN_STATUS.human_wait_expired &&
    !isFailStatus(status)
  )
    throw new RecordedRunError(
      `run ${runId} is ${status || "not terminal"}: only a finished run can be recorded`,
    );
  const keepValues = input.keepValues === true;
  /** A checkpoint's or an error's text: kept, or the placeholder. */
  const text = (value: string) => (keepValues ? value : REDACTED);
  const events = readEvents(input.events);
  const timeOf = (type: string) => events.find((e) => e.type === type)?.at ?? Number.NaN;
  const steps: ScenarioStep[] = [];
  let cursor = timeOf("run.running");
  const waitUntil = (at: number) => {
    const gap = between(cursor, at);
    if (gap) steps.push({ wait_ms: gap });
    if (Number.isFinite(at)) cursor = at;
  };
  for (const [index, event] of events.entries()) {
    if (event.type === "human.requested") {
      waitUntil(event.at);
      const d = event.data;
      const expired = events
        .slice(index + 1)
        .find((e) => e.type === "human.expired" || e.type === "human.answered");
      const expiresAt = typeof d.expires_at === "string" ? Date.parse(d.expires_at) : Number.NaN;
      const expiresIn =
        expired?.type === "human.expired"
          ? between(event.at, expired.at)
          : between(event.at, expiresAt);
      steps.push({
        human: {
          kind: typeof d.kind === "string" ? d.kind : "checkpoint",
          reason:
            typeof d.reason === "string" ? text(d.reason) : "a checkpoint of the recorded run",
          ...(typeof d.instructions === "string" ? { instructions: text(d.instructions) } : {}),
          ...(typeof d.stop_condition === "string"
            ? { stop_condition: text(d.stop_condition) }
            : {}),
          expires_in_ms: expiresIn ?? DEFAULT_HUMAN_WAIT_MS,
        },
      });
      continue;
    }
    // After an answer the run goes on from its acknowledgement, whenever the replay's person answers.
    if (event.type === "human.acknowledged") {
      if (Number.isFinite(event.at)) cursor = event.at;
      continue;
    }
    if (ENGINE_EVENTS.has(event.type) || event.type.startsWith("run.")) continue;
    waitUntil(event.at);
    const data = !keepValues
      ? placeholders(event.data)
      : input.keepSecretLookingFields
        ? event.data
        : stripSecrets(event.data);
    steps.push({ event: { ...(data as Record<string, unknown>), type: event.type } });
  }
  waitUntil(timeOf(`run.${status}`));
  if (status === RUN_STATUS.succeeded) {
    const outputs = isObject(result.outputs) ? result.outputs : {};
    steps.push({
      succeed: {
        outputs: fileMarkers(outputs, input.files, keepValues) as Record<string, unknown>,
      },
    });
  } else if (isFailStatus(status)) {
    const error = isObject(result.error) ? result.error : {};
    steps.push({
      fail: {
        status,
        error: {
          ...(typeof error.code === "string" ? { code: error.code } : {}),
          message:
            typeof error.message === "string" && keepValues
              ? error.message
              : `the recorded run ended ${status}`,
        },
      },
    });
  }
  const queueMs = between(timeOf("run.queued"), timeOf("run.starting"));
  const startMs = between(timeOf("run.starting"), timeOf("run.running"));
  const scenario: Scenario = {
    steps,
    session: run.session_id === null && run.recording_url === null ? "computer" : "browser",
    recording: { mode: typeof run.recording_url === "string" ? "ready" : "none" },
    ...(queueMs !== undefined ? { queue_ms: queueMs } : {}),
    ...(startMs !== undefined ? { start_ms: startMs } : {}),
  };
  // What the emulator will accept: a scenario it would refuse is an error here, not at replay.
  parseScenario(scenario);
  let apiHost = "";
  try {
    apiHost = new URL(input.apiBase).host;
  } catch {
    apiHost = "";
  }
  return {
    format: RECORDED_RUN_FORMAT,
    environment: input.environment,
    workflow_id: workflowId,
    recorded_from: { run_id: runId, api_host: apiHost, status },
    scenario,
  };
}

/**
 * The largest recorded-run file read (docs/limits.md): a run with every step of
 * MAX_SCENARIO_STEPS and generous event data fits; a file past it is refused by its size,
 * before it is read or parsed (a 100 MB string cost 602 MiB and seconds to parse).
 */
export const MAX_RECORDED_RUN_BYTES = 16 * 1024 * 1024;

/**
 * Reads a recorded-run file (`wfr runs export`) within MAX_RECORDED_RUN_BYTES; errors name the file.
 * A regular file is refused by its size, unread; a pipe or a device (its size says nothing) is
 * read up to the budget and refused at the first byte over it.
 */
export async function readRecordedRunFile(file: string): Promise<RecordedRun> {
  const { open } = await import("node:fs/promises");
  const tooLarge = (size: number | string) =>
    new RecordedRunError(
      `${file}: ${size} bytes; a recorded run is at most ${MAX_RECORDED_RUN_BYTES} bytes (docs/limits.md)`,
    );
  let text: string;
  try {
    const handle = await open(file, "r");
    try {
      const stat = await handle.stat();
      if (stat.isFile() && stat.size > MAX_RECORDED_RUN_BYTES) throw tooLarge(stat.size);
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const room = MAX_RECORDED_RUN_BYTES + 1 - total;
        const { bytesRead, buffer } = await handle.read(
          Buffer.allocUnsafe(Math.min(1 << 20, room)),
          0,
          Math.min(1 << 20, room),
          null,
        );
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > MAX_RECORDED_RUN_BYTES) throw tooLarge(`more than ${MAX_RECORDED_RUN_BYTES}`);
        chunks.push(buffer.subarray(0, bytesRead));
      }
      text = Buffer.concat(chunks, total).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof RecordedRunError) throw error;
    throw new RecordedRunError(`${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RecordedRunError(`${file}: ${(error as Error).message}`);
  }
  return parseRecordedRun(json, file);
}

/** Reads a recorded-run file's JSON; errors name what is wrong. */
export function parseRecordedRun(value: unknown, source: string): RecordedRun {
  if (!isObject(value) || value.format !== RECORDED_RUN_FORMAT)
    throw new RecordedRunError(
      `${source}: not a recorded run (format must be "${RECORDED_RUN_FORMAT}")`,
    );
  if (typeof value.environment !== "string" || typeof value.workflow_id !== "string")
    throw new RecordedRunError(`${source}: environment and workflow_id must be strings`);
  try {
    parseScenario(value.scenario);
  } catch (error) {
    throw new RecordedRunError(`${source}: scenario: ${(error as Error).message}`);
  }
  return value as unknown as RecordedRun;
}
