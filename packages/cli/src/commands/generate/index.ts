// `wfr generate [--check] [--watch]`: typed code from schemas/, through codegen's typed call.
import { resolve } from "node:path";
import { isDefinitionError, runGenerate } from "../../adapters/codegen.js";
import { CliError } from "../../cli-error.js";
import { loadConfig } from "../../config.js";
import { EXIT } from "../../exit-codes.js";
import { wfrCommand } from "../../package-manager.js";

export async function generateCommand(options: {
  check?: boolean;
  config?: string;
  allowRemove?: string[];
  watch?: boolean;
}): Promise<number> {
  const config = loadConfig(process.cwd(), options.config);
  if (options.watch) {
    if (options.check) throw new CliError("--watch and --check do not go together", EXIT.USAGE);
    const { watchGenerate } = await import("./watch.js");
    return watchGenerate({
      schemas: resolve(config.root, config.schemas),
      log: (line) => process.stderr.write(`${line}\n`),
      generateOnce: () => generateOnce(config, options.allowRemove ?? [], false),
    });
  }
  return generateOnce(config, options.allowRemove ?? [], options.check === true);
}

/**
 * One `generate` (or `--check`) through codegen's typed call: out of date is
 * drift (exit 3), a definition it cannot read is DEFINITION_INVALID.
 */
async function generateOnce(
  config: ReturnType<typeof loadConfig>,
  allowRemove: readonly string[],
  check: boolean,
): Promise<number> {
  try {
    const outcome = await runGenerate(
      { stdout: process.stdout, stderr: process.stderr, cwd: config.root },
      {
        // Relative to config.root: messages name wfr-generated, not a long path.
        schemas: config.schemas,
        out: config.generatedOut,
        check,
        allowRemove,
        regenerate: wfrCommand(config.root, "generate"),
      },
    );
    return outcome.kind === "stale" ? EXIT.DRIFT_NON_BREAKING : EXIT.OK;
  } catch (error) {
    if (await isDefinitionError(error))
      throw new CliError((error as Error).message, EXIT.DEFINITION_INVALID);
    throw error;
  }
}
