// The programmatic diff: two definition references (files, folders holding
// openapi.json|yaml|yml, or http(s) URLs) -> the structured DiffReport.
// The `wfr diff` command (diff-cli.ts), packages/cli and its MCP tool call
// this directly; nothing captures a command's stdout.
//
// Both sides are read with the same identifier pins `generate` uses (the
// identifier lock overridden by wfr.codegen.json aliases), so the diff
// reports the identifiers generate would really produce: a pinned alias or
// a display-name rename that keeps its locked identifier is not a
// `workflow-identifier-changed`.

import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFINITION_FILE_NAMES as DEFINITION_NAMES } from "@wfr/protocol";
import { readConfig } from "./config.js";
import { type DiffReport, diffEnvironments } from "./diff.js";
import { type IdentifierLock, LOCK_FILE, pinsOf, readLockFile } from "./identifier-lock.js";
import type { EnvironmentModel } from "./model.js";
import { readDefinition as readDefinitionFile } from "./read-definition.js";

/** Reads one definition file with identifier pins (environment -> workflow id -> identifier). */
export type DefinitionReader = (
  file: string,
  pins: IdentifierLock,
) => EnvironmentModel | Promise<EnvironmentModel>;

export interface DiffDefinitionsOptions {
  /** Folder relative references, the lock and the config are resolved against (default: process.cwd()). */
  readonly cwd?: string;
  /** How workflows are paired; default `id` when both sides name the same environment, else `name`. */
  readonly matchBy?: "id" | "name";
  /**
   * The identifier lock. Default: `packages/generated/identifiers.lock.json`
   * (beside generate's default output), skipped when absent. A given path must exist.
   */
  readonly lock?: string;
  /** `wfr.codegen.json` (aliases). Default: `wfr.codegen.json`, skipped when absent. A given path must exist. */
  readonly config?: string;
  /** Replaces the codegen reader (tests). */
  readonly readDefinition?: DefinitionReader;
}

/** A reference that cannot be read: names the reference as the user gave it. */
export class DiffInputError extends Error {
  override readonly name = "DiffInputError";
  constructor(
    readonly ref: string,
    readonly detail: string,
  ) {
    super(`${ref}: ${detail}`);
  }
}

export const DEFAULT_LOCK = join("packages", "generated", LOCK_FILE);
export const DEFAULT_CONFIG = "wfr.codegen.json";

const defaultReader: DefinitionReader = (file, pins) => readDefinitionFile(file, { aliases: pins });

/** The pins `generate` uses: the lock's identifiers, overridden by config aliases. */
function diffPins(options: DiffDefinitionsOptions): IdentifierLock {
  const cwd = options.cwd ?? process.cwd();
  const lockFile = resolve(cwd, options.lock ?? DEFAULT_LOCK);
  if (options.lock !== undefined && !existsSync(lockFile))
    throw new DiffInputError(options.lock, "identifier lock not found");
  const config = readConfig(
    resolve(cwd, options.config ?? DEFAULT_CONFIG),
    options.config !== undefined,
  );
  return pinsOf(readLockFile(lockFile), config.aliases);
}

/** Reads both definitions (with the generate's identifier pins) and diffs them. */
export async function diffDefinitions(
  oldRef: string,
  newRef: string,
  options: DiffDefinitionsOptions = {},
): Promise<DiffReport> {
  const cwd = options.cwd ?? process.cwd();
  const pins = diffPins(options);
  const read = options.readDefinition ?? defaultReader;
  const oldModel = await loadModel(oldRef, read, pins, cwd);
  const newModel = await loadModel(newRef, read, pins, cwd);
  const matchBy = options.matchBy ?? (oldModel.name === newModel.name ? "id" : "name");
  return diffEnvironments(oldModel, newModel, { matchBy });
}

function isUrl(ref: string): boolean {
  return /^https?:\/\//i.test(ref);
}

/** Resolves a file or folder reference to the definition file to read. */
function resolveDefinitionPath(ref: string, cwd: string): string {
  const path = resolve(cwd, ref);
  if (!existsSync(path)) throw new DiffInputError(ref, "no such file or folder");
  if (statSync(path).isDirectory()) {
    const found = DEFINITION_NAMES.filter((n) => existsSync(join(path, n)));
    if (found.length === 0) {
      throw new DiffInputError(ref, `the folder holds no ${DEFINITION_NAMES.join(", ")}`);
    }
    if (found.length > 1) {
      throw new DiffInputError(
        ref,
        `the folder holds more than one definition: ${found.join(", ")}`,
      );
    }
    return join(path, found[0] as string);
  }
  return path;
}

async function loadModel(
  ref: string,
  read: DefinitionReader,
  pins: IdentifierLock,
  cwd: string,
): Promise<EnvironmentModel> {
  if (!isUrl(ref)) return readWith(read, resolveDefinitionPath(ref, cwd), pins, ref);
  let response: Response;
  try {
    response = await fetch(ref, { headers: { accept: "application/json, application/yaml" } });
  } catch (err) {
    throw new DiffInputError(ref, `download failed: ${(err as Error).message}`);
  }
  if (!response.ok) throw new DiffInputError(ref, `download failed: HTTP ${response.status}`);
  const body = await response.text();
  // The reader takes a file (YAML or JSON by extension, `$ref`s relative to it).
  const dir = await mkdtemp(join(tmpdir(), "wfr-diff-"));
  try {
    const folder = join(dir, "downloaded");
    await mkdir(folder);
    const file = join(folder, looksLikeJson(body) ? "openapi.json" : "openapi.yaml");
    await writeFile(file, body);
    const model = await readWith(read, file, pins, ref);
    return { ...model, sourceFile: ref };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function looksLikeJson(body: string): boolean {
  const t = body.trimStart();
  return t.startsWith("{") || t.startsWith("[");
}

async function readWith(
  read: DefinitionReader,
  file: string,
  pins: IdentifierLock,
  ref: string,
): Promise<EnvironmentModel> {
  try {
    return await read(file, pins);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new DiffInputError(
      ref,
      message.includes(ref) ? message : `cannot read ${file}: ${message}`,
    );
  }
}
