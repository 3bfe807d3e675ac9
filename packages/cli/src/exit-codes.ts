// The documented exit codes of `wfr` (README "Exit codes"). Every code of the vocabulary
// (@wfr/protocol) has its exit code in one Record, so a new code does not compile until it is
// given one; the README table is generated from these two tables and checked by a test.
import { CLIENT_ERROR_CODES, type ClientErrorCode, isClientErrorCode } from "@wfr/protocol";

export const EXIT = {
  OK: 0,
  ERROR: 1,
  USAGE: 2,
  DRIFT_NON_BREAKING: 3,
  DRIFT_BREAKING: 4,
  RUN_FAILED: 5,
  HUMAN_NEEDED: 6,
  TIMEOUT: 7,
  AUTH: 8,
  NOT_FOUND: 9,
  IDEMPOTENCY_CONFLICT: 10,
  INVALID_INPUT: 11,
  RATE_LIMITED: 12,
  NETWORK: 13,
  HUMAN_WAIT_CONFLICT: 14,
  TOO_LARGE: 15,
  RECORDING_NOT_READY: 16,
  WORKFLOW_NOT_ENABLED: 17,
  DEFINITION_INVALID: 18,
} as const;

export type ExitName = keyof typeof EXIT;
export type ExitCode = (typeof EXIT)[ExitName];

/** What each exit code means, besides the API codes mapped to it (`BY_CODE`). */
export const EXIT_MEANING: Record<ExitName, string> = {
  OK: "success; schemas/generated code identical; run succeeded",
  ERROR: "unexpected error",
  USAGE: "bad arguments (unknown command or option, missing argument) or config file",
  DRIFT_NON_BREAKING: "non-breaking schema drift, or generated code stale",
  DRIFT_BREAKING: "breaking schema drift (`schemas pull --check`, `diff --fail-on`)",
  RUN_FAILED: "run ended in an unsuccessful terminal status",
  HUMAN_NEEDED: "run waits for a person (`waiting_for_human_live`)",
  TIMEOUT: "`runs watch --timeout` elapsed",
  AUTH: "no key; any other 401/403",
  NOT_FOUND: "unknown workflow name; any other 404",
  IDEMPOTENCY_CONFLICT: "same key, different request",
  INVALID_INPUT: "a bad `--input` value; any other 400/422",
  RATE_LIMITED: "any other 429",
  NETWORK: "network error, request timeout, download failure",
  HUMAN_WAIT_CONFLICT:
    "wrong `--checkpoint`; the run is not (or no longer) waiting for this answer",
  TOO_LARGE: "any other 413",
  RECORDING_NOT_READY: "still processing after the allowed attempts",
  WORKFLOW_NOT_ENABLED: "the workflow is a draft or disabled",
  DEFINITION_INVALID:
    "a definition (`schemas/<env>/openapi.*`) missing or unreadable; nothing written",
};

