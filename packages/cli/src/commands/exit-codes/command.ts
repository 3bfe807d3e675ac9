// `wfr exit-codes`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";

export function defineExitCodesCommand(program: Command): void {
  program
    .command("exit-codes")
    .description("print the exit-code table")
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.exitCodesCommand,
      ),
    );
}
