// What the emulator prints when it starts, the same for its own bin (`wfr-emulator`) and for
// `wfr emulator`: where it listens, the web application and its one-time sign-in link, each
// environment's base URL and definition, and the API key to use there (in the text only, never
// in a URL).

import { DEFINITION_FILE, DEFINITION_PATH_PREFIX } from "@wfr/protocol";
import type { RecordedRun } from "../engine/recorded-run.js";
import type { StartKey } from "./start-keys.js";

/** What `startMessage` reads of a started emulator (`launchEmulator`'s answer). */
export interface StartedEmulator {
  running: { url: string; signInUrl: string };
  environments: { name: string; baseUrl: string }[];
  /** Whether the admin API is on. */
  admin: boolean;
  /** The key per environment (made once; with a journal, the same across restarts). */
  startKeys(): StartKey[];
}

/**
 * The start-up text. Keys are printed with the admin API on (with it off, the emulator is locked
 * down and hands out no key).
 */
export function startMessage(
  started: StartedEmulator,
  opts: { program: string; recordedRuns?: readonly RecordedRun[] },
): string {
  const { running, environments } = started;
  const keys = new Map(
    (started.admin ? started.startKeys() : []).map((k) => [k.environment, k.token]),
  );
  const lines = [
    `${opts.program} listening on ${running.url}`,
    `  web application: ${running.url}/`,
    ...(opts.recordedRuns ?? []).map(
      (r) =>
        `  replaying ${r.recorded_from.run_id} (${r.recorded_from.status}) for ${r.environment} ${r.workflow_id}`,
    ),
    `  sign in (one-time link): ${running.signInUrl}`,
  ];
  for (const e of environments) {
    lines.push(
      `  ${e.name}: ${e.baseUrl}`,
      `    definition: ${running.url}/${e.name}${DEFINITION_PATH_PREFIX}${DEFINITION_FILE.json}`,
    );
    const token = keys.get(e.name);
    if (token !== undefined) lines.push(`    key (emulator only): ${token}`);
  }
  if (!started.admin) lines.push("  admin API disabled: no key is made");
  return `${lines.join("\n")}\n`;
}
