// `wfr diff`: its options, help and examples; the action is imported when the command runs.
import { type Command, Option } from "commander";
import { lazyAction } from "../../lazy-action.js";

export function defineDiffCommand(program: Command): void {
  program
    .command("diff")
    .description("breaking-change diff of two definitions (files, schemas/<env> folders or URLs)")
    .argument("<old>")
    .argument("<new>")
    .addOption(
      new Option("--format <format>").choices(["text", "markdown", "json"]).default("text"),
    )
    .addOption(new Option("--fail-on <what>").choices(["breaking", "any", "none"]).default("none"))
    .addHelpText(
      "after",
      "\nExamples:\n  wfr diff schemas/production old.json --fail-on breaking --format markdown",
    )
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.diffCommand,
      ),
    );
}
