// The `save_workflow` tool (docs/service-rules.md#agent-endpoint): an agent saves a workflow as a
// draft only; enabling it is a person's action. Only where the backend offers authoring.
import { z } from "zod";
import { ok, type ToolContext, workflowSummary } from "./tool-context.js";

export function saveWorkflow({ registerTool, backend }: ToolContext): void {
  if (backend.saveWorkflow) {
    const save = backend.saveWorkflow.bind(backend);
    const field = z.object({
      name: z.string().min(1).max(200),
      type: z.enum(["text", "number", "integer", "boolean", "json", "file", "files"]),
      required: z.boolean().optional(),
      description: z.string().max(2000).optional(),
      enum: z.array(z.string()).optional(),
    });
    registerTool(
      "save_workflow",
      {
        title: "Save a workflow as a draft",
        description:
          "Saves a new workflow as a draft (name, description, input and output fields in the definition format's vocabulary, an optional scenario). A draft cannot be launched: enabling it is a person's action in the web application.",
        inputSchema: {
          name: z.string().min(1).max(200),
          description: z.string().max(2000).optional(),
          inputs: z.array(field),
          outputs: z.array(field),
          scenario: z
            .record(z.string(), z.unknown())
            .optional()
            .describe("The emulator's scenario format"),
        },
        outputSchema: workflowSummary,
        annotations: {
          readOnlyHint: false,
          idempotentHint: false,
          destructiveHint: false,
          openWorldHint: false,
        },
      },
      async (args) => {
        const saved = await save(args);
        return ok(
          `Saved ${saved.name} as ${saved.id} (draft, revision ${saved.revision}). A person enables it in the web application.`,
          { ...saved },
        );
      },
    );
  }
}
