// `wfr runs watch <runId>`.
import { CliError } from "../../cli-error.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { followRun } from "./follow-run.js";

export async function watchCommand(
  runId: string,
  options: ConnectionOptions & { json?: boolean; timeout: string },
): Promise<number> {
  const timeoutSeconds = Number(options.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    throw new CliError(
      `--timeout: ${options.timeout} is not a positive number of seconds`,
      EXIT.USAGE,
    );
  const { client } = await openConnection(options);
  return followRun(client, runId, { json: options.json, timeoutSeconds });
}

/**
 * `--response-json`: a structured answer. `--response` and the prompt are
 * always text, so the type of an answer never depends on what was typed
 * (`123456` and `012345` are both the text a person entered).
 */
