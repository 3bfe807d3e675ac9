// generate: read schemas/, emit, then write (or --check) the output folder.
import { resolve } from "node:path";
import { readConfig } from "./config.js";
import { emit, type GeneratedFiles } from "./emit.js";
import type { EnvironmentModel } from "./model.js";
import { readSchemas } from "./read-definition.js";
import { type CheckResult, checkOutput, writeOutput } from "./write-output.js";

export interface GenerateOptions {
  /** Folder with one sub-folder per environment. */
  readonly schemas: string;
  /** The generated package's `src` folder. */
  readonly out: string;
  /** `wfr.codegen.json`; a missing file is fine unless `configRequired`. */
  readonly config?: string;
  readonly configRequired?: boolean;
}

export interface GenerateResult {
  readonly models: EnvironmentModel[];
  readonly files: GeneratedFiles;
}

/** Reads and emits without touching the disk's output. */
export function buildFiles(options: GenerateOptions): GenerateResult {
  const config = options.config
    ? readConfig(resolve(options.config), options.configRequired ?? false)
    : { aliases: {} };
  const models = readSchemas(resolve(options.schemas), { aliases: config.aliases });
  return { models, files: emit(models) };
}

export function generate(options: GenerateOptions): GenerateResult {
  const result = buildFiles(options);
  writeOutput(resolve(options.out), result.files);
  return result;
}

export function check(options: GenerateOptions): CheckResult & { ok: boolean } {
  const { files } = buildFiles(options);
  const r = checkOutput(resolve(options.out), files);
  return { ...r, ok: r.stale.length + r.missing.length + r.extra.length === 0 };
}
