// The agent (MCP) tools of the Workflow Run service, shared by the emulator's
// /mcp endpoint and `wfr mcp` (stdio).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WorkflowBackend } from "./backend.js";
import { registerWorkflowTools, type ToolOptions } from "./tools.js";
import { VERSION } from "./version.js";

export * from "./backend.js";
export { workflowsFromDefinition } from "./definition-workflows.js";
export { registerTool } from "./tool-registry.js";
export { SURFACES, type Surface, TOOL_SURFACES, type ToolName, toolsOf } from "./tool-surfaces.js";
export { toolError } from "./tools/next-step.js";
export type { ToolDefinition, ToolWork } from "./tools/tool-context.js";
export { WAIT_CALL_MAX_MS } from "./tools/wait-for-run.js";
export { registerWorkflowTools, type ToolOptions } from "./tools.js";

/** An MCP server with the workflow tools over `backend`; connect it to any transport. */
export function createWorkflowMcpServer(
  backend: WorkflowBackend,
  options: ToolOptions & { name?: string; version?: string } = {},
) {
  const server = new McpServer(
    { name: options.name ?? "wfr", version: options.version ?? VERSION },
    {
      // Tool refusals are also sent as log messages (tool-registry.ts), for a client's diagnostics.
      capabilities: { logging: {} },
      instructions:
        "Tools of the Workflow Run service: list and inspect workflows, author drafts, launch runs (always with an idempotency key), watch them, read results and events, and explain why a run waits for a person. The decision at a checkpoint stays with a person: no tool answers one, and none cancels a run.",
    },
  );
  registerWorkflowTools(server, backend, options);
  return server;
}
