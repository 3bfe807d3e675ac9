// Shared types of the emulator's model: environments, workflows, scenarios, runs.

import type { FailStatus, KnownRunStatus } from "@wfr/protocol";

export { type FailStatus, isTerminalStatus as isTerminal } from "@wfr/protocol";

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema documents are walked dynamically
export type JsonSchema = any;

export type WorkflowState = "enabled" | "draft" | "disabled";

export interface WorkflowDef {
  id: string;
  name: string;
  description: string;
  state: WorkflowState;
  revision: number;
  /** Whether this environment exposes `model` for this workflow (docs/definition-format.md). */
  model: boolean;
  /** The `inputs` object schema (FileReference/FileOutput kept as $ref). */
  inputs: JsonSchema;
  /** The JSON Schema dialect of `inputs`: draft 4 when read from an OpenAPI 3.0 definition (default 2020-12). */
  inputsDialect?: "draft-04";
  /** The outputs object schema. */
  outputs: JsonSchema;
  /** Example launch body, shown in the definition. */
  example?: Record<string, unknown>;
  scenario?: Scenario;
}

export interface EnvironmentDef {
  name: string;
  workspace: string;
  workflows: Map<string, WorkflowDef>;
  vault: Record<string, string>;
}

/** An environment's definition as the route modules read it (changed only by `commit`). */
export interface EnvironmentDefView {
  readonly name: string;
  readonly workspace: string;
  readonly workflows: ReadonlyMap<string, Readonly<WorkflowDef>>;
  readonly vault: Readonly<Record<string, string>>;
}

export type ScenarioStep =
  | { wait_ms: number }
  | { event: { type: string; [k: string]: unknown } }
  | {
      human: {
        kind: string;
        reason: string;
        instructions?: string;
        stop_condition?: string;
        expires_in_ms: number;
      };
    }
  | { succeed: { outputs?: Record<string, unknown> } }
  | { fail: { status: FailStatus; error: { code?: string; message: string } } };

export interface RecordingConfig {
  mode: "none" | "ready" | "processing";
  processing_ms?: number;
  size_bytes?: number;
}

export interface Scenario {
  steps: ScenarioStep[];
  recording?: RecordingConfig;
  session?: "browser" | "computer";
  /** Time spent queued and starting before the session exists (defaults 50 / 50 ms). */
  queue_ms?: number;
  start_ms?: number;
}

export type RunStatus = KnownRunStatus;

export interface RunEvent {
  id: string;
  type: string;
  at: string;
  step?: number;
  data?: Record<string, unknown>;
}

export interface Checkpoint {
  checkpoint_id: string;
  kind: string;
  reason: string;
  instructions: string | null;
  stop_condition: string | null;
  expires_at: number;
  step: number;
  /** Canonical JSON of the accepted answer, once one was accepted. */
  answer?: string;
  answered_at?: number;
  acknowledged?: boolean;
  expired?: boolean;
}

export interface AttachmentMeta {
  id: string;
  filename: string;
  mimeType: string;
  size_bytes: number;
}

export interface RunRecord {
  run_id: string;
  environment: string;
  workspace: string;
  workflow_id: string;
  revision: number;
  status: RunStatus;
  inputs: Record<string, unknown>;
  metadata: Record<string, unknown>;
  model: string | null;
  callback_url: string | null;
  idempotency_key: string | null;
  fingerprint: string;
  attachments: AttachmentMeta[];
  scenario: Scenario;
  /** Index of the next scenario step to run. */
  step: number;
  /** Clock time (ms) when the engine next has work for this run; null when none. */
  next_at: number | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  session_id: string | null;
  error: { code?: string; message: string } | null;
  outputs: Record<string, unknown> | null;
  events: RunEvent[];
  checkpoints: Checkpoint[];
  /** The checkpoint currently awaited (index into checkpoints), or null. */
  waiting: number | null;
  event_seq: number;
  /** How the run was started: the public API, an agent through /mcp, or "Launch again" in the web app. */
  source?: "api" | "mcp" | "app";
}

/**
 * What the run history lists of a run: the fields every run keeps in memory, also a finished run
 * whose whole record lives on disk (journal/run-archive.ts). A RunRecord is one.
 */
export type RunListing = Pick<
  RunRecord,
  | "run_id"
  | "environment"
  | "workspace"
  | "workflow_id"
  | "status"
  | "created_at"
  | "started_at"
  | "finished_at"
  | "idempotency_key"
  | "source"
>;

/**
 * An agent's cloud-browser authoring session (agent/authoring.ts): a live view link for the
 * person, which expires. Journalled, so the journal and the agent surface both read it.
 */
export interface AuthoringSession {
  session_id: string;
  environment: string;
  workspace: string;
  purpose: string;
  created_at: number;
  expires_at: number;
}
