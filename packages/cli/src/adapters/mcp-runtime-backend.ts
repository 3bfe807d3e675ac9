// `wfr mcp`: the agent tools over the public API: the caller's key through @wfr/runtime, and
// the environment's downloaded definition for what the API does not list.

import {
  type AgentFile,
  BackendError,
  type RunRecord,
  type WorkflowBackend,
  type WorkflowSchema,
  workflowsFromDefinition,
} from "@wfr/mcp";
import { CODE, RUN_STATUS } from "@wfr/protocol";
import { createClient, file, type WorkflowRunClient } from "@wfr/runtime";

export interface RuntimeBackendOptions {
  readonly environment: string;
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The environment's OpenAPI definition (parsed), e.g. schemas/<env>/openapi.json. */
  readonly definition: unknown;
  /** The application's run page, `{runId}` replaced; omitted: no link. */
  readonly runPageUrl?: string | undefined;
  readonly fetch?: typeof globalThis.fetch;
}

function toBackendError(error: unknown): never {
  const { code, status, message } = (error ?? {}) as {
    code?: unknown;
    status?: unknown;
    message?: unknown;
  };
  throw new BackendError(
    typeof code === "string" ? code : CODE.REQUEST_FAILED,
    typeof message === "string" ? message : "the request failed",
    typeof status === "number" ? status : undefined,
  );
}

export function createRuntimeBackend(options: RuntimeBackendOptions): WorkflowBackend {
  const client: WorkflowRunClient = createClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const workflows = workflowsFromDefinition(options.definition);
  const find = (workflowId: string): WorkflowSchema => {
    const workflow = workflows.find((w) => w.id === workflowId);
    if (!workflow)
      throw new BackendError(
        CODE.WORKFLOW_NOT_FOUND,
        `no workflow ${workflowId} in the ${options.environment} definition`,
      );
    return workflow;
  };
  const call = <T>(work: () => Promise<T>) => work().catch(toBackendError);
  return {
    environment: options.environment,
    async listWorkflows() {
      return workflows.map(({ id, name, state, revision }) => ({ id, name, state, revision }));
    },
    async getWorkflowSchema(workflowId) {
      return find(workflowId);
    },
    launchRun: (request) =>
      call(async () => {
        const inputs: Record<string, unknown> = { ...request.inputs };
        for (const [field, given] of Object.entries(request.files ?? {})) {
          const toFile = (f: AgentFile) =>
            file(Uint8Array.from(Buffer.from(f.base64, "base64")), {
              filename: f.filename,
              mimeType: f.mime_type,
            });
          inputs[field] = Array.isArray(given) ? given.map(toFile) : toFile(given as AgentFile);
        }
        const run = await client.launch(request.workflowId, {
          inputs,
          ...(request.metadata ? { metadata: request.metadata } : {}),
          ...(request.model ? { model: request.model as never } : {}),
          idempotencyKey: request.idempotencyKey,
        });
        const { idempotencyKey: _key, ...envelope } = run as RunRecord & {
          idempotencyKey?: string;
        };
        return envelope as RunRecord;
      }),
    getRun: (runId) => call(async () => (await client.getRun(runId)) as unknown as RunRecord),
    getRunEvents: (runId) => call(() => client.getEvents(runId)),
    getRunResult: (runId) =>
      call(async () => {
        const result = await client.getResult(runId);
        return {
          state: result.state,
          status: result.state === "terminal" ? result.serverStatus : String(result.status),
          succeeded: result.state === "terminal" && result.status === RUN_STATUS.succeeded,
          outputs: result.outputs ?? null,
          error: result.error ?? null,
          metadata: result.metadata ?? {},
        };
      }),
    runPageUrl: (runId) => options.runPageUrl?.replace("{runId}", encodeURIComponent(runId)),
  };
}
