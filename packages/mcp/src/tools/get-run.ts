// The `get_run` tool: the run's envelope, whether it is terminal and whether a person is needed.
import { describeRun, idArgument, ok, runShape, type ToolContext } from "./tool-context.js";

export function getRun({ registerTool, backend }: ToolContext): void {
  registerTool(
    "get_run",
    {
      title: "Get a run",
      description:
        "The run's current envelope: status, whether it is terminal, whether a person is needed.",
      inputSchema: { run_id: idArgument },
      outputSchema: runShape,
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    async ({ run_id }) => {
      const described = describeRun(backend, await backend.getRun(run_id));
      return ok(
        `Run ${run_id}: ${described.status}${described.needs_person ? " (a person is needed: explain_human_wait)" : ""}.`,
        described,
      );
    },
  );
}
