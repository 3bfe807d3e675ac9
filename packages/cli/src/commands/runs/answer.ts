// `wfr runs answer <runId>`: the run's open human checkpoint, answered.
import { RUN_STATUS } from "@wfr/protocol";
import { type RunEnvelope, toCliError } from "../../adapters/runtime.js";
import { CliError } from "../../cli-error.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { FILE_BUDGET, readTextFileWithin } from "../../file-budgets.js";
import { printable } from "../../printable.js";
import { statusLabel } from "../../status-label.js";
import { bold, terminal, writeJson } from "../../terminal.js";

function parseResponseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new CliError(`--response-json: not JSON: ${(error as Error).message}`, EXIT.USAGE);
  }
}

export async function answerCommand(
  runId: string,
  options: ConnectionOptions & {
    checkpoint?: string;
    response?: string;
    responseFile?: string;
    responseJson?: string;
    input?: boolean;
    json?: boolean;
  },
): Promise<number> {
  const t = terminal({ noInput: options.input === false });
  const { client } = await openConnection(options);
  let run: RunEnvelope;
  try {
    run = await client.getRun(runId);
  } catch (error) {
    throw toCliError(error);
  }
  const h = run.human_action as Record<string, unknown> | null | undefined;
  if (run.status !== RUN_STATUS.waiting_for_human_live || !h)
    throw new CliError(
      `${runId} is not waiting for a person (status ${statusLabel(run)})`,
      EXIT.HUMAN_WAIT_CONFLICT,
    );
  const checkpointId = String(h.checkpoint_id ?? "");
  // Never answer a different checkpoint than the one the caller saw.
  if (options.checkpoint !== undefined && options.checkpoint !== checkpointId)
    throw new CliError(
      `--checkpoint ${options.checkpoint} is not the open checkpoint (${checkpointId})`,
      EXIT.HUMAN_WAIT_CONFLICT,
    );
  t.stderr.write(`${bold(t, `Run ${runId} waits for a person`)}\n`);
  for (const field of [
    "checkpoint_id",
    "kind",
    "reason",
    "instructions",
    "stop_condition",
    "expires_at",
  ])
    if (h[field] !== undefined && h[field] !== null)
      t.stderr.write(`  ${field}: ${printable(String(h[field]))}\n`);
  if (h.response_accepted === true)
    t.stderr.write("  an answer was already received; the runtime has not acknowledged it yet\n");
  let response: unknown;
  if (options.responseFile !== undefined) {
    try {
      response = JSON.parse(
        readTextFileWithin("--response-file", options.responseFile, FILE_BUDGET.response),
      );
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(
        `--response-file ${options.responseFile}: ${(error as Error).message}`,
        EXIT.USAGE,
      );
    }
  } else if (options.responseJson !== undefined) {
    response = parseResponseJson(options.responseJson);
  } else if (options.response !== undefined) {
    response = options.response;
  } else {
    if (!t.interactive)
      throw new CliError(
        "no answer: give --response, --response-json or --response-file (not a terminal, or --no-input)",
        EXIT.USAGE,
      );
    const prompts = await import("@clack/prompts");
    const answer = await prompts.text({
      message: "Your answer (sent as text; --response-json sends JSON)",
      validate: (v) => (v ? undefined : "required"),
    });
    if (prompts.isCancel(answer)) {
      t.stderr.write("wfr: not answered\n");
      return EXIT.HUMAN_NEEDED;
    }
    response = answer;
  }
  let after: RunEnvelope;
  try {
    after = await client.answerHumanInput(runId, { checkpointId, response });
  } catch (error) {
    throw toCliError(error);
  }
  if (options.json || !t.stdout.isTTY) writeJson(t, after);
  else t.stdout.write(`answered ${checkpointId}; status ${statusLabel(after)}\n`);
  return EXIT.OK;
}
