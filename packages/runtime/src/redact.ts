// Spec, Authentication 4: keys are "never in a URL, browser JavaScript,
// screenshots or public issues"; architecture: "Secrets (API keys) never
// appear in URLs, logs, error messages or snapshots". Every error message,
// log record and `cause` chain the runtime builds passes through here.

const REDACTED = "[REDACTED]";
const BEARER_PATTERN = /(Bearer\s+)[^\s"',;]+/gi;

/** Replaces every occurrence of each secret, and any `Bearer <token>`, in `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0) result = result.split(secret).join(REDACTED);
  }
  return result.replace(BEARER_PATTERN, `$1${REDACTED}`);
}

/**
 * Deep-copies a value with every string redacted. Errors become plain
 * `Error`s carrying the redacted name, message and (recursively) cause, so a
 * secret inside a third-party error's `cause` chain cannot leak.
 */
export function redactValue(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (depth > 8) return "[…]";
  if (typeof value === "string") return redact(value, secrets);
  if (value instanceof Error) return redactError(value, secrets, depth);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = /^authorization$/i.test(key) ? REDACTED : redactValue(item, secrets, depth + 1);
    }
    return copy;
  }
  return value;
}

/** A redacted stand-in for an error, keeping its name and (redacted) cause chain. */
export function redactError(error: Error, secrets: readonly string[], depth = 0): Error {
  const cause = (error as { cause?: unknown }).cause;
  const copy = new Error(
    redact(error.message, secrets),
    cause === undefined ? undefined : { cause: redactValue(cause, secrets, depth + 1) },
  );
  copy.name = redact(error.name, secrets);
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}
