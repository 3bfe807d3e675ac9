// A launch's inputs from the command line: a JSON file, `--input name=value` parsed by the field's
// declared type, `--file name=path` as an attachment. Shared by `wfr launch` and `wfr runs relaunch`.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import type { WorkflowModel } from "../../adapters/codegen.js";
import { fileInput, MAX_ATTACHMENT_BYTES } from "../../adapters/runtime.js";
import { CliError } from "../../cli-error.js";
import { EXIT } from "../../exit-codes.js";
import { FILE_BUDGET, readTextFileWithin } from "../../file-budgets.js";
import { fieldOf, parseFieldValue, splitAssignment } from "../../input-values.js";

const MIME: Record<string, string> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  csv: "text/csv",
  txt: "text/plain",
  json: "application/json",
};

export function readJsonObject(flag: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readTextFileWithin(flag, path, FILE_BUDGET.inputs));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${flag} ${path}: ${(error as Error).message}`, EXIT.USAGE);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new CliError(`${flag} ${path}: must hold a JSON object`, EXIT.INVALID_INPUT);
  return value as Record<string, unknown>;
}

/** The environment's committed definition, or a usage error saying how to get it. */
export function definitionFile(
  config: { root: string; schemas: string },
  environment: string,
): string {
  const dir = resolve(config.root, config.schemas, environment);
  const definition = DEFINITION_FILE_NAMES.map((n) => join(dir, n)).find((f) => existsSync(f));
  if (!definition)
    throw new CliError(
      `no definition for ${environment} in ${dir} (run \`wfr schemas pull ${environment}\`)`,
      EXIT.USAGE,
    );
  return definition;
}

/** `--input name=value` (parsed by the field's declared type) and `--file name=path`, over `base`. */
export function applyInputFlags(
  workflow: WorkflowModel,
  base: Record<string, unknown>,
  options: { input?: string[]; file?: string[] },
): Record<string, unknown> {
  const inputs = { ...base };
  for (const assignment of options.input ?? []) {
    const [name, raw] = splitAssignment("--input", assignment);
    inputs[name] = parseFieldValue(fieldOf(workflow, name, "--input"), raw);
  }
  for (const assignment of options.file ?? []) {
    const [name, path] = splitAssignment("--file", assignment);
    const field = fieldOf(workflow, name, "--file");
    if (field.kind !== "file" && field.kind !== "files")
      throw new CliError(
        `--file ${name}: not a file field (declared ${field.kind})`,
        EXIT.INVALID_INPUT,
      );
    if (!existsSync(path)) throw new CliError(`--file ${name}: no such file ${path}`, EXIT.USAGE);
    // Limits checked before anything is sent (spec: one attachment at most 26,214,400 bytes).
    const size = statSync(path).size;
    if (size > MAX_ATTACHMENT_BYTES)
      throw new CliError(
        `--file ${name}: ${path} is ${size} bytes, over ${MAX_ATTACHMENT_BYTES}`,
        EXIT.TOO_LARGE,
      );
    const ext = basename(path).split(".").pop()?.toLowerCase() ?? "";
    const attachment = fileInput(new Uint8Array(readFileSync(path)), {
      filename: basename(path),
      mimeType: MIME[ext] ?? "application/octet-stream",
    });
    if (field.kind === "files") inputs[name] = [...((inputs[name] as unknown[]) ?? []), attachment];
    else inputs[name] = attachment;
  }
  return inputs;
}
