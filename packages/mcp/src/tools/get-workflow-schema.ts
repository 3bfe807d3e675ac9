// The `get_workflow_schema` tool: one workflow's input and output fields, example launch bodies and
// the models this environment allows, so that an agent builds a launch the service accepts.
import { z } from "zod";
import { idArgument, ok, type ToolContext, workflowSummary } from "./tool-context.js";

export function getWorkflowSchema({ registerTool, backend }: ToolContext): void {
  registerTool(
    "get_workflow_schema",
    {
      title: "Get a workflow's inputs and outputs",
      description:
        "The input and output fields of one workflow (JSON Schema with defaults and x-input-type), example launch bodies, and the model values this environment allows (empty: do not send model).",
      inputSchema: { workflow_id: idArgument },
      outputSchema: {
        ...workflowSummary,
        description: z.string(),
        inputs: z.unknown(),
        outputs: z.unknown(),
        examples: z.array(z.unknown()),
        models: z.array(z.string()),
        model_exposed: z.boolean(),
      },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    async ({ workflow_id }) => {
      const schema = await backend.getWorkflowSchema(workflow_id);
      const structured = {
        ...schema,
        examples: [...schema.examples],
        models: [...schema.models],
        model_exposed: schema.models.length > 0,
      };
      return ok(
        `${schema.name} (${schema.id}, ${schema.state}, revision ${schema.revision})\ninputs: ${JSON.stringify(schema.inputs)}\noutputs: ${JSON.stringify(schema.outputs)}`,
        structured,
      );
    },
  );
}
