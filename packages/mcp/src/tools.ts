// The agent tools (docs/service-rules.md#agent-endpoint: the MCP server "lets coding agents start authoring
// sessions, save workflows, launch and watch runs, and see why a run needs a
// human (the decision stays with a person)"). No tool answers a checkpoint or
// cancels a run. Names are short snake_case (clients reject dots and names
// over 64 characters); annotations are honest, because clients auto-approve
// on them.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type ClientErrorCode,
  isClientErrorCode,
  isTerminalStatus,
  RUN_STATUS,
} from "@wfr/protocol";
import { z } from "zod";
import { BackendError, type RunRecord, type WorkflowBackend } from "./backend.js";

const WAITING = RUN_STATUS.waiting_for_human_live;

const agentFile = z.object({
  filename: z.string().min(1).max(255),
  mime_type: z.string().min(1),
  base64: z.string().describe("The file's bytes, base64"),
});

const workflowSummary = {
  id: z.string(),
  name: z.string(),
  state: z.enum(["enabled", "draft", "disabled"]),
  revision: z.number().int(),
};
const runShape = {
  run_id: z.string(),
  workflow_id: z.string().optional(),
  status: z.string(),
  terminal: z.boolean(),
  needs_person: z.boolean(),
  person_url: z.string().optional(),
  run: z.record(z.string(), z.unknown()),
};

function ok(summary: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: summary }], structuredContent: structured };
}

const FIX_AND_RELAUNCH =
  "Fix the request (see get_workflow_schema) and launch again with the same idempotency_key.";
const POLL_LATER = "Keep polling the run with get_run; do not launch again to force progress.";
const RETRY_LATER =
  "Try again later with the same idempotency_key; the service may already have the run.";
const ASK_A_PERSON = "A person has to act on this in the web application; tell them the run id.";

/**
 * Every code a tool can see -> what the agent should do next; null: the generic advice. A
 * Record over the vocabulary, so a new code needs a decision here to compile.
 */
const NEXT_STEP: Record<ClientErrorCode, string | null> = {
  IDEMPOTENCY_CONFLICT:
    "This key was used for a different request: use a new idempotency_key for new work, or resend the identical request.",
  INVALID_INPUTS:
    "Fix the listed fields (see get_workflow_schema) and launch again with the same idempotency_key.",
  INVALID_METADATA: "metadata must be a JSON object; fix it and launch again.",
  INVALID_ATTACHMENTS: FIX_AND_RELAUNCH,
  INVALID_JSON: FIX_AND_RELAUNCH,
  INVALID_BODY: FIX_AND_RELAUNCH,
  RUN_OVERRIDE_NOT_ALLOWED:
    "Browser and proxy settings come from the saved workflow; remove them from the request.",
  INVALID_IDEMPOTENCY_KEY: "Use an idempotency_key of 1 to 200 characters.",
  INVALID_MODEL: "Use a model the workflow's schema allows (get_workflow_schema), or none.",
  MODEL_NOT_EXPOSED: "This environment does not expose model for this workflow; leave it out.",
  MODEL_NOT_ALLOWED: "Use a model the workflow's schema allows (get_workflow_schema), or none.",
  INVALID_CALLBACK_URL: "A callback_url must be a public HTTPS URL; leave it out to poll instead.",
  NOT_FOUND: null,
  WORKFLOW_NOT_FOUND: "Check the id with list_workflows.",
  WORKFLOW_NOT_ENABLED:
    "Only enabled workflows can be launched; a person enables a draft in the web application.",
  RUN_NOT_FOUND: "Check the run id; runs of other workspaces are not visible.",
  RECORDING_NOT_FOUND: "This run has no recording (none yet, or a computer session).",
  RECORDING_PROCESSING: "The recording is being assembled; ask again in a few seconds.",
  RECORDING_TOO_LARGE: "The recording is over 128 MiB; open it in the web application.",
  RECORDING_RATE_LIMITED: "The hourly recording limit is reached; try again after Retry-After.",
  HUMAN_WAIT_CONFLICT: ASK_A_PERSON,
  NOT_WAITING_FOR_HUMAN: POLL_LATER,
  HUMAN_WAIT_EXPIRED: "The human wait expired and the run ended; launch again if still wanted.",
  ATTACHMENT_TOO_LARGE: "Each file must be at most 25 MiB; send a smaller file.",
  BODY_TOO_LARGE: "The whole request must be at most 36 MiB; send fewer or smaller files.",
  UNAUTHENTICATED: "The token is missing or wrong.",
  INSUFFICIENT_SCOPE: "The token lacks the scope this needs.",
  API_KEY_IN_QUERY: "Send the key only in the Authorization header, never in the URL.",
  INVALID_API_KEY: "The token is missing or wrong.",
  INVALID_BASE_URL: "The configured base URL is invalid; a person fixes the configuration.",
  INVALID_GRANT: null,
  SESSION_NOT_STARTED: POLL_LATER,
  GRANT_NOT_FOUND: null,
  INTERNAL: RETRY_LATER,
  INVALID_CHECKPOINT_ID: ASK_A_PERSON,
  INVALID_OUTPUTS: "The run's outputs do not match the workflow's schema; tell a person.",
  INVALID_RESPONSE: RETRY_LATER,
  NETWORK_ERROR: RETRY_LATER,
  TIMEOUT: RETRY_LATER,
  ABORTED: RETRY_LATER,
  WAIT_TIMEOUT: POLL_LATER,
  UNEXPECTED: null,
  LAUNCH_INTENT_CONFLICT:
    "This key was used for a different request: use a new idempotency_key for new work.",
  LAUNCH_JOURNAL_INVARIANT: null,
  FILE_OUTPUT_DOWNLOAD_FAILED: "Use the download link from the result again, or tell a person.",
  FILE_OUTPUT_DOWNLOAD_REFUSED:
    "The file's link points outside the environment and its storage origins: do not fetch it; tell a person.",
  DEFINITION_INVALID: "The environment's definition cannot be read; a person pulls it again.",
  REQUEST_FAILED: RETRY_LATER,
};

