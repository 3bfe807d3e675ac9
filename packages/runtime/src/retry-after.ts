/**
 * Seconds to wait from a Retry-After header value: delta-seconds or an HTTP
 * date (RFC 9110 §10.2.3). Undefined when absent or unreadable.
 */
export function parseRetryAfterSeconds(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const dateMs = Date.parse(trimmed);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, Math.ceil((dateMs - nowMs) / 1000));
}
