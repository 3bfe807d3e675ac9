import { resolve } from "node:path";
import {
  DiffDefinitionError,
  type DiffFormat,
  type DiffReport,
  diffDefinitions,
  formatDiffReport,
  identifierPinFiles,
  runGenerate,
} from "../adapters/codegen.js";
import { CliError } from "../cli-error.js";
import { findConfigFile, loadConfig } from "../config.js";
import { EXIT } from "../exit-codes.js";
import { wfrCommand } from "../package-manager.js";

export async function generateCommand(options: {
  check?: boolean;
  config?: string;
  allowRemove?: string[];
  watch?: boolean;
}): Promise<number> {
  const config = loadConfig(process.cwd(), options.config);
  if (options.watch) {
    if (options.check) throw new CliError("--watch and --check do not go together", EXIT.USAGE);
    const { watchGenerate } = await import("./generate-watch.js");
    return watchGenerate({
      schemas: resolve(config.root, config.schemas),
      log: (line) => process.stderr.write(`${line}\n`),
      generateOnce: () =>
        runGenerate(
          { stdout: process.stdout, stderr: process.stderr, cwd: config.root },
          {
            schemas: config.schemas,
            out: config.generatedOut,
            check: false,
            allowRemove: options.allowRemove ?? [],
            regenerate: wfrCommand(config.root, "generate"),
          },
        ),
    });
  }
  const code = await runGenerate(
    { stdout: process.stdout, stderr: process.stderr, cwd: config.root },
    {
      // Relative to config.root (codegen's cwd): its messages name wfr-generated, not a long path.
      schemas: config.schemas,
      out: config.generatedOut,
      check: options.check === true,
      allowRemove: options.allowRemove ?? [],
      regenerate: wfrCommand(config.root, "generate"),
    },
  );
  const { CODEGEN_EXIT } = await import("@wfr/codegen");
  return exitCodeForGenerate(code, CODEGEN_EXIT);
}

/** wfr's exit code for the codegen's (codegen README "Exit codes"). */
export function exitCodeForGenerate(
  codegenExit: number,
  CODEGEN_EXIT: {
    readonly STALE: number;
    readonly DEFINITION_INVALID: number;
    readonly USAGE: number;
  },
): number {
  if (codegenExit === CODEGEN_EXIT.STALE) return EXIT.DRIFT_NON_BREAKING;
  if (codegenExit === CODEGEN_EXIT.DEFINITION_INVALID) return EXIT.DEFINITION_INVALID;
  if (codegenExit === CODEGEN_EXIT.USAGE) return EXIT.USAGE;
  return codegenExit === 0 ? EXIT.OK : EXIT.ERROR;
}

export async function diffCommand(
  oldRef: string,
  newRef: string,
  options: { format: DiffFormat; failOn: "breaking" | "any" | "none" },
): Promise<number> {
  const cwd = process.cwd();
  // Outside a wfr project the diff still works, without identifier pins.
  const config = findConfigFile(cwd) !== undefined ? loadConfig(cwd) : undefined;
  let report: DiffReport;
  try {
    report = await diffDefinitions(oldRef, newRef, {
      cwd,
      ...(config ? { pins: identifierPinFiles(config.root, config.generatedOut) } : {}),
    });
  } catch (error) {
    if (error instanceof DiffDefinitionError)
      throw new CliError(`diff: ${error.message}`, EXIT.USAGE);
    throw error;
  }
  process.stdout.write(await formatDiffReport(report, options.format));
  if (options.failOn === "breaking" && report.summary.breaking > 0) return EXIT.DRIFT_BREAKING;
  if (options.failOn === "any" && report.changes.length > 0) return EXIT.DRIFT_BREAKING;
  return EXIT.OK;
}
