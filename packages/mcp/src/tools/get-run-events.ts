// The `get_run_events` tool: the run's event snapshot (the service offers no stream).
import { z } from "zod";
import { idArgument, ok, type ToolContext } from "./tool-context.js";

export function getRunEvents({ registerTool, backend }: ToolContext): void {
  registerTool(
    "get_run_events",
    {
      title: "Get a run's events",
      description: "The run's event snapshot (no streaming is offered).",
      inputSchema: { run_id: idArgument },
      outputSchema: { run_id: z.string(), events: z.unknown() },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    async ({ run_id }) => {
      const events = await backend.getRunEvents(run_id);
      return ok(JSON.stringify(events), { run_id, events });
    },
  );
}
