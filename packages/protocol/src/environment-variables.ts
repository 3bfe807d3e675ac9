// The environment variables named after an environment (`production` -> `WFR_PRODUCTION_...`),
// shared by `wfr init`, the CLI's connections and the generated code.

const variableStem = (environment: string) =>
  `WFR_${environment.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;

/** The variable holding an environment's API key unless wfr.config.json names another. */
export function apiKeyVariable(environment: string): string {
  return `${variableStem(environment)}_API_KEY`;
}

/**
 * The variable that, where set, replaces an environment's base URL at run time, in the CLI and in
 * the generated code: an emulator on another port, a proxy, without pulling or generating again.
 */
export function baseUrlVariable(environment: string): string {
  return `${variableStem(environment)}_BASE_URL`;
}
