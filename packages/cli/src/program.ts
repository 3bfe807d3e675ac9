// The command tree: each command's definition lives beside it (commands/<name>/command.ts) and
// imports its action on demand, so `wfr --help` loads neither TypeScript (codegen) nor the emulator.
import { Command } from "commander";
import { CliError } from "./cli-error.js";
import { defineCallbacksCommand } from "./commands/callbacks/command.js";
import { defineDiffCommand } from "./commands/diff/command.js";
import { defineEmulatorCommand } from "./commands/emulator/command.js";
import { defineExitCodesCommand } from "./commands/exit-codes/command.js";
import { defineGenerateCommand } from "./commands/generate/command.js";
import { defineInitCommand } from "./commands/init/command.js";
import { defineLaunchCommand } from "./commands/launch/command.js";
import { defineMcpCommand } from "./commands/mcp/command.js";
import { defineRunsCommand } from "./commands/runs/command.js";
import { defineSchemasCommand } from "./commands/schemas/command.js";
import { EXIT } from "./exit-codes.js";
import { VERSION } from "./version.js";

function buildProgram(): Command {
  const program = new Command("wfr")
    .description("Workflow Run from the command line: schemas, code generation, runs, emulator.")
    .version(VERSION)
    .showHelpAfterError()
    .addHelpText(
      "after",
      `
Examples:
  wfr init
  wfr schemas pull --check
  wfr generate
  wfr launch invoiceIntake --env production --input amount=12 --file invoice_pdf=inv.pdf --wait
  wfr runs watch run_123 --env production

Exit codes: \`wfr exit-codes\` (or \`wfr help exit-codes\`) prints the table; the README explains them.`,
    );

  defineInitCommand(program);
  defineSchemasCommand(program);
  defineGenerateCommand(program);
  defineDiffCommand(program);
  defineLaunchCommand(program);
  defineRunsCommand(program);
  defineEmulatorCommand(program);
  defineMcpCommand(program);
  defineCallbacksCommand(program);
  defineExitCodesCommand(program);

  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  // Every command, not just the root: a subcommand's own parse errors (an unknown subcommand
  // such as `runs wach`, a missing required option) would otherwise exit 1 from inside commander.
  const overrideExit = (command: typeof program): void => {
    command.exitOverride();
    for (const sub of command.commands) overrideExit(sub);
  };
  overrideExit(program);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    const e = error as { code?: string; exitCode?: number };
    if (typeof e.code === "string" && e.code.startsWith("commander.")) {
      if (
        e.code === "commander.helpDisplayed" ||
        e.code === "commander.version" ||
        e.code === "commander.help"
      )
        return 0;
      return EXIT.USAGE;
    }
    if (error instanceof CliError) {
      process.stderr.write(`wfr: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`wfr: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.ERROR;
  }
}
