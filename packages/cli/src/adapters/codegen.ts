// The only module that calls @wfr/codegen. Imported lazily: `wfr --help` must
// not pay for loading the generator.
// Depends on: `generateProject` + `describeGenerateOutcome` (generate), `diffDefinitions` + `formatDiff`
// (the diff, called directly), `readDefinition(file)` and the model types.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type {
  DiffReport,
  EnvironmentModel,
  FieldModel,
  GenerateOutcome,
  WorkflowModel,
} from "@wfr/codegen";

export type { DiffReport, EnvironmentModel, FieldModel, GenerateOutcome, WorkflowModel };

export interface Io {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly cwd: string;
}

/** The generator's own config (identifier aliases), in the repository root. */
const CODEGEN_CONFIG_FILE = "wfr.codegen.json";

async function codegen() {
  return import("@wfr/codegen");
}

/**
 * `generate` (or `--check`) through codegen's typed `generateProject`, its
 * outcome printed as the codegen prints it. Folders are relative to `io.cwd`.
 * A definition that cannot be read throws codegen's DefinitionError.
 */
export async function runGenerate(
  io: Io,
  options: {
    schemas: string;
    out: string;
    check: boolean;
    allowRemove?: readonly string[];
    /** The command generated headers and messages name (`npx --no wfr generate`, `pnpm generate`, ...). */
    regenerate?: string;
  },
): Promise<GenerateOutcome> {
  const { DEFAULT_REGENERATE_COMMAND, describeGenerateOutcome, generateProject } = await codegen();
  const regenerate = options.regenerate ?? DEFAULT_REGENERATE_COMMAND;
  const outcome = generateProject({
    schemas: resolve(io.cwd, options.schemas),
    out: resolve(io.cwd, options.out),
    config: resolve(io.cwd, CODEGEN_CONFIG_FILE),
    check: options.check,
    allowRemove: options.allowRemove ?? [],
    regenerate,
  });
  const { stream, text } = describeGenerateOutcome(outcome, {
    program: "wfr",
    out: options.out,
    schemas: options.schemas,
    regenerate,
  });
  io[stream].write(text);
  return outcome;
}

/** Whether an error is codegen's DefinitionError (a definition it cannot read). */
export async function isDefinitionError(error: unknown): Promise<boolean> {
  const { DefinitionError } = await codegen();
  return error instanceof DefinitionError;
}

/** Where `generate` keeps its identifier pins, so the diff reports the identifiers generate would produce. */
export interface IdentifierPinFiles {
  /** identifiers.lock.json beside the generated output folder. */
  readonly lock: string;
  /** wfr.codegen.json (aliases), in the repository root. */
  readonly config: string;
}

export function identifierPinFiles(root: string, generatedOut: string): IdentifierPinFiles {
  return {
    lock: join(dirname(resolve(root, generatedOut)), "identifiers.lock.json"),
    config: join(root, CODEGEN_CONFIG_FILE),
  };
}

export type DiffFormat = "text" | "markdown" | "json";

/**
 * The breaking/non-breaking diff of two definitions (files, folders or URLs),
 * read with the identifier pins generate uses. Throws `DiffDefinitionError`
 * naming the definition that cannot be read.
 */
export async function diffDefinitions(
  oldRef: string,
  newRef: string,
  options: { cwd: string; pins?: IdentifierPinFiles; matchBy?: "id" | "name" },
): Promise<DiffReport> {
  const codegenModule = await codegen();
  try {
    return await codegenModule.diffDefinitions(oldRef, newRef, {
      cwd: options.cwd,
      ...(options.matchBy ? { matchBy: options.matchBy } : {}),
      // A missing lock or config only means nothing is pinned: pass them when present.
      ...(options.pins && existsSync(options.pins.lock) ? { lock: options.pins.lock } : {}),
      ...(options.pins && existsSync(options.pins.config) ? { config: options.pins.config } : {}),
    });
  } catch (error) {
    if (
      error instanceof codegenModule.DiffInputError ||
      error instanceof codegenModule.DefinitionError
    )
      throw new DiffDefinitionError(error.message);
    throw error;
  }
}

/** A definition (or the lock or config beside it) that cannot be read. */
export class DiffDefinitionError extends Error {
  override readonly name = "DiffDefinitionError";
}

/** Renders a diff report as codegen's diff command does. */
export async function formatDiffReport(report: DiffReport, format: DiffFormat): Promise<string> {
  const { formatDiff } = await codegen();
  return formatDiff(report, format);
}

/** codegen's DiffReport, as the CLI reads it (an up-to-date environment has no `old`/`new` sides). */
export type DriftReport = Pick<DiffReport, "changes" | "summary">;

/** The diff of two definition files of one environment (matched by workflow id). */
export async function diffDefinitionFiles(
  oldFile: string,
  newFile: string,
  pins?: IdentifierPinFiles,
): Promise<DiffReport> {
  return diffDefinitions(oldFile, newFile, {
    cwd: process.cwd(),
    matchBy: "id",
    ...(pins ? { pins } : {}),
  });
}

/** Reads one definition into the normalized model (field kinds, identifiers). */
export async function readEnvironmentModel(file: string): Promise<EnvironmentModel> {
  const { readDefinition } = await codegen();
  return readDefinition(file);
}
