// `wfr runs <subcommand>`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";
import { collect, keyOptions } from "../../shared-options.js";

export function defineRunsCommand(program: Command): void {
  const runs = program.command("runs").description("read, watch and answer runs");
  for (const [name, description] of [
    ["get", "print the run envelope"],
    ["result", "print the result (outputs) or the pending status"],
    ["events", "print the event snapshot"],
  ] as const) {
    keyOptions(runs.command(name).description(description).argument("<runId>"))
      .option("--json", "JSON output")
      .addHelpText("after", `\nExamples:\n  wfr runs ${name} run_123 --env production --json`)
      .action(
        lazyAction(
          () => import("./read.js"),
          (m) => m.readCommand(name),
        ),
      );
  }
  keyOptions(
    runs
      .command("watch")
      .description("follow a run until terminal or a person is needed")
      .argument("<runId>"),
  )
    .option("--timeout <seconds>", "give up after this long (exit 7)", "1800")
    .option("--json", "NDJSON lines even in a TTY")
    .addHelpText("after", "\nExamples:\n  wfr runs watch run_123 --env production")
    .action(
      lazyAction(
        () => import("./watch.js"),
        (m) => m.watchCommand,
      ),
    );
  keyOptions(
    runs.command("answer").description("answer the run's human checkpoint").argument("<runId>"),
  )
    .option("--checkpoint <id>", "the checkpoint being answered")
    .option("--response <text>", "the answer, sent as text (whatever it looks like)")
    .option("--response-json <json>", "the answer as JSON (an object, a number, ...)")
    .option("--response-file <file>", "the answer from a JSON file")
    .option("--no-input", "never prompt")
    .option("--json", "JSON output")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs answer run_123 --env production\n  wfr runs answer run_123 --checkpoint cp_1 --response 012345 --no-input\n  wfr runs answer run_123 --response-json '{\"approved\":true}'",
    )
    .action(
      lazyAction(
        () => import("./answer.js"),
        (m) => m.answerCommand,
      ),
    );
  keyOptions(
    runs
      .command("recording")
      .description("download the session recording (MP4)")
      .argument("<runId>"),
  )
    .requiredOption("-o, --output <file>", "where to write the MP4 (atomically)")
    .addHelpText("after", "\nExamples:\n  wfr runs recording run_123 --env production -o run.mp4")
    .action(
      lazyAction(
        () => import("./recording.js"),
        (m) => m.recordingCommand,
      ),
    );

  keyOptions(
    runs
      .command("relaunch")
      .description("launch the run's workflow again (a new run) with its inputs and any edits")
      .argument("<runId>"),
  )
    .option(
      "--input <name=value>",
      "change an input, parsed by its declared type (repeatable)",
      collect,
    )
    .option(
      "--inputs <file.json>",
      "the run's inputs, when the environment does not give them back",
    )
    .option(
      "--file <field=path>",
      "a file input (repeatable; attachment bytes are never given back)",
      collect,
    )
    .option("--metadata <file.json>", "caller metadata (default: the run's)")
    .option("--model <m>", "model override (default: the run's, where exposed)")
    .option("--idempotency-key <k>", "reuse a key (after a crash: same run)")
    .option("--wait", "wait until terminal or a person is needed")
    .option("--json", "print the run envelope as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs relaunch run_123 --env production --input amount=13\n  wfr runs relaunch run_123 --inputs run_123.inputs.json --file invoice_pdf=inv.pdf",
    )
    .action(
      lazyAction(
        () => import("./relaunch.js"),
        (m) => m.relaunchCommand,
      ),
    );
  keyOptions(
    runs
      .command("export")
      .description("record a finished run into a scenario file the emulator replays")
      .argument("<runId>"),
  )
    .option("-o, --output <file>", "where to write it (default <runId>.wfr-run.json)")
    .option("--fetch-files", "download file outputs and keep their bytes in the file")
    .option(
      "--keep-values",
      "keep the run's values (event data, outputs, checkpoint text, error message, file names and bytes); by default each is a placeholder of the same JSON type",
    )
    .option(
      "--keep-secret-looking-fields",
      "with --keep-values, also keep event fields named like password, token, secret",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs export run_123 --env production\n  wfr runs export run_123 --env production --keep-values --fetch-files\n  wfr emulator --from-schemas schemas --scenario run_123.wfr-run.json",
    )
    .action(
      lazyAction(
        () => import("./export.js"),
        (m) => m.exportCommand,
      ),
    );
  keyOptions(
    runs
      .command("grant")
      .description("a short-lived browser-access grant to embed the run's live view")
      .argument("<runId>"),
  )
    .option("--origin <origin>", "an exact origin the page is served from (repeatable)", collect)
    .option("--expires-in <seconds>", "lifetime, 1 to 3600 seconds (service default when absent)")
    .option("--json", "JSON output")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs grant run_123 --env production --origin https://app.example.com --expires-in 300",
    )
    .action(
      lazyAction(
        () => import("./grant.js"),
        (m) => m.grantCommand,
      ),
    );
  keyOptions(
    runs
      .command("revoke-grant")
      .description("delete a browser-access grant (the run goes on)")
      .argument("<grantId>"),
  )
    .addHelpText("after", "\nExamples:\n  wfr runs revoke-grant grant_123 --env production")
    .action(
      lazyAction(
        () => import("./grant.js"),
        (m) => m.revokeGrantCommand,
      ),
    );
}
