// The only module that calls @wfr/emulator (imported lazily by `wfr emulator`).
// Depends on: launchEmulator(options) -> { running: {url, close}, environments: [{name, baseUrl}] }.
export type { EmulatorOptions } from "@wfr/emulator";

export async function launch(options: import("@wfr/emulator").EmulatorOptions) {
  const { launchEmulator } = await import("@wfr/emulator");
  return launchEmulator(options);
}

/** The emulator's start-up text for a launched emulator (its own `startMessage`). */
export async function startMessage(
  launched: import("@wfr/emulator").StartedEmulator,
  options: { program: string; recordedRuns?: readonly import("@wfr/emulator").RecordedRun[] },
): Promise<string> {
  const emulator = await import("@wfr/emulator");
  return emulator.startMessage(launched, options);
}

/** Reads recorded-run files (`wfr runs export`) for `--scenario`; errors name the file. */
export async function readRecordedRuns(files: readonly string[]) {
  const { readRecordedRunFile } = await import("@wfr/emulator");
  // Each within the emulator's budget for a recorded run (its size, its steps).
  return Promise.all(files.map((file) => readRecordedRunFile(file)));
}

/** `--api-fault` rules in the emulator's short form or JSON; errors name the rule. */
export async function readApiFaults(rules: readonly string[]) {
  const { apiFaultFromFlag } = await import("@wfr/emulator");
  return rules.map((rule, i) => {
    try {
      return apiFaultFromFlag(rule);
    } catch (error) {
      throw new Error(`${i + 1} (${rule}): ${(error as Error).message}`);
    }
  });
}

/** The recorded-run scenario of a finished run (`wfr runs export`). */
export async function recordRun(input: import("@wfr/emulator").RecordedRunInput) {
  const { recordRun: record } = await import("@wfr/emulator");
  return record(input);
}
