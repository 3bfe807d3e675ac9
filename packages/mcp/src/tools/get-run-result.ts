// The `get_run_result` tool: pending, or the terminal status with outputs and error, worded so that
// an agent does not take a run that did not succeed (or a drafted text) for a success.
import { z } from "zod";
import { idArgument, ok, type ToolContext } from "./tool-context.js";

export function getRunResult({ registerTool, backend }: ToolContext): void {
  registerTool(
    "get_run_result",
    {
      title: "Get a run's result",
      description:
        "pending while the run is not terminal; once terminal, the status, outputs and error. A terminal run that did not succeed is not a success, and a text output such as a drafted message does not prove that anything was sent.",
      inputSchema: { run_id: idArgument },
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
    async ({ run_id }) => {
      const result = await backend.getRunResult(run_id);
      const summary =
        result.state === "pending"
          ? `Run ${run_id} is not terminal yet (${result.status}).`
          : result.succeeded
            ? `Run ${run_id} succeeded.`
            : `Run ${run_id} ended ${result.status}: it did not succeed.`;
      return ok(summary, { run_id, ...result });
    },
  );
}
