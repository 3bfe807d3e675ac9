// `wfr init`: its options, help and examples; the action is imported when the command runs.
import type { Command } from "commander";
import { lazyAction } from "../../lazy-action.js";

export function defineInitCommand(program: Command): void {
  program
    .command("init")
    .description(
      "add wfr.config.json, schemas/, package scripts, the #wfr/* import alias and a CI workflow to this repository",
    )
    .option("--yes", "write without asking (no prompts: needs --base-url on a new environment)")
    .option("--no-input", "never prompt (fails where an answer is needed)")
    .option("--env <name>", "environment name (default: asked, or production)")
    .option("--base-url <url>", "the environment's API base, ending in /api/v1")
    .option(
      "--api-key-env <VAR>",
      "name of the environment variable holding the key (default WFR_<ENV>_API_KEY)",
    )
    .option("--add-env", "add one more environment to an initialised repository")
    .addHelpText(
      "after",
      "\nKeys: a scoped workspace key, created in the Workflow Run application under its resources section\n(scopes workflows:run and runs:read); `wfr emulator` prints one for local work. Only the NAME of the\nvariable holding it is written.\n\nExamples:\n  wfr init\n  wfr init --yes --env production --base-url https://api.example.com/production/api/v1\n  wfr init --add-env --yes --env staging --base-url https://api.example.com/staging/api/v1",
    )
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.initCommand,
      ),
    );
}
