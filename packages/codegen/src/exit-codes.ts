/** `wfr-codegen`'s exit codes (README "Usage"); `wfr generate` maps them onto its own table. */
export const CODEGEN_EXIT = {
  OK: 0,
  /** A definition, lock or config that cannot be read, or a refused removal: nothing written. */
  DEFINITION_INVALID: 1,
  USAGE: 2,
  /** `--check`: the output does not match the definitions. */
  STALE: 3,
} as const;
