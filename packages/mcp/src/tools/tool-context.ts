// What every agent tool shares: the context it is registered with, the shapes of a workflow and
// of a run in its answers, and how an answer is made. Each tool is its own module beside this one;
// tools.ts lists them in one table.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { isTerminalStatus, RUN_STATUS } from "@wfr/protocol";
import { z } from "zod";
import type { RunRecord, WorkflowBackend } from "../backend.js";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How a tool describes itself to clients; its arguments are checked against `inputSchema`. */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Shape;
  readonly outputSchema: z.ZodRawShape;
  readonly annotations: ToolAnnotations;
}

/** A tool's work, given arguments that passed its `inputSchema`. */
export type ToolWork<Shape extends z.ZodRawShape> = (
  args: z.output<z.ZodObject<Shape>>,
  extra: ToolExtra,
) => Promise<CallToolResult>;

/** What a tool is registered with (tools.ts makes one per server). */
export interface ToolContext {
  readonly server: McpServer;
  readonly backend: WorkflowBackend;
  /**
   * Registers a tool: its arguments are checked in one place (tool-arguments.ts) and any error,
   * of the arguments or of the work, becomes an error result with the next step (next-step.ts).
   */
  readonly registerTool: <Shape extends z.ZodRawShape>(
    name: string,
    definition: ToolDefinition<Shape>,
    work: ToolWork<Shape>,
  ) => void;
  /** Poll interval of wait_for_run. */
  readonly pollIntervalMs: number;
  /** The longest one wait_for_run call waits (wait-for-run.ts says why it is bounded). */
  readonly waitCallMaxMs: number;
}

export const WAITING = RUN_STATUS.waiting_for_human_live;

/**
 * The longest id an argument may carry. Ids of the service are short (`run_` and a few dozen
 * characters); 256 leaves room for any id format while keeping an id out of the kilobytes that
 * a URL path or a log line should never carry.
 */
export const ID_MAX_CHARS = 256;
/** C0 and C1 controls and DEL: what would break a URL path, a header or a terminal line. */
const hasControlCharacter = (text: string) =>
  Array.from(text).some((char) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A run or workflow id as an argument: bounded, printable, well-formed Unicode. */
export const idArgument = z
  .string()
  .min(1)
  .max(ID_MAX_CHARS)
  .refine((id) => !hasControlCharacter(id), "must not contain control characters")
  .refine((id) => !LONE_SURROGATE.test(id), "must be well-formed Unicode (no lone surrogate)");

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

/**
 * The link a person opens to see the run and answer its checkpoint: the one the service gave
 * (the checkpoint's `live_view_url` or `live_url`, else the envelope's `live_view_url`; spec
 * "Run envelope": it opens the portal for an authorized signed-in user only, so it is a link
 * for a person, never one a tool follows), else the page the backend knows for runs (the
 * emulator's portal, a `--run-page-url` of `wfr mcp`). Only http(s) links are passed on.
 */
export function personUrlOf(backend: WorkflowBackend, run: RunRecord): string | undefined {
  const action = run.human_action as Record<string, unknown> | null | undefined;
  for (const candidate of [action?.live_view_url, action?.live_url, run.live_view_url]) {
    if (typeof candidate === "string" && /^https?:\/\//i.test(candidate)) return candidate;
  }
  return backend.runPageUrl(run.run_id);
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
  const personUrl = personUrlOf(backend, run);
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
