// Typed scenarios: what the emulator does with a run of one workflow, written
// against that workflow's generated types. `succeed` takes the workflow's
// `Outputs`, so an output that is missing, misspelt or of the wrong type is a
// type error in the test, not a surprise in a run (the emulator's own scenario
// format is untyped JSON). The steps are those of the emulator's scenario
// format (packages/emulator/README.md "Scenario format").
import type { Scenario, ScenarioStep } from "@wfr/emulator";
import type { AnyWorkflowDefinition, FileOutputReference, OutputsOf } from "@wfr/runtime";

/** The unsuccessful terminal statuses a scenario can end with (the emulator's `fail` step's). */
export type ScenarioFailStatus = Extract<ScenarioStep, { fail: unknown }>["fail"]["status"];

export interface CheckpointStep {
  /** What kind of help is needed (for example `approval`, `otp`). */
  readonly kind: string;
  readonly reason: string;
  readonly instructions?: string;
  readonly stopCondition?: string;
  /** How long the person has before the run ends `human_wait_expired`. */
  readonly expiresInMs: number;
}

export interface RecordingBehaviour {
  /** `ready` (default), `processing` (202 for `processingMs` after the run ended) or `none` (404). */
  readonly mode: "ready" | "processing" | "none";
  readonly processingMs?: number;
  /** Above 128 MiB the recording endpoint answers 413. */
  readonly sizeBytes?: number;
}

/** The JSON the emulator takes for one workflow (`PUT .../workflows/{id}/scenario`). */
export type ScenarioJson = Scenario;

/** A scenario of workflow `W`, built step by step; every method returns a new builder. */
export class ScenarioBuilder<W extends AnyWorkflowDefinition> {
  private constructor(
    readonly workflow: W,
    private readonly json: ScenarioJson,
  ) {}

  static of<W extends AnyWorkflowDefinition>(workflow: W): ScenarioBuilder<W> {
    return new ScenarioBuilder(workflow, { steps: [] });
  }

  /** The run does nothing for `ms` (clock time). */
  wait(ms: number): ScenarioBuilder<W> {
    return this.step({ wait_ms: ms });
  }

  /** A step event in the run's events snapshot (`type` plus any fields). */
  event(type: string, data: Readonly<Record<string, unknown>> = {}): ScenarioBuilder<W> {
    return this.step({ event: { ...data, type } });
  }

  /** The run waits for a person (`waiting_for_human_live`) until answered or expired. */
  checkpoint(checkpoint: CheckpointStep): ScenarioBuilder<W> {
    return this.step({
      human: {
        kind: checkpoint.kind,
        reason: checkpoint.reason,
        ...(checkpoint.instructions !== undefined ? { instructions: checkpoint.instructions } : {}),
        ...(checkpoint.stopCondition !== undefined
          ? { stop_condition: checkpoint.stopCondition }
          : {}),
        expires_in_ms: checkpoint.expiresInMs,
      },
    });
  }

  /** The run succeeds with exactly these outputs, typed by the workflow's generated `Outputs`. */
  succeed(outputs: OutputsOf<W>): ScenarioBuilder<W> {
    return this.step({ succeed: { outputs: outputs as Record<string, unknown> } });
  }

  /** The run ends with an unsuccessful terminal status and this error. */
  fail(status: ScenarioFailStatus, error: { code?: string; message: string }): ScenarioBuilder<W> {
    return this.step({ fail: { status, error: { ...error } } });
  }

  recording(recording: RecordingBehaviour): ScenarioBuilder<W> {
    return new ScenarioBuilder(this.workflow, {
      ...this.json,
      recording: {
        mode: recording.mode,
        ...(recording.processingMs !== undefined ? { processing_ms: recording.processingMs } : {}),
        ...(recording.sizeBytes !== undefined ? { size_bytes: recording.sizeBytes } : {}),
      },
    });
  }

  /** A computer session has no recording (404 `RECORDING_NOT_FOUND`). */
  session(session: "browser" | "computer"): ScenarioBuilder<W> {
    return new ScenarioBuilder(this.workflow, { ...this.json, session });
  }

  /** Time spent queued and starting before the session exists (emulator defaults: 50 ms each). */
  timing(timing: { readonly queueMs?: number; readonly startMs?: number }): ScenarioBuilder<W> {
    return new ScenarioBuilder(this.workflow, {
      ...this.json,
      ...(timing.queueMs !== undefined ? { queue_ms: timing.queueMs } : {}),
      ...(timing.startMs !== undefined ? { start_ms: timing.startMs } : {}),
    });
  }

  /** The emulator's JSON for this scenario. */
  toJSON(): ScenarioJson {
    return structuredClone(this.json);
  }

  private step(step: ScenarioStep): ScenarioBuilder<W> {
    return new ScenarioBuilder(this.workflow, { ...this.json, steps: [...this.json.steps, step] });
  }
}

/**
 * A file output of a scenario, with its bytes: put it where the workflow's
 * outputs have a file (typed as the download reference a reader gets). The
 * emulator serves these bytes at the reference's `download_url`.
 */
export function fileOutput(
  bytes: Uint8Array,
  options: { readonly filename: string; readonly mimeType: string },
): FileOutputReference {
  const marker = {
    $file: {
      filename: options.filename,
      mime_type: options.mimeType,
      base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
    },
  };
  // The emulator turns the marker into the reference when the run succeeds.
  return marker as unknown as FileOutputReference;
}

/** Starts a typed scenario of one generated workflow: `scenario(workflows.invoiceIntake).checkpoint(...).succeed({...})`. */
export function scenario<W extends AnyWorkflowDefinition>(workflow: W): ScenarioBuilder<W> {
  return ScenarioBuilder.of(workflow);
}
