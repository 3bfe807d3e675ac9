// generate: read schemas/, emit, then write (or --check) the output folder.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readConfig } from "./config.js";
import { DefinitionError } from "./definition-error.js";
import { emit, type GeneratedFiles } from "./emit/emit.js";
import {
  LOCK_FILE,
  lockText,
  pinsOf,
  readLock,
  renameNotes,
  writeLock,
} from "./identifier-lock.js";
import type { EnvironmentModel } from "./model.js";
import { DEFINITION_NAMES, readSchemas } from "./read-definition.js";
import { type CheckResult, checkOutput, type WriteReport, writeOutput } from "./write-output.js";

export interface GenerateOptions {
  /** Folder with one sub-folder per environment. */
  readonly schemas: string;
  /** The generated package's `src` folder. */
  readonly out: string;
  /** `wfr.codegen.json`; a missing file is fine unless `configRequired`. */
  readonly config?: string;
  readonly configRequired?: boolean;
  /**
   * Environments whose generated code may be deleted because their definition
   * is gone. Without it, dropping an environment that has generated code (or
   * generating no environment at all) is an error: an empty `schemas/` or a
   * misspelt `openapi.jsn` must not silently delete an environment's code.
   */
  readonly allowRemove?: readonly string[];
  /** The command the generated headers and messages tell a person to run (default `wfr generate`). */
  readonly regenerate?: string;
}

export interface GenerateResult {
  readonly models: EnvironmentModel[];
  readonly files: GeneratedFiles;
  /** The identifier lock `generate` writes beside the output folder. */
  readonly lock: string;
  /** Notes for workflows that keep a locked identifier after a rename. */
  readonly notes: readonly string[];
}

/** The lock lives beside the output folder (packages/generated/identifiers.lock.json), which generate replaces whole. */
function lockDir(options: GenerateOptions): string {
  return dirname(resolve(options.out));
}

/** Reads and emits without touching the disk's output. */
export function buildFiles(options: GenerateOptions): GenerateResult {
  const config = options.config
    ? readConfig(resolve(options.config), options.configRequired ?? false)
    : { aliases: {} };
  const lock = readLock(lockDir(options));
  const models = readSchemas(resolve(options.schemas), { aliases: pinsOf(lock, config.aliases) });
  return {
    models,
    files: emit(models, options.regenerate ? { regenerate: options.regenerate } : {}),
    lock: lockText(models),
    notes: renameNotes(models, lock, config.aliases),
  };
}

/** Environments that have generated code in `out`: one folder each (`_shared` and dot-folders are not environments). */
function generatedEnvironments(out: string): string[] {
  if (!existsSync(out)) return [];
  return readdirSync(out, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^[A-Za-z0-9]/.test(e.name))
    .map((e) => e.name)
    .sort();
}

/** Why `<schemas>/<env>` gave no environment: the folder is gone, or holds no definition under a known name. */
function whyMissing(schemasDir: string, env: string): string {
  const folder = join(schemasDir, env);
  if (!existsSync(folder)) return "the folder does not exist";
  const files = readdirSync(folder).sort();
  return `the folder holds no ${DEFINITION_NAMES.join(", ")}${files.length > 0 ? ` (it holds ${files.join(", ")})` : " (it is empty)"}`;
}

/**
 * Refuses to write output that would delete an environment's generated code,
 * or that holds no environment at all, unless `allowRemove` names it.
 */
function checkRemovals(options: GenerateOptions, result: GenerateResult): void {
  const schemasDir = resolve(options.schemas);
  const out = resolve(options.out);
  const kept = new Set(result.models.map((m) => m.name));
  const allowed = new Set(options.allowRemove ?? []);
  const dropped = generatedEnvironments(out).filter((env) => !kept.has(env));
  const refused = dropped.filter((env) => !allowed.has(env));
  const first = refused[0];
  if (first !== undefined) {
    const others = refused.slice(1);
    throw new DefinitionError(
      join(schemasDir, first),
      "",
      `${whyMissing(schemasDir, first)}; generating would delete the generated code of environment ${JSON.stringify(first)} (${join(out, first)})${others.length > 0 ? ` and of ${others.map((e) => JSON.stringify(e)).join(", ")}` : ""}. Restore the definition, or pass ${refused.map((e) => `--allow-remove ${e}`).join(" ")} to delete it.`,
    );
  }
  if (result.models.length === 0 && dropped.length === 0) {
    const folders = existsSync(schemasDir)
      ? readdirSync(schemasDir, { withFileTypes: true }).filter((e) => e.isDirectory())
      : [];
    throw new DefinitionError(
      schemasDir,
      "",
      `no environment to generate: no <env>/${DEFINITION_NAMES.join("|")} in the schemas folder${folders.length > 0 ? ` (${folders.map((f) => `${f.name}: ${whyMissing(schemasDir, f.name)}`).join("; ")})` : ""}`,
    );
  }
}

/** Writes the output folder, then the identifier lock next to the environment folders. */
export function writeGenerated(options: GenerateOptions, result: GenerateResult): WriteReport {
  checkRemovals(options, result);
  const report = writeOutput(resolve(options.out), result.files);
  if (!lockIsCurrent(options, result)) writeLock(lockDir(options), result.lock);
  return report;
}

export function generate(options: GenerateOptions): GenerateResult {
  const result = buildFiles(options);
  writeGenerated(options, result);
  return result;
}

/** Whether the committed lock is what `generate` would write. */
export function lockIsCurrent(options: GenerateOptions, result: GenerateResult): boolean {
  const file = join(lockDir(options), LOCK_FILE);
  return existsSync(file) && readFileSync(file, "utf8") === result.lock;
}

export function check(options: GenerateOptions): CheckResult & { ok: boolean } {
  const { files } = buildFiles(options);
  const r = checkOutput(resolve(options.out), files);
  return { ...r, ok: r.stale.length + r.missing.length + r.extra.length === 0 };
}
