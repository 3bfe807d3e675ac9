// Cheap, linear checks on JSON text before and after parsing (one request must not block
// the event loop for long; a 16.8 MB metadata object with 1M keys used to take 18 s).

/** The one object test of the package: a JSON object, not an array or null. */
export function isObject<T = unknown>(v: unknown): v is Record<string, T> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Deepest nesting of `[`/`{` in JSON text, from the bytes alone (strings skipped, escapes
 * honoured). Stops as soon as it passes `limit`, so a hostile body costs one linear scan and no
 * allocation, and JSON.parse never sees nesting deeper than `limit`.
 */
export function jsonTextDepth(buf: Uint8Array, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
