import { EXIT } from "../exit-codes.js";

const MEANING: Record<keyof typeof EXIT, string> = {
  OK: "success; schemas/generated code identical; run succeeded",
  ERROR: "unexpected error",
  USAGE: "bad arguments or config file",
  DRIFT_NON_BREAKING: "non-breaking schema drift, or generated code stale",
  DRIFT_BREAKING: "breaking schema drift",
  RUN_FAILED: "run ended in an unsuccessful terminal status",
  HUMAN_NEEDED: "run waits for a person (waiting_for_human_live)",
  TIMEOUT: "gave up waiting (--timeout)",
  AUTH: "no key, or 401/403 (UNAUTHENTICATED, FORBIDDEN)",
  NOT_FOUND: "WORKFLOW_NOT_FOUND, RUN_NOT_FOUND, RECORDING_NOT_FOUND, 404",
  IDEMPOTENCY_CONFLICT: "IDEMPOTENCY_CONFLICT: same key, different request",
  INVALID_INPUT: "INVALID_INPUTS, INVALID_METADATA, INVALID_ATTACHMENTS, a bad --input value",
  RATE_LIMITED: "RATE_LIMITED, RECORDING_RATE_LIMITED (429)",
  NETWORK: "network error or request timeout",
  HUMAN_WAIT_CONFLICT: "HUMAN_WAIT_CONFLICT, NOT_WAITING_FOR_HUMAN, HUMAN_WAIT_EXPIRED",
  TOO_LARGE: "ATTACHMENT_TOO_LARGE, BODY_TOO_LARGE, RECORDING_TOO_LARGE",
  RECORDING_NOT_READY: "RECORDING_PROCESSING after the allowed attempts",
};

export async function exitCodesCommand(): Promise<number> {
  for (const [name, code] of Object.entries(EXIT)) {
    process.stdout.write(
      `${String(code).padStart(3)}  ${name.padEnd(22)} ${MEANING[name as keyof typeof EXIT]}\n`,
    );
  }
  return EXIT.OK;
}
