// `wfr exit-codes`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { exitCodeTableText } from "../../exit-codes.js";
import { lazyAction } from "../../lazy-action.js";

export function defineExitCodesCommand(program: Command): void {
  program
    .command("exit-codes")
    .description("print the exit-code table")
    // `wfr help exit-codes` (which `wfr --help` names too) shows the table, not only the usage.
    .addHelpText("after", () => `\nExit codes:\n${exitCodeTableText()}`)
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.exitCodesCommand,
      ),
    );
}
