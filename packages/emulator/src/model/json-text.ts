// Cheap, linear checks on JSON text before and after parsing (one request must not block
// the event loop for long; a 16.8 MB metadata object with 1M keys used to take 18 s).

/** The one object test of the package: a JSON object, not an array or null. */
export function isObject<T = unknown>(v: unknown): v is Record<string, T> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The index of the quote that closes the string whose opening quote is at `open` (or
 * `buf.length` when it never closes). Found by the native byte search, not a loop in script: a
 * launch body is mostly long strings (base64 files), and scanning them byte by byte blocked
 * other callers for 160 ms per 10 MiB.
 */
function stringEnd(buf: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = buf.indexOf(0x22, at + 1);
    if (at === -1) return buf.length;
    // Escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    while (buf[at - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * Deepest nesting of `[`/`{` in JSON text, from the bytes alone (strings skipped, escapes
 * honoured). Stops as soon as it passes `limit`, so a hostile body costs one linear scan and no
 * allocation, and JSON.parse never sees nesting deeper than `limit`.
 */
export function jsonTextDepth(buf: Uint8Array, limit: number): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x22) i = stringEnd(buf, i);
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

/**
 * How many members (object properties and array elements, at every level) the top-level
 * `metadata` of a JSON object text holds, from the bytes alone, before anything is parsed;
 * stops counting as soon as it passes `limit`. Counted as commas plus containers inside the
 * value, so an upper bound: `{}` counts 1, `{"a":1,"b":2}` counts 2. A body with several
 * `metadata` members (JSON.parse keeps the last) answers the largest.
 */
export function metadataMembers(buf: Uint8Array, limit: number): number {
  let depth = 0;
  let lastString: [number, number] | null = null;
  let inMeta = false;
  let count = 0;
  let max = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === 0x22) {
      const start = i;
      i = stringEnd(buf, i);
      if (depth === 1 && !inMeta) lastString = [start, i + 1];
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x3a && depth === 1 && !inMeta) {
      // `"key":` at the top level: is it metadata (however its name is escaped)?
      if (lastString !== null && lastString[1] - lastString[0] <= 64) {
        let name: unknown = null;
        try {
          name = JSON.parse(Buffer.from(buf.subarray(lastString[0], lastString[1])).toString());
        } catch {
          name = null;
        }
        if (name === "metadata") {
          inMeta = true;
          count = 0;
        }
      }
      lastString = null;
      continue;
    }
    lastString = null;
    if (c === 0x5b || c === 0x7b) {
      depth++;
      if (inMeta) count++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      if (depth === 0) inMeta = false;
    } else if (c === 0x2c) {
      if (inMeta && depth >= 2) count++;
      else if (inMeta && depth === 1) inMeta = false;
    }
    if (count > max) {
      max = count;
      if (max > limit) return max;
    }
  }
  return max;
}
