// The `wait_for_run` tool: polls within a bound an agent chooses and answers with the state reached,
// never an error for the bound, so that an agent is not left hanging.
//
// One call waits at most WAIT_CALL_MAX_MS, whatever timeout_seconds says (up to 120 is still
// accepted): the official SDK client fails any request after 60 s unless the caller opts into
// resetting that timeout on progress (`resetTimeoutOnProgress` is off by default), so progress
// notifications alone would not save a longer wait. A call that reaches the bound answers
// timed_out with the advice to call again, which every client can follow.
import { z } from "zod";
import { describeRun, idArgument, ok, runShape, type ToolContext } from "./tool-context.js";

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    // The listener goes with the timer: a long wait polls many times on one signal.
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", wake);
      resolve();
    }, ms);
    signal?.addEventListener("abort", wake, { once: true });
  });

/** Under the SDK client's default request timeout (60 s), with room for a slow round trip. */
export const WAIT_CALL_MAX_MS = 50_000;

export function waitForRun({
  registerTool,
  backend,
  pollIntervalMs,
  waitCallMaxMs,
}: ToolContext): void {
  registerTool(
    "wait_for_run",
    {
      title: "Wait for a run",
      description:
        "Waits until the run is terminal or needs a person, at most timeout_seconds (default 30) and at most 50 s in one call. When the bound is reached it returns the current state with timed_out true (call again to keep waiting); it never fails for that. Sends progress notifications while waiting.",
      inputSchema: {
        run_id: idArgument,
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
    async ({ run_id, timeout_seconds }, extra) => {
      const deadline = Date.now() + Math.min((timeout_seconds ?? 30) * 1000, waitCallMaxMs);
      const progressToken = extra._meta?.progressToken;
      let polls = 0;
      for (;;) {
        const described = describeRun(backend, await backend.getRun(run_id));
        polls += 1;
        if (described.terminal || described.needs_person) {
          return ok(`Run ${run_id}: ${described.status}.`, { ...described, timed_out: false });
        }
        if (Date.now() >= deadline || extra.signal.aborted) {
          return ok(
            `Run ${run_id} is still ${described.status}; call wait_for_run again to keep watching.`,
            {
              ...described,
              timed_out: true,
            },
          );
        }
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress: polls, message: `status: ${described.status}` },
          });
        }
        await sleep(Math.min(pollIntervalMs, Math.max(0, deadline - Date.now())), extra.signal);
      }
    },
  );
}
