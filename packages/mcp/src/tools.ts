// The agent tools (docs/service-rules.md#agent-endpoint: the MCP server "lets coding agents start authoring
// sessions, save workflows, launch and watch runs, and see why a run needs a
// human (the decision stays with a person)"). No tool answers a checkpoint or
// cancels a run. Names are short snake_case (clients reject dots and names
// over 64 characters); annotations are honest, because clients auto-approve
// on them. One table of tools, one module each (tools/).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WorkflowBackend } from "./backend.js";
import { registerTool } from "./tool-registry.js";
import { explainHumanWait } from "./tools/explain-human-wait.js";
import { getRun } from "./tools/get-run.js";
import { getRunEvents } from "./tools/get-run-events.js";
import { getRunResult } from "./tools/get-run-result.js";
import { getWorkflowSchema } from "./tools/get-workflow-schema.js";
import { launchRun } from "./tools/launch-run.js";
import { listWorkflows } from "./tools/list-workflows.js";
import { saveWorkflow } from "./tools/save-workflow.js";
import { startAuthoringSession } from "./tools/start-authoring-session.js";
import type { ToolContext } from "./tools/tool-context.js";
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
  const context: ToolContext = {
    server,
    backend,
    registerTool: (name, definition, work) => registerTool(server, name, definition, work),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    waitCallMaxMs: options.waitCallMaxMs ?? WAIT_CALL_MAX_MS,
  };
  for (const register of TOOLS) register(context);
}
