// The @wfr/mcp backend of the emulator's /mcp endpoint.
//
// Runs are launched and read through the emulator's own REST API on loopback, with an internal
// API key of the person's workspace that never leaves the process. Why not the engine directly:
// "everything the agent does must behave exactly like the API", and the only way that
// stays true as the REST handlers change is to *be* the REST handlers: the same launch check
// order, idempotency replay and IDEMPOTENCY_CONFLICT, 202-pending vs 200-terminal results,
// 404 for another workspace's runs. The internal key marks the runs it launches as started
// through MCP (`source: "mcp"`). Workflow listing reads the environment's emitted definition
// (what an agent with `wfr mcp` reads too); authoring, which the REST API does not offer, goes to
// the authoring store.

import {
  type AgentFile,
  type AuthoringSession,
  BackendError,
  type RunRecord,
  type RunResultRecord,
  type SaveWorkflowRequest,
  type WorkflowBackend,
  type WorkflowSchema,
  type WorkflowSummary,
  workflowsFromDefinition,
} from "@wfr/mcp";
import { CODE, RUN_STATUS } from "@wfr/protocol";
import { AuthoringError, type DraftRequest } from "../authoring.js";

/** What the backend needs from the emulator, for one person (environment and workspace). */
export interface EmulatorBackendContext {
  environment: string;
  workspace: string;
  /** http://host:port/<env>/api/v1 and http://host:port/<env>. */
  apiBase: string;
  envBase: string;
  /** The internal API key (both scopes) of this workspace; used only on loopback. */
  agentKey: string;
  /**
   * Whether the person's token still stands. Checked before every call, so that revoking it
   * also ends work already in flight (a wait_for_run polls through here).
   */
  personStillAuthorized(): boolean;
  /** The environment's emitted definition and the workspace its workflows belong to. */
  definition(): { document: unknown; workspace: string };
  startAuthoringSession(purpose: string): { session_id: string; expires_at: string };
  saveDraft(request: DraftRequest): WorkflowSummary;
}

interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

export function createEmulatorBackend(ctx: EmulatorBackendContext): WorkflowBackend {
  const api = async (
    method: "GET" | "POST",
    path: string,
    init: { body?: unknown } = {},
  ): Promise<ApiAnswer> => {
    if (!ctx.personStillAuthorized()) {
      throw new BackendError(
        CODE.UNAUTHENTICATED,
        "the personal access token was revoked; ask a person for a new one",
        401,
      );
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${ctx.agentKey}` };
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${ctx.apiBase}${path}`, {
      method,
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status >= 400) throw apiError(res.status, body);
    return { status: res.status, body };
  };
  const runPath = (runId: string, tail = "") => `/runs/${encodeURIComponent(runId)}${tail}`;
  const workflows = (): WorkflowSchema[] => {
    const { document, workspace } = ctx.definition();
    // docs/service-rules.md#authentication: another workspace's workflows are not visible.
    return workspace === ctx.workspace ? workflowsFromDefinition(document) : [];
  };

  return {
    environment: ctx.environment,
    async listWorkflows() {
      return workflows().map(({ id, name, state, revision }) => ({ id, name, state, revision }));
    },
    async getWorkflowSchema(workflowId) {
      const found = workflows().find((w) => w.id === workflowId);
      if (!found) throw new BackendError(CODE.WORKFLOW_NOT_FOUND, "workflow not found", 404);
      return found;
    },
    async launchRun(request) {
      const inputs: Record<string, unknown> = { ...request.inputs };
      const attachments: Record<string, string>[] = [];
      // Files become attachments with ids numbered in field order, so an identical request
      // is an identical launch body (the idempotency fingerprint).
      const attach = (f: AgentFile) => {
        const id = `att_${attachments.length + 1}`;
        attachments.push({ id, filename: f.filename, mimeType: f.mime_type, base64: f.base64 });
        return { attachment_id: id };
      };
      for (const [field, given] of Object.entries(request.files ?? {})) {
        inputs[field] = Array.isArray(given) ? given.map(attach) : attach(given as AgentFile);
      }
      // The key goes in the body's idempotency_key field, which the spec offers for exactly this
      // (docs/service-rules.md#launch-body: `idempotency_key` "wins over the header"): a header
      // carries only Latin-1, and an agent's key may hold any character.
      const body = {
        inputs,
        idempotency_key: request.idempotencyKey,
        ...(request.metadata ? { metadata: request.metadata } : {}),
        ...(request.model ? { model: request.model } : {}),
        ...(attachments.length > 0 ? { input_context: { attachments } } : {}),
      };
      const answer = await api(
        "POST",
        `/automations/${encodeURIComponent(request.workflowId)}/runs`,
        { body },
      );
      return answer.body as RunRecord;
    },
    async getRun(runId) {
      return (await api("GET", runPath(runId))).body as RunRecord;
    },
    async getRunEvents(runId) {
      return (await api("GET", runPath(runId, "/events"))).body;
    },
    async getRunResult(runId): Promise<RunResultRecord> {
      const { status, body } = await api("GET", runPath(runId, "/result"));
      // docs/service-rules.md#results: 202 while not terminal; 200 also for failures.
      return {
        state: status === 202 ? "pending" : "terminal",
        status: String(body.status),
        succeeded: status === 200 && body.status === RUN_STATUS.succeeded,
        outputs: body.outputs ?? null,
        error: body.error ?? null,
        metadata: body.metadata ?? {},
      };
    },
    runPageUrl: (runId) => `${ctx.envBase}/portal/runs/${encodeURIComponent(runId)}/live`,
    async startAuthoringSession(purpose): Promise<AuthoringSession> {
      const s = ctx.startAuthoringSession(purpose);
      return {
        session_id: s.session_id,
        live_view_url: `${ctx.envBase}/portal/authoring/${encodeURIComponent(s.session_id)}/live`,
        expires_at: s.expires_at,
      };
    },
    async saveWorkflow(request: SaveWorkflowRequest) {
      if (ctx.definition().workspace !== ctx.workspace) {
        throw new BackendError(
          CODE.WORKSPACE_NOT_IN_ENVIRONMENT,
          `this token's workspace has no catalog in the ${ctx.environment} environment`,
          403,
        );
      }
      try {
        return ctx.saveDraft(request as DraftRequest);
      } catch (e) {
        if (e instanceof AuthoringError) throw new BackendError(e.code, e.message, 400);
        throw e;
      }
    },
  };
}

/** The API's error body as a tool error: its code, its message, the fields it names. */
function apiError(status: number, body: Record<string, unknown>): BackendError {
  const code = typeof body.code === "string" ? body.code : CODE.HTTP_ERROR;
  let message = typeof body.error === "string" ? body.error : `the API answered ${status}`;
  if (Array.isArray(body.details) && body.details.length > 0) {
    const fields = body.details.map((d) => {
      const { field, reason, message: why } = (d ?? {}) as Record<string, unknown>;
      return `${String(field)} ${String(reason)}${why ? ` (${String(why)})` : ""}`;
    });
    message += `: ${fields.join("; ")}`;
  }
  if (typeof body.state === "string") message += ` (state: ${body.state})`;
  return new BackendError(code, message, status);
}
