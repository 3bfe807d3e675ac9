// What every agent tool shares: the context it is registered with, the shapes of a workflow and
// of a run in its answers, and how an answer is made. Each tool is its own module beside this one;
// tools.ts lists them in one table.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { isTerminalStatus, RUN_STATUS } from "@wfr/protocol";
import { z } from "zod";
import type { RunRecord, WorkflowBackend } from "../backend.js";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool is registered with (tools.ts makes one per server). */
export interface ToolContext {
  readonly server: McpServer;
  readonly backend: WorkflowBackend;
  /** Wraps a tool's work: any error becomes an error result with the next step (next-step.ts). */
  readonly guard: <A>(
    work: (args: A, extra: ToolExtra) => Promise<CallToolResult>,
  ) => (args: A, extra: ToolExtra) => Promise<CallToolResult>;
  /** Where runs started here are marked (metadata `launched_via`). */
  readonly launchedVia: string;
  /** Poll interval of wait_for_run. */
  readonly pollIntervalMs: number;
}

export const WAITING = RUN_STATUS.waiting_for_human_live;

export const workflowSummary = {
  id: z.string(),
  name: z.string(),
  state: z.enum(["enabled", "draft", "disabled"]),
  revision: z.number().int(),
};
export const runShape = {
  run_id: z.string(),
  workflow_id: z.string().optional(),
  status: z.string(),
  terminal: z.boolean(),
  needs_person: z.boolean(),
  person_url: z.string().optional(),
  run: z.record(z.string(), z.unknown()),
};

export function ok(summary: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: summary }], structuredContent: structured };
}

export function describeRun(backend: WorkflowBackend, run: RunRecord) {
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
