// `wfr schemas pull`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";

export function defineSchemasCommand(program: Command): void {
  const schemas = program
    .command("schemas")
    .description("download and check environment definitions");
  schemas
    .command("pull")
    .description("download each environment's definition into schemas/<env>/ (atomically)")
    .argument("[env...]", "environments (default: all in wfr.config.json)")
    .option(
      "--check",
      "write nothing; compare with the committed files (exit 0 same, 3 non-breaking, 4 breaking)",
    )
    .option("--json", "print the drift report as JSON")
    .option("--config <file>", "config file")
    .option("--api-key-file <file>", "read the API key from this file")
    .addHelpText("after", "\nExamples:\n  wfr schemas pull\n  wfr schemas pull production --check")
    .action(
      lazyAction(
        () => import("./pull.js"),
        (m) => m.schemasPullCommand,
      ),
    );
}
