// `wfr generate`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";
import { collect } from "../../shared-options.js";

export function defineGenerateCommand(program: Command): void {
  program
    .command("generate")
    .description("generate typed code from schemas/ (the codegen generator)")
    .option("--check", "write nothing; exit 3 when the generated code is stale")
    .option("--config <file>", "config file")
    .option(
      "--allow-remove <env>",
      "delete the generated code of an environment whose definition is gone (repeatable)",
      collect,
    )
    .option("--watch", "generate again after every change under schemas/ (Ctrl-C stops)")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr generate\n  wfr generate --check\n  wfr generate --watch\n  wfr generate --allow-remove staging",
    )
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.generateCommand,
      ),
    );
}
