// The `explain_human_wait` tool: why a run waits for a person and where that person answers. The
// decision stays with the person (docs/service-rules.md#agent-endpoint): no tool answers a checkpoint.
import { z } from "zod";
import { idArgument, ok, personUrlOf, type ToolContext, WAITING } from "./tool-context.js";

export function explainHumanWait({ server, registerTool, backend }: ToolContext): void {
  registerTool(
    "explain_human_wait",
    {
      title: "Explain why a run waits for a person",
      description:
        "Why the run waits: kind, reason, instructions, stop condition, expiry, whether an answer was already accepted, and the link a person uses. The decision stays with a person: no tool answers a checkpoint.",
      inputSchema: { run_id: idArgument },
      outputSchema: {
        run_id: z.string(),
        status: z.string(),
        waiting: z.boolean(),
        checkpoint_id: z.string().optional(),
        kind: z.string().optional(),
        reason: z.string().optional(),
        instructions: z.string().optional(),
        stop_condition: z.string().optional(),
        expires_at: z.string().optional(),
        response_accepted: z.boolean().optional(),
        person_url: z.string().optional(),
      },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    async ({ run_id }, extra) => {
      const run = await backend.getRun(run_id);
      const action = (run.human_action ?? undefined) as Record<string, unknown> | undefined;
      const personUrl = personUrlOf(backend, run);
      const text = (key: string) =>
        typeof action?.[key] === "string" ? (action[key] as string) : undefined;
      const pick = (key: string) => {
        const value = text(key);
        return value === undefined ? {} : { [key]: value };
      };
      const waiting = run.status === WAITING && Boolean(action);
      const structured = {
        run_id,
        status: run.status,
        waiting,
        ...pick("checkpoint_id"),
        ...pick("kind"),
        ...pick("reason"),
        ...pick("instructions"),
        ...pick("stop_condition"),
        ...pick("expires_at"),
        ...(typeof action?.response_accepted === "boolean"
          ? { response_accepted: action.response_accepted }
          : {}),
        ...(personUrl ? { person_url: personUrl } : {}),
      };
      if (!waiting) return ok(`Run ${run_id} is ${run.status}: no person is awaited.`, structured);
      const reason = text("reason");
      const explanation = [
        `Run ${run_id} waits for a person (${text("kind") ?? "checkpoint"}).`,
        reason ? `Reason: ${reason}` : "",
        text("instructions") ? `Instructions: ${text("instructions")}` : "",
        text("stop_condition") ? `Stop condition: ${text("stop_condition")}` : "",
        text("expires_at") ? `Expires: ${text("expires_at")}` : "",
        structured.response_accepted
          ? "An answer was already accepted; the run resumes shortly."
          : "",
        personUrl
          ? `A person answers at ${personUrl}. The decision stays with them; no tool answers it.`
          : "",
      ]
        .filter(Boolean)
        .join("\n");
      // Where the client supports URL-mode elicitation, offer the person the link that way. It
      // rides this call's own response stream (relatedRequestId), so it also reaches the client
      // of a stateless HTTP server, which has no standalone stream (the emulator's /mcp).
      if (
        personUrl &&
        !structured.response_accepted &&
        server.server.getClientCapabilities()?.elicitation?.url
      ) {
        server.server
          .elicitInput(
            {
              mode: "url",
              message: `Run ${run_id} needs a decision from a person: ${reason ?? "a checkpoint"}`,
              url: personUrl,
              elicitationId: `human-wait-${run_id}`,
            },
            { relatedRequestId: extra.requestId },
          )
          .catch(() => undefined);
      }
      return ok(explanation, structured);
    },
  );
}
