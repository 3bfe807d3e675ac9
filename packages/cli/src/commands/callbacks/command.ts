// `wfr callbacks listen`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";

export function defineCallbacksCommand(program: Command): void {
  program
    .command("callbacks")
    .description("local callback receiver")
    .command("listen")
    .description(
      "print each delivery (type, run, event_id), its signature and dedupe verdicts; optionally forward it",
    )
    .option("--port <n>", "port (0 = any free port)", "4020")
    .option("--host <h>", "host", "127.0.0.1")
    .option(
      "--forward-to <url>",
      "forward each delivery (body and webhook-* headers) to your server",
    )
    .option("--webhook-secret-file <file>", "verify signatures with the whsec_ secret in this file")
    .option("--json", "NDJSON lines even in a TTY")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr callbacks listen --port 4020 --webhook-secret-file .whsec --forward-to http://127.0.0.1:3000/wfr/callbacks",
    )
    .action(
      lazyAction(
        () => import("./listen.js"),
        (m) => m.callbacksListenCommand,
      ),
    );
}
