// The `wait_for_run` tool: polls within a bound an agent chooses (at most 120 s) and answers with the
// state reached, never an error for the bound, so that an agent is not left hanging.
import { z } from "zod";
import { describeRun, ok, runShape, type ToolContext } from "./tool-context.js";

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export function waitForRun({ server, backend, guard, pollIntervalMs }: ToolContext): void {
  server.registerTool(
    "wait_for_run",
    {
      title: "Wait for a run",
      description:
        "Waits until the run is terminal or needs a person, at most timeout_seconds (default 30, at most 120). When the bound is reached it returns the current state with timed_out true; it never fails for that. Sends progress notifications while waiting.",
      inputSchema: {
        run_id: z.string().min(1),
        timeout_seconds: z.number().min(1).max(120).optional(),
      },
      outputSchema: { ...runShape, timed_out: z.boolean() },
      annotations: {
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      },
    },
    guard(async ({ run_id, timeout_seconds }, extra) => {
      const deadline = Date.now() + (timeout_seconds ?? 30) * 1000;
      const progressToken = extra._meta?.progressToken;
      let polls = 0;
      for (;;) {
        const described = describeRun(backend, await backend.getRun(run_id));
        polls += 1;
        if (described.terminal || described.needs_person) {
          return ok(`Run ${run_id}: ${described.status}.`, { ...described, timed_out: false });
        }
        if (Date.now() >= deadline || extra.signal.aborted) {
          return ok(`Run ${run_id} is still ${described.status}; wait again to keep watching.`, {
            ...described,
            timed_out: true,
          });
        }
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: polls, message: `status: ${described.status}` },
          });
        }
        await sleep(Math.min(pollIntervalMs, Math.max(0, deadline - Date.now())), extra.signal);
      }
    }),
  );
}
