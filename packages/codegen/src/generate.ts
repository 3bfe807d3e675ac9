// generate: read schemas/, emit, then write (or --check) the output folder.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readConfig } from "./config.js";
import { emit, type GeneratedFiles } from "./emit.js";
import {
  LOCK_FILE,
  lockText,
  pinsOf,
  readLock,
  renameNotes,
  writeLock,
} from "./identifier-lock.js";
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
  /** The identifier lock `generate` writes beside the output folder. */
  readonly lock: string;
  /** Notes for workflows that keep a locked identifier after a rename. */
  readonly notes: readonly string[];
}

/** The lock lives beside the output folder (packages/generated/identifiers.lock.json), which generate replaces whole. */
export function lockDir(options: GenerateOptions): string {
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
    files: emit(models),
    lock: lockText(models),
    notes: renameNotes(models, lock, config.aliases),
  };
}

/** Writes the output folder, then the identifier lock next to the environment folders. */
export function writeGenerated(options: GenerateOptions, result: GenerateResult): void {
  writeOutput(resolve(options.out), result.files);
  writeLock(lockDir(options), result.lock);
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
