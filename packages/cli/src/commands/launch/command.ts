// `wfr launch`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";
import { collect, keyOptions } from "../../shared-options.js";

export function defineLaunchCommand(program: Command): void {
  keyOptions(
    program
      .command("launch")
      .description(
        "launch a workflow (by identifier, display name or id); prints the idempotency key first",
      )
      .argument("<workflow>")
      .option(
        "--input <key=value>",
        "an input, parsed by the field's declared type (repeatable)",
        collect,
      )
      .option("--inputs <file.json>", "inputs from a JSON object file")
      .option("--file <field=path>", "a file input, sent as an attachment (repeatable)", collect)
      .option("--metadata <file.json>", "caller metadata (JSON object file)")
      .option("--model <m>", "model override where the environment exposes it")
      .option("--idempotency-key <k>", "reuse a key (after a crash: same run)")
      .option("--wait", "wait until terminal or a person is needed")
      .option("--json", "print the run envelope as JSON"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  wfr launch invoiceIntake --env production --input amount=12 --input vendor_name=Acme",
    )
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.launchCommand,
      ),
    );
}