/** Every code a wfr client can see, and its exit code. */
export const BY_CODE: Record<ClientErrorCode, ExitCode> = {
  INVALID_INPUTS: EXIT.INVALID_INPUT,
  INVALID_METADATA: EXIT.INVALID_INPUT,
  INVALID_ATTACHMENTS: EXIT.INVALID_INPUT,
  INVALID_JSON: EXIT.INVALID_INPUT,
  INVALID_BODY: EXIT.INVALID_INPUT,
  RUN_OVERRIDE_NOT_ALLOWED: EXIT.INVALID_INPUT,
  INVALID_IDEMPOTENCY_KEY: EXIT.INVALID_INPUT,
  INVALID_ARGUMENTS: EXIT.INVALID_INPUT,
  INVALID_MODEL: EXIT.INVALID_INPUT,
  MODEL_NOT_EXPOSED: EXIT.INVALID_INPUT,
  MODEL_NOT_ALLOWED: EXIT.INVALID_INPUT,
  INVALID_CALLBACK_URL: EXIT.INVALID_INPUT,
  INVALID_GRANT: EXIT.INVALID_INPUT,
  NOT_FOUND: EXIT.NOT_FOUND,
  WORKFLOW_NOT_FOUND: EXIT.NOT_FOUND,
  RUN_NOT_FOUND: EXIT.NOT_FOUND,
  RECORDING_NOT_FOUND: EXIT.NOT_FOUND,
  GRANT_NOT_FOUND: EXIT.NOT_FOUND,
  RECORDING_PROCESSING: EXIT.RECORDING_NOT_READY,
  IDEMPOTENCY_CONFLICT: EXIT.IDEMPOTENCY_CONFLICT,
  LAUNCH_INTENT_CONFLICT: EXIT.IDEMPOTENCY_CONFLICT,
  HUMAN_WAIT_CONFLICT: EXIT.HUMAN_WAIT_CONFLICT,
  NOT_WAITING_FOR_HUMAN: EXIT.HUMAN_WAIT_CONFLICT,
  HUMAN_WAIT_EXPIRED: EXIT.HUMAN_WAIT_CONFLICT,
  INVALID_CHECKPOINT_ID: EXIT.HUMAN_WAIT_CONFLICT,
  SESSION_NOT_STARTED: EXIT.HUMAN_WAIT_CONFLICT,
  ATTACHMENT_TOO_LARGE: EXIT.TOO_LARGE,
  BODY_TOO_LARGE: EXIT.TOO_LARGE,
  RECORDING_TOO_LARGE: EXIT.TOO_LARGE,
  RECORDING_RATE_LIMITED: EXIT.RATE_LIMITED,
  UNAUTHENTICATED: EXIT.AUTH,
  INSUFFICIENT_SCOPE: EXIT.AUTH,
  INVALID_API_KEY: EXIT.AUTH,
  API_KEY_IN_QUERY: EXIT.AUTH,
  WORKFLOW_NOT_ENABLED: EXIT.WORKFLOW_NOT_ENABLED,
  NETWORK_ERROR: EXIT.NETWORK,
  TIMEOUT: EXIT.NETWORK,
  FILE_OUTPUT_DOWNLOAD_FAILED: EXIT.NETWORK,
  FILE_OUTPUT_DOWNLOAD_REFUSED: EXIT.NETWORK,
  REQUEST_FAILED: EXIT.NETWORK,
  HTTP_ERROR: EXIT.NETWORK,
  WAIT_TIMEOUT: EXIT.TIMEOUT,
  DEFINITION_INVALID: EXIT.DEFINITION_INVALID,
  GENERATE_FAILED: EXIT.DEFINITION_INVALID,
  INVALID_BASE_URL: EXIT.USAGE,
  INVALID_OUTPUTS: EXIT.ERROR,
  INVALID_RESPONSE: EXIT.ERROR,
  INTERNAL: EXIT.ERROR,
  ABORTED: EXIT.ERROR,
  UNEXPECTED: EXIT.ERROR,
  LAUNCH_JOURNAL_INVARIANT: EXIT.ERROR,
};

/** Exit code for an error carrying a `code` and/or HTTP `status`. */
export function exitCodeForApiError(
  code: string | undefined,
  status: number | null | undefined,
): ExitCode {
  if (isClientErrorCode(code)) return BY_CODE[code];
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 413) return EXIT.TOO_LARGE;
  if (status === 429) return EXIT.RATE_LIMITED;
  if (status === 400 || status === 422) return EXIT.INVALID_INPUT;
  return EXIT.ERROR;
}

/** The codes mapped to an exit code, in vocabulary order. */
export function codesFor(name: ExitName): readonly ClientErrorCode[] {
  return CLIENT_ERROR_CODES.filter((code) => BY_CODE[code] === EXIT[name]);
}

/** The README's "Exit codes" table, generated: number, name, meaning and codes. */
export function exitCodeTableMarkdown(): string {
  const rows = (Object.keys(EXIT) as ExitName[]).map((name) => {
    const codes = codesFor(name).map((code) => `\`${code}\``);
    const meaning = [...codes, EXIT_MEANING[name]].join(", ");
    return `| ${EXIT[name]} | ${name} | ${meaning} |`;
  });
  return ["| code | name | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The table as `wfr exit-codes` and `wfr help exit-codes` print it: code, name, meaning. */
export function exitCodeTableText(): string {
  return (Object.keys(EXIT) as ExitName[])
    .map((name) => {
      const meaning = [...codesFor(name), EXIT_MEANING[name]].join(", ");
      return `${String(EXIT[name]).padStart(3)}  ${name.padEnd(22)} ${meaning}\n`;
    })
    .join("");
}
