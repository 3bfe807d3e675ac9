// `wfr runs get|result|events <runId>`.
import { isUnsuccessfulTerminalStatus, toCliError } from "../../adapters/runtime.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { terminal, writeJson } from "../../terminal.js";

type ReadKind = "get" | "result" | "events";

export function readCommand(kind: ReadKind) {
  return async (
    runId: string,
    options: ConnectionOptions & { json?: boolean },
  ): Promise<number> => {
    const t = terminal();
    const { client } = await openConnection(options);
    let value: unknown;
    try {
      value =
        kind === "get"
          ? await client.getRun(runId)
          : kind === "result"
            ? await client.getResult(runId)
            : await client.getEvents(runId);
    } catch (error) {
      throw toCliError(error);
    }
    if (options.json || !t.stdout.isTTY) writeJson(t, value);
    else t.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    if (kind === "result") {
      const status = (value as { status?: string }).status;
      if (status && isUnsuccessfulTerminalStatus(status)) return EXIT.RUN_FAILED;
    }
    return EXIT.OK;
  };
}
