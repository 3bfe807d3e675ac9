// The `list_workflows` tool: the environment's saved workflows, each with its state (only enabled
// ones can be launched).
import { z } from "zod";
import { ok, type ToolContext, workflowSummary } from "./tool-context.js";

export function listWorkflows({ registerTool, backend }: ToolContext): void {
  registerTool(
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
    async ({ state }) => {
      const all = await backend.listWorkflows();
      const workflows = state ? all.filter((w) => w.state === state) : all;
      const lines = workflows.map(
        (w) => `${w.id}  ${w.name}  (${w.state}, revision ${w.revision})`,
      );
      return ok(lines.join("\n") || "No workflows.", { workflows });
    },
  );
}
