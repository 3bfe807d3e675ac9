// The agent tools (docs/service-rules.md#agent-endpoint: the MCP server "lets coding agents start authoring
// sessions, save workflows, launch and watch runs, and see why a run needs a
// human (the decision stays with a person)"). No tool answers a checkpoint or
// cancels a run. Names are short snake_case (clients reject dots and names
// over 64 characters); annotations are honest, because clients auto-approve
// on them. One table of tools, one module each (tools/).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { WorkflowBackend } from "./backend.js";
import { explainHumanWait } from "./tools/explain-human-wait.js";
import { getRun } from "./tools/get-run.js";
import { getRunEvents } from "./tools/get-run-events.js";
import { getRunResult } from "./tools/get-run-result.js";
import { getWorkflowSchema } from "./tools/get-workflow-schema.js";
import { launchRun } from "./tools/launch-run.js";
import { listWorkflows } from "./tools/list-workflows.js";
import { toolError } from "./tools/next-step.js";
import { saveWorkflow } from "./tools/save-workflow.js";
import { startAuthoringSession } from "./tools/start-authoring-session.js";
import { checkedArguments, unknownTool } from "./tools/tool-arguments.js";
import type { ToolContext, ToolExtra } from "./tools/tool-context.js";
import { WAIT_CALL_MAX_MS, waitForRun } from "./tools/wait-for-run.js";

/** Every tool, in the order a client lists them; each registers itself (or not, when the backend lacks what it needs). */
const TOOLS: readonly ((context: ToolContext) => void)[] = [
  listWorkflows,
  getWorkflowSchema,
  startAuthoringSession,
  saveWorkflow,
  launchRun,
  getRun,
  waitForRun,
  getRunEvents,
  getRunResult,
  explainHumanWait,
];

export interface ToolOptions {
  /** Where runs started here are marked (metadata), e.g. "mcp". Default "mcp". */
  readonly launchedVia?: string;
  /** Poll interval of wait_for_run. Default 500 ms. */
  readonly pollIntervalMs?: number;
  /** The longest one wait_for_run call waits. Default WAIT_CALL_MAX_MS (50 s). */
  readonly waitCallMaxMs?: number;
}

export function registerWorkflowTools(
  server: McpServer,
  backend: WorkflowBackend,
  options: ToolOptions = {},
): void {
  /** Each tool's arguments schema and its work, by name: what a tools/call is checked against. */
  const registered = new Map<
    string,
    { arguments: z.ZodType; work: (args: never, extra: ToolExtra) => Promise<CallToolResult> }
  >();
  const context: ToolContext = {
    server,
    backend,
    registerTool: (name, definition, work) => {
      registered.set(name, { arguments: z.object(definition.inputSchema), work });
      // The SDK lists the tool from this definition; its calls are answered below.
      server.registerTool(name, definition, work as never);
    },
    launchedVia: options.launchedVia ?? "mcp",
    pollIntervalMs: options.pollIntervalMs ?? 500,
    waitCallMaxMs: options.waitCallMaxMs ?? WAIT_CALL_MAX_MS,
  };
  for (const register of TOOLS) register(context);
  // Every call goes through one check of its arguments (tool-arguments.ts), so that a bad
  // argument is answered like any other tool error; the SDK's handler, installed by
  // registerTool, would answer `MCP error -32602` text instead.
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      const tool = registered.get(request.params.name);
      if (!tool) throw unknownTool(request.params.name);
      const args = await checkedArguments(tool.arguments, request.params.arguments);
      return await tool.work(args as never, extra);
    } catch (error) {
      return toolError(error);
    }
  });
}
