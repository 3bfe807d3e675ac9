// The `launch_run` tool: always with an idempotency key, so that an agent's retry never starts new
// work. Its annotations say it acts in other systems.
import { z } from "zod";
import { describeRun, idArgument, ok, runShape, type ToolContext } from "./tool-context.js";

const agentFile = z.object({
  filename: z.string().min(1).max(255),
  mime_type: z.string().min(1),
  base64: z.string().describe("The file's bytes, base64"),
});

export function launchRun({ registerTool, backend }: ToolContext): void {
  registerTool(
    "launch_run",
    {
      title: "Launch a run",
      description:
        "Starts a run of an enabled workflow. idempotency_key is required: resending the same request with the same key returns the same run, so a retry never starts new work; new work needs a new key. The run acts in real systems through a cloud browser.",
      inputSchema: {
        workflow_id: idArgument,
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
    async ({ workflow_id, inputs, files, metadata, model, idempotency_key }) => {
      const run = await backend.launchRun({
        workflowId: workflow_id,
        inputs,
        files,
        // The caller's metadata, as given (docs/service-rules.md#launch-body: the caller's own
        // object); how the run was started is the run record's `source`, never written here.
        metadata,
        model,
        idempotencyKey: idempotency_key,
      });
      const described = describeRun(backend, run);
      return ok(`Run ${run.run_id}: ${run.status}. Watch it with wait_for_run.`, described);
    },
  );
}
