// `wfr diff <old> <new>`: the breaking-change diff of two definitions, with the identifier pins
// `wfr generate` keeps when run inside a wfr project.
import {
  DiffDefinitionError,
  type DiffFormat,
  type DiffReport,
  diffDefinitions,
  formatDiffReport,
  identifierPinFiles,
} from "../../adapters/codegen.js";
import { CliError } from "../../cli-error.js";
import { findConfigFile, loadConfig } from "../../config.js";
import { EXIT } from "../../exit-codes.js";
import { printable } from "../../printable.js";

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
  process.stdout.write(
    options.format === "json"
      ? await formatDiffReport(report, options.format)
      : printable(await formatDiffReport(report, options.format), { keepLineBreaks: true }),
  );
  if (options.failOn === "breaking" && report.summary.breaking > 0) return EXIT.DRIFT_BREAKING;
  if (options.failOn === "any" && report.changes.length > 0) return EXIT.DRIFT_BREAKING;
  return EXIT.OK;
}
