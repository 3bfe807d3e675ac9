// The identifier lock: `identifiers.lock.json` beside the output folder
// (packages/generated/identifiers.lock.json), committed, written by `generate`. It records workflow id -> identifier per environment so that an
// identifier, once given, stays the same across regenerations (architecture.md:
// "unique and stable across regenerations"): renaming a workflow's display name
// keeps `workflows.<identifier>`. Config aliases (wfr.codegen.json) win over it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DefinitionError } from "./definition-error.js";
import { baseIdentifier } from "./identifiers.js";
import type { EnvironmentModel } from "./model.js";

export const LOCK_FILE = "identifiers.lock.json";

/** environment -> workflow id -> identifier. */
export type IdentifierLock = Readonly<Record<string, Readonly<Record<string, string>>>>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads the lock in `dir`; an absent lock is empty. */
export function readLock(dir: string): IdentifierLock {
  return readLockFile(join(dir, LOCK_FILE));
}

/** Reads a lock file by path; an absent file is an empty lock. */
export function readLockFile(file: string): IdentifierLock {
  if (!existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new DefinitionError(LOCK_FILE, "", `not valid JSON: ${(error as Error).message}`);
  }
  const envs = isRecord(raw) ? raw.environments : undefined;
  if (!isRecord(envs))
    throw new DefinitionError(LOCK_FILE, "/environments", "must be an object of environments");
  const out: Record<string, Record<string, string>> = {};
  for (const [env, map] of Object.entries(envs)) {
    if (!isRecord(map))
      throw new DefinitionError(LOCK_FILE, `/environments/${env}`, "must be an object");
    const pins: Record<string, string> = {};
    for (const [id, identifier] of Object.entries(map)) {
      if (typeof identifier !== "string")
        throw new DefinitionError(LOCK_FILE, `/environments/${env}/${id}`, "must be a string");
      pins[id] = identifier;
    }
    out[env] = pins;
  }
  return out;
}

/** Pins for the reader: the lock's identifiers, overridden by config aliases. */
export function pinsOf(
  lock: IdentifierLock,
  aliases: IdentifierLock,
): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const env of new Set([...Object.keys(lock), ...Object.keys(aliases)]))
    out[env] = { ...lock[env], ...aliases[env] };
  return out;
}

/** The lock text for the generated models (sorted, stable). */
export function lockText(models: readonly EnvironmentModel[]): string {
  const environments: Record<string, Record<string, string>> = {};
  for (const env of [...models].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const map: Record<string, string> = {};
    for (const wf of [...env.workflows].sort((a, b) => (a.id < b.id ? -1 : 1)))
      map[wf.id] = wf.identifier;
    environments[env.name] = map;
  }
  return `${JSON.stringify({ version: 1, environments }, null, 2)}\n`;
}

/** One note per workflow that keeps a locked identifier its current name would not give. */
export function renameNotes(
  models: readonly EnvironmentModel[],
  lock: IdentifierLock,
  aliases: IdentifierLock,
): string[] {
  const notes: string[] = [];
  for (const env of models)
    for (const wf of env.workflows) {
      if (lock[env.name]?.[wf.id] !== wf.identifier || aliases[env.name]?.[wf.id] !== undefined)
        continue;
      const fresh = baseIdentifier(wf.name);
      if (wf.identifier === fresh || wf.identifier.startsWith(`${fresh}_`)) continue;
      notes.push(
        `${env.name}: ${wf.id} is now named ${JSON.stringify(wf.name)} but keeps the identifier ${wf.identifier} (${LOCK_FILE}); to adopt ${fresh}, remove its entry from ${LOCK_FILE} and regenerate`,
      );
    }
  return notes;
}

export function writeLock(dir: string, text: string): void {
  writeFileSync(join(dir, LOCK_FILE), text);
}
