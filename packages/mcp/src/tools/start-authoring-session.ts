// The `start_authoring_session` tool (docs/service-rules.md#agent-endpoint): a cloud-browser session for
// authoring, with the live view link the person opens. Only where the backend offers authoring.
import { z } from "zod";
import { ok, type ToolContext } from "./tool-context.js";

export function startAuthoringSession({ registerTool, backend }: ToolContext): void {
  if (backend.startAuthoringSession) {
    const start = backend.startAuthoringSession.bind(backend);
    registerTool(
      "start_authoring_session",
      {
        title: "Start an authoring session",
        description:
          "Opens a cloud-browser session for authoring a workflow. Returns a live view link for the person and when the session expires.",
        inputSchema: {
          purpose: z.string().max(500).describe("What the workflow should do, shown to the person"),
        },
        outputSchema: { session_id: z.string(), live_view_url: z.string(), expires_at: z.string() },
        annotations: {
          readOnlyHint: false,
          idempotentHint: false,
          destructiveHint: false,
          openWorldHint: false,
        },
      },
      async ({ purpose }) => {
        const session = await start(purpose);
        return ok(
          `Session ${session.session_id}: the person opens ${session.live_view_url} (expires ${session.expires_at}).`,
          { ...session },
        );
      },
    );
  }
}
