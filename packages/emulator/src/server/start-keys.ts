// The API key per environment that the emulator prints at start (start-message.ts). With a
// journal (`--data <file>`) the tokens are the same on every start, so a team's `.env` keeps
// working. The journal holds only key hashes (a key never goes where logs and copies go:
// docs/service-rules.md#authentication), so the tokens themselves are kept beside it, in
// `<file>.keys.json`, readable by its owner only.

import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { SCOPES } from "@wfr/protocol";
import { tokenHash } from "../access/credentials.js";
import { isObject } from "../model/json-text.js";
import { createKey, type EmulatorState } from "../state/emulator-state.js";

/** One printed key: its environment and token (printed once at start, never in a URL). */
export interface StartKey {
  environment: string;
  token: string;
}

/** Where the start keys of the journal `data` are kept. */
export const startKeysFile = (data: string): string => `${data}.keys.json`;

/** The kept tokens by environment; a missing or unreadable file keeps none. */
function readKept(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
  const keys = isObject(json) && isObject(json.keys) ? json.keys : {};
  const kept: Record<string, string> = {};
  for (const [env, token] of Object.entries(keys)) if (typeof token === "string") kept[env] = token;
  return kept;
}

function writeKept(file: string, keys: Record<string, string>): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * A key with both scopes for every environment. A kept token is used again while the journal
 * still holds its key for that environment (a revoked key is not brought back: a new one is
 * made and kept instead).
 */
export function startKeys(
  st: Pick<EmulatorState, "envs" | "keys" | "commit">,
  data: string | undefined,
): StartKey[] {
  const file = data === undefined ? undefined : startKeysFile(data);
  const kept = file === undefined ? {} : readKept(file);
  const keys: StartKey[] = [];
  let changed = false;
  for (const env of st.envs.values()) {
    const name = env.def.name;
    const old = kept[name];
    if (old !== undefined && st.keys.get(tokenHash(old))?.environment === name) {
      keys.push({ environment: name, token: old });
      continue;
    }
    const { token } = createKey(st, env, env.def.workspace, [...SCOPES]);
    kept[name] = token;
    changed = true;
    keys.push({ environment: name, token });
  }
  if (file !== undefined && changed) writeKept(file, kept);
  return keys;
}
