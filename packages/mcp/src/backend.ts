// What the agent tools need from a Workflow Run service. Two implementations:
// the emulator's own state (its /mcp endpoint) and the public API through
// @wfr/runtime (`wfr mcp`, with the caller's key and downloaded definition).

export type WorkflowState = "enabled" | "draft" | "disabled";

export interface WorkflowSummary {
  readonly id: string;
  readonly name: string;
  readonly state: WorkflowState;
  readonly revision: number;
}

export interface WorkflowSchema extends WorkflowSummary {
  readonly description: string;
  /** JSON Schema of `inputs`, as the definition has it (defaults and x-input-type included). */
  readonly inputs: unknown;
  /** JSON Schema of the outputs. */
  readonly outputs: unknown;
  /** Example launch bodies from the definition. */
  readonly examples: readonly unknown[];
  /** The `model` values this environment allows for this workflow; empty when `model` is not exposed. */
  readonly models: readonly string[];
}

/** A file an agent sends for a file input, base64-encoded. */
export interface AgentFile {
  readonly filename: string;
  readonly mime_type: string;
  readonly base64: string;
}

export interface LaunchRunRequest {
  readonly workflowId: string;
  readonly inputs: Record<string, unknown>;
  /** File inputs by field name: one file, or a list for a multi-file field. */
  readonly files?: Record<string, AgentFile | readonly AgentFile[]> | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly model?: string | undefined;
  readonly idempotencyKey: string;
}

/** The run envelope as the API returns it. */
export type RunRecord = Record<string, unknown> & {
  readonly run_id: string;
  readonly status: string;
};

export interface RunResultRecord {
  /** 202 from the result endpoint: not terminal yet. */
  readonly state: "pending" | "terminal";
  readonly status: string;
  readonly succeeded: boolean;
  readonly outputs: unknown;
  readonly error: unknown;
  readonly metadata: unknown;
}

export interface AuthoringSession {
  readonly session_id: string;
  readonly live_view_url: string;
  readonly expires_at: string;
}

export interface SaveWorkflowRequest {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputs: readonly FieldSpec[];
  readonly outputs: readonly FieldSpec[];
  readonly scenario?: unknown;
}

/** A field in the definition format's vocabulary (x-input-type). */
export interface FieldSpec {
  readonly name: string;
  readonly type: "text" | "number" | "integer" | "boolean" | "json" | "file" | "files";
  readonly required?: boolean | undefined;
  readonly description?: string | undefined;
  readonly enum?: readonly string[] | undefined;
}

/** A failure the API reported, with its code: tools turn it into a tool error. */
/**
 * A refusal of the backend (the API's answer, or a local check), with its code and its HTTP
 * status (null when local), shaped like the runtime's WorkflowRunApiError. It cannot extend it:
 * @wfr/mcp may not depend on the runtime (the runtime's tests use the emulator, which uses this
 * package), so the shared base belongs in @wfr/protocol.
 */
export class BackendError extends Error {
  override name = "BackendError";
  readonly code: string;
  readonly status: number | null;
  constructor(code: string, message: string, status?: number) {
    super(message);
    this.code = code;
    this.status = status ?? null;
  }
}

export interface WorkflowBackend {
  readonly environment: string;
  listWorkflows(): Promise<WorkflowSummary[]>;
  getWorkflowSchema(workflowId: string): Promise<WorkflowSchema>;
  launchRun(request: LaunchRunRequest): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord>;
  getRunEvents(runId: string): Promise<unknown>;
  getRunResult(runId: string): Promise<RunResultRecord>;
  /** The link a person opens to see the run (and answer its checkpoint). */
  runPageUrl(runId: string): string | undefined;
  /** Only where the service lets agents author (the emulator; a real environment through its own MCP). */
  startAuthoringSession?(purpose: string): Promise<AuthoringSession>;
  saveWorkflow?(request: SaveWorkflowRequest): Promise<WorkflowSummary>;
}