function toolError(error: unknown): CallToolResult {
  if (error instanceof BackendError) {
    const next =
      (isClientErrorCode(error.code) ? NEXT_STEP[error.code] : null) ??
      "See the message; nothing was changed by this call unless it says so.";
    return {
      isError: true,
      content: [{ type: "text", text: `${error.code}: ${error.message}\nNext: ${next}` }],
    };
  }
  // Never a stack: a short message only.
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: "text", text: `INTERNAL_ERROR: ${message.split("\n")[0]}` }],
  };
}

function describeRun(backend: WorkflowBackend, run: RunRecord) {
  const humanAction = run.human_action as
    | { response_accepted?: boolean; checkpoint_id?: string }
    | null
    | undefined;
  const needsPerson =
    run.status === WAITING &&
    Boolean(humanAction?.checkpoint_id) &&
    !humanAction?.response_accepted;
  const personUrl = backend.runPageUrl(run.run_id);
  return {
    run_id: run.run_id,
    ...(typeof run.workflow_id === "string" ? { workflow_id: run.workflow_id } : {}),
    status: run.status,
    terminal: isTerminalStatus(run.status),
    needs_person: needsPerson,
    ...(personUrl ? { person_url: personUrl } : {}),
    run: run as Record<string, unknown>,
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export interface ToolOptions {
  /** Where runs started here are marked (metadata), e.g. "mcp". Default "mcp". */
  readonly launchedVia?: string;
  /** Poll interval of wait_for_run. Default 500 ms. */
  readonly pollIntervalMs?: number;
}

export function registerWorkflowTools(
  server: McpServer,
  backend: WorkflowBackend,
  options: ToolOptions = {},
): void {
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const guard =
    <A>(work: (args: A, extra: ToolExtra) => Promise<CallToolResult>) =>
    async (args: A, extra: ToolExtra) => {
      try {
        return await work(args, extra);
      } catch (error) {
        return toolError(error);
      }
    };

  server.registerTool(
    "list_workflows",
    {
      title: "List workflows",
      description: `Saved workflows of the ${backend.environment} environment: id, name, state (enabled, draft, disabled) and revision. Only enabled ones can be launched.`,
      inputSchema: {
        state: z
          .enum(["enabled", "draft", "disabled"])
          .optional()
          .describe("Only workflows in this state"),
      },
      outputSchema: { workflows: z.array(z.object(workflowSummary)) },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ state }) => {
      const all = await backend.listWorkflows();
      const workflows = state ? all.filter((w) => w.state === state) : all;
      const lines = workflows.map(
        (w) => `${w.id}  ${w.name}  (${w.state}, revision ${w.revision})`,
      );
      return ok(lines.join("\n") || "No workflows.", { workflows });
    }),
  );

  server.registerTool(
    "get_workflow_schema",
    {
      title: "Get a workflow's inputs and outputs",
      description:
        "The input and output fields of one workflow (JSON Schema with defaults and x-input-type), example launch bodies, and the model values this environment allows (empty: do not send model).",
      inputSchema: { workflow_id: z.string().min(1) },
      outputSchema: {
        ...workflowSummary,
        description: z.string(),
        inputs: z.unknown(),
        outputs: z.unknown(),
        examples: z.array(z.unknown()),
        models: z.array(z.string()),
        model_exposed: z.boolean(),
      },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ workflow_id }) => {
      const schema = await backend.getWorkflowSchema(workflow_id);
      const structured = {
        ...schema,
        examples: [...schema.examples],
        models: [...schema.models],
        model_exposed: schema.models.length > 0,
      };
      return ok(
        `${schema.name} (${schema.id}, ${schema.state}, revision ${schema.revision})\ninputs: ${JSON.stringify(schema.inputs)}\noutputs: ${JSON.stringify(schema.outputs)}`,
        structured,
      );
    }),
  );

  if (backend.startAuthoringSession) {
    const start = backend.startAuthoringSession.bind(backend);
    server.registerTool(
      "start_authoring_session",
      {
        title: "Start an authoring session",
        description:
          "Opens a cloud-browser session for authoring a workflow. Returns a live view link for the person and when the session expires.",
        inputSchema: {
          purpose: z.string().max(500).describe("What the workflow should do, shown to the person"),
        },
        outputSchema: { session_id: z.string(), live_view_url: z.string(), expires_at: z.string() },
        annotations: {
          readOnlyHint: false,
          idempotentHint: false,
          destructiveHint: false,
          openWorldHint: false,
        },
      },
      guard(async ({ purpose }) => {
        const session = await start(purpose);
        return ok(
          `Session ${session.session_id}: the person opens ${session.live_view_url} (expires ${session.expires_at}).`,
          { ...session },
        );
      }),
    );
  }

  if (backend.saveWorkflow) {
    const save = backend.saveWorkflow.bind(backend);
    const field = z.object({
      name: z.string().min(1).max(200),
      type: z.enum(["text", "number", "integer", "boolean", "json", "file", "files"]),
      required: z.boolean().optional(),
      description: z.string().max(2000).optional(),
      enum: z.array(z.string()).optional(),
    });
    server.registerTool(
      "save_workflow",
      {
        title: "Save a workflow as a draft",
        description:
          "Saves a new workflow as a draft (name, description, input and output fields in the definition format's vocabulary, an optional scenario). A draft cannot be launched: enabling it is a person's action in the web application.",
        inputSchema: {
          name: z.string().min(1).max(200),
          description: z.string().max(2000).optional(),
          inputs: z.array(field),
          outputs: z.array(field),
          scenario: z
            .record(z.string(), z.unknown())
            .optional()
            .describe("The emulator's scenario format"),
        },
        outputSchema: workflowSummary,
        annotations: {
          readOnlyHint: false,
          idempotentHint: false,
          destructiveHint: false,
          openWorldHint: false,
        },
      },
      guard(async (args) => {
        const saved = await save(args);
        return ok(
          `Saved ${saved.name} as ${saved.id} (draft, revision ${saved.revision}). A person enables it in the web application.`,
          { ...saved },
        );
      }),
    );
  }

  server.registerTool(
    "launch_run",
    {
      title: "Launch a run",
      description:
        "Starts a run of an enabled workflow. idempotency_key is required: resending the same request with the same key returns the same run, so a retry never starts new work; new work needs a new key. The run acts in real systems through a cloud browser.",
      inputSchema: {
        workflow_id: z.string().min(1),
        inputs: z
          .record(z.string(), z.unknown())
          .describe("Input fields other than files, as their declared types"),
        files: z
          .record(z.string(), z.union([agentFile, z.array(agentFile)]))
          .optional()
          .describe(
            "File inputs by field name: {filename, mime_type, base64}, or a list for a multi-file field",
          ),
        metadata: z.record(z.string(), z.unknown()).optional(),
        model: z.string().optional().describe("Only where get_workflow_schema lists models"),
        idempotency_key: z.string().min(1).max(200),
      },
      outputSchema: runShape,
      // Not read-only and possibly destructive (the workflow acts in other systems); idempotent by key.
      annotations: {
        readOnlyHint: false,
        idempotentHint: true,
        destructiveHint: true,
        openWorldHint: true,
      },
    },
    guard(async ({ workflow_id, inputs, files, metadata, model, idempotency_key }) => {
      const run = await backend.launchRun({
        workflowId: workflow_id,
        inputs,
        files,
        metadata: { ...metadata, launched_via: options.launchedVia ?? "mcp" },
        model,
        idempotencyKey: idempotency_key,
      });
      const described = describeRun(backend, run);
      return ok(`Run ${run.run_id}: ${run.status}. Watch it with wait_for_run.`, described);
    }),
  );

  server.registerTool(
    "get_run",
    {
      title: "Get a run",
      description:
        "The run's current envelope: status, whether it is terminal, whether a person is needed.",
      inputSchema: { run_id: z.string().min(1) },
      outputSchema: runShape,
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ run_id }) => {
      const described = describeRun(backend, await backend.getRun(run_id));
      return ok(
        `Run ${run_id}: ${described.status}${described.needs_person ? " (a person is needed: explain_human_wait)" : ""}.`,
        described,
      );
    }),
  );

  server.registerTool(
    "wait_for_run",
    {
      title: "Wait for a run",
      description:
        "Waits until the run is terminal or needs a person, at most timeout_seconds (default 30, at most 120). When the bound is reached it returns the current state with timed_out true; it never fails for that. Sends progress notifications while waiting.",
      inputSchema: {
        run_id: z.string().min(1),
        timeout_seconds: z.number().min(1).max(120).optional(),
      },
      outputSchema: { ...runShape, timed_out: z.boolean() },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ run_id, timeout_seconds }, extra) => {
      const deadline = Date.now() + (timeout_seconds ?? 30) * 1000;
      const progressToken = extra._meta?.progressToken;
      let polls = 0;
      for (;;) {
        const described = describeRun(backend, await backend.getRun(run_id));
        polls += 1;
        if (described.terminal || described.needs_person) {
          return ok(`Run ${run_id}: ${described.status}.`, { ...described, timed_out: false });
        }
        if (Date.now() >= deadline || extra.signal.aborted) {
          return ok(`Run ${run_id} is still ${described.status}; wait again to keep watching.`, {
            ...described,
            timed_out: true,
          });
        }
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: polls, message: `status: ${described.status}` },
          });
        }
        await sleep(Math.min(pollIntervalMs, Math.max(0, deadline - Date.now())), extra.signal);
      }
    }),
  );

  server.registerTool(
    "get_run_events",
    {
      title: "Get a run's events",
      description: "The run's event snapshot (no streaming is offered).",
      inputSchema: { run_id: z.string().min(1) },
      outputSchema: { run_id: z.string(), events: z.unknown() },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ run_id }) => {
      const events = await backend.getRunEvents(run_id);
      return ok(JSON.stringify(events), { run_id, events });
    }),
  );

  server.registerTool(
    "get_run_result",
    {
      title: "Get a run's result",
      description:
        "pending while the run is not terminal; once terminal, the status, outputs and error. A terminal run that did not succeed is not a success, and a text output such as a drafted message does not prove that anything was sent.",
      inputSchema: { run_id: z.string().min(1) },
      outputSchema: {
        run_id: z.string(),
        state: z.enum(["pending", "terminal"]),
        status: z.string(),
        succeeded: z.boolean(),
        outputs: z.unknown(),
        error: z.unknown(),
        metadata: z.unknown(),
      },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ run_id }) => {
      const result = await backend.getRunResult(run_id);
      const summary =
        result.state === "pending"
          ? `Run ${run_id} is not terminal yet (${result.status}).`
          : result.succeeded
            ? `Run ${run_id} succeeded.`
            : `Run ${run_id} ended ${result.status}: it did not succeed.`;
      return ok(summary, { run_id, ...result });
    }),
  );

  server.registerTool(
    "explain_human_wait",
    {
      title: "Explain why a run waits for a person",
      description:
        "Why the run waits: kind, reason, instructions, stop condition, expiry, whether an answer was already accepted, and the link a person uses. The decision stays with a person: no tool answers a checkpoint.",
      inputSchema: { run_id: z.string().min(1) },
      outputSchema: {
        run_id: z.string(),
        status: z.string(),
        waiting: z.boolean(),
        checkpoint_id: z.string().optional(),
        kind: z.string().optional(),
        reason: z.string().optional(),
        instructions: z.string().optional(),
        stop_condition: z.string().optional(),
        expires_at: z.string().optional(),
        response_accepted: z.boolean().optional(),
        person_url: z.string().optional(),
      },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ run_id }, extra) => {
      const run = await backend.getRun(run_id);
      const action = (run.human_action ?? undefined) as Record<string, unknown> | undefined;
      const personUrl = backend.runPageUrl(run_id);
      const text = (key: string) =>
        typeof action?.[key] === "string" ? (action[key] as string) : undefined;
      const pick = (key: string) => {
        const value = text(key);
        return value === undefined ? {} : { [key]: value };
      };
      const waiting = run.status === WAITING && Boolean(action);
      const structured = {
        run_id,
        status: run.status,
        waiting,
        ...pick("checkpoint_id"),
        ...pick("kind"),
        ...pick("reason"),
        ...pick("instructions"),
        ...pick("stop_condition"),
        ...pick("expires_at"),
        ...(typeof action?.response_accepted === "boolean"
          ? { response_accepted: action.response_accepted }
          : {}),
        ...(personUrl ? { person_url: personUrl } : {}),
      };
      if (!waiting) return ok(`Run ${run_id} is ${run.status}: no person is awaited.`, structured);
      const reason = text("reason");
      const explanation = [
        `Run ${run_id} waits for a person (${text("kind") ?? "checkpoint"}).`,
        reason ? `Reason: ${reason}` : "",
        text("instructions") ? `Instructions: ${text("instructions")}` : "",
        text("stop_condition") ? `Stop condition: ${text("stop_condition")}` : "",
        text("expires_at") ? `Expires: ${text("expires_at")}` : "",
        structured.response_accepted
          ? "An answer was already accepted; the run resumes shortly."
          : "",
        personUrl
          ? `A person answers at ${personUrl}. The decision stays with them; no tool answers it.`
          : "",
      ]
        .filter(Boolean)
        .join("\n");
      // Where the client supports URL-mode elicitation, offer the person the link that way. It
      // rides this call's own response stream (relatedRequestId), so it also reaches the client
      // of a stateless HTTP server, which has no standalone stream (the emulator's /mcp).
      if (
        personUrl &&
        !structured.response_accepted &&
        server.server.getClientCapabilities()?.elicitation?.url
      ) {
        server.server
          .elicitInput(
            {
              mode: "url",
              message: `Run ${run_id} needs a decision from a person: ${reason ?? "a checkpoint"}`,
              url: personUrl,
              elicitationId: `human-wait-${run_id}`,
            },
            { relatedRequestId: extra.requestId },
          )
          .catch(() => undefined);
      }
      return ok(explanation, structured);
    }),
  );
}

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
