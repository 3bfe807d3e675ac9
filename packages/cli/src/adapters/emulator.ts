// The only module that calls @wfr/emulator (imported lazily by `wfr emulator`).
// Depends on: launchEmulator(options) -> { running: {url, close}, environments: [{name, baseUrl}] }.
export type { EmulatorOptions } from "@wfr/emulator";

export async function launch(options: import("@wfr/emulator").EmulatorOptions) {
  const { launchEmulator } = await import("@wfr/emulator");
  return launchEmulator(options);
}
