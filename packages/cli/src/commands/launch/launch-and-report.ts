// The launch itself, shared by `wfr launch` and `wfr runs relaunch`: the idempotency key is printed
// on stderr BEFORE sending, so a crash can be followed by the same launch.
import { randomUUID } from "node:crypto";
import { toCliError } from "../../adapters/runtime.js";
import type { openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { terminal, writeJson } from "../../terminal.js";
import { followRun } from "../runs/follow-run.js";

/** Launches with the idempotency key printed first, then prints the run or follows it (`--wait`). */
export async function launchAndReport(
  client: Awaited<ReturnType<typeof openConnection>>["client"],
  workflowId: string,
  inputs: Record<string, unknown>,
  metadata: Record<string, unknown> | undefined,
  options: { model?: string; idempotencyKey?: string; wait?: boolean; json?: boolean },
): Promise<number> {
  const t = terminal();
  const idempotencyKey = options.idempotencyKey ?? `wfr-cli-${randomUUID()}`;
  t.stderr.write(`wfr: idempotency key: ${idempotencyKey}\n`);
  let run: Awaited<ReturnType<typeof client.launch>>;
  try {
    run = await client.launch(workflowId, {
      inputs,
      idempotencyKey,
      ...(metadata ? { metadata } : {}),
      ...(options.model ? { model: options.model as never } : {}),
    });
  } catch (error) {
    throw toCliError(error);
  }
  if (options.wait) {
    t.stderr.write(`wfr: launched ${run.run_id}\n`);
    // The live line (or NDJSON lines) go to stdout only with --json or on a terminal; the outputs follow.
    const code = await followRun(client, run.run_id, {
      json: options.json,
      timeoutSeconds: 1800,
    });
    if (code !== EXIT.OK) return code;
    let result: Awaited<ReturnType<typeof client.getResult>>;
    try {
      result = await client.getResult(run.run_id);
    } catch (error) {
      throw toCliError(error);
    }
    const outputs = (result as { outputs?: unknown }).outputs ?? {};
    if (options.json || !t.stdout.isTTY) writeJson(t, { run_id: run.run_id, outputs });
    else t.stdout.write(`outputs:\n${formatOutputs(outputs)}`);
    return EXIT.OK;
  }
  // The same thing on a terminal and in a pipe: the run id; --json gives the envelope.
  if (options.json) writeJson(t, run);
  else t.stdout.write(`${run.run_id}\n`);
  return EXIT.OK;
}

/** A run's outputs for a person: one `name: value` line each, values as JSON. */
function formatOutputs(outputs: unknown): string {
  if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs))
    return `  ${JSON.stringify(outputs)}\n`;
  return Object.entries(outputs as Record<string, unknown>)
    .map(([name, value]) => `  ${name}: ${JSON.stringify(value)}\n`)
    .join("");
}
