// What the run history's search reads of a run's metadata (docs/limits.md#files-and-stored-objects):
// its first SEARCHED_METADATA_CHARS characters as JSON. The metadata itself is bounded only by
// the launch body (36 MiB); serialising all of it for a search cost seconds of blocked callers and
// kept a second copy of every run's metadata for as long as the run stayed in memory.

/** How much of a run's metadata (as JSON) the search reads: ours, tags and ids fit many times. */
export const SEARCHED_METADATA_CHARS = 64 * 1024;

/**
 * The first `limit` characters of `JSON.stringify(value)` (for parsed JSON), computed without
 * serialising the rest: the walk stops once `limit` characters are written.
 */
export function jsonPrefix(value: unknown, limit: number): string {
  const parts: string[] = [];
  let length = 0;
  const put = (text: string): boolean => {
    parts.push(text);
    length += text.length;
    return length < limit;
  };
  const walk = (v: unknown): boolean => {
    if (typeof v === "string")
      // Escaping only lengthens a string: its first `limit` characters are enough.
      return put(JSON.stringify(v.length > limit - length ? v.slice(0, limit - length) : v));
    if (v === null || typeof v !== "object") return put(JSON.stringify(v) ?? "null");
    if (Array.isArray(v)) {
      if (!put("[")) return false;
      for (let i = 0; i < v.length; i++) {
        if (i > 0 && !put(",")) return false;
        if (!walk(v[i])) return false;
      }
      return put("]");
    }
    if (!put("{")) return false;
    let first = true;
    for (const key of Object.keys(v)) {
      if (!first && !put(",")) return false;
      first = false;
      if (!put(`${JSON.stringify(key)}:`)) return false;
      if (!walk((v as Record<string, unknown>)[key])) return false;
    }
    return put("}");
  };
  walk(value);
  const text = parts.join("");
  return text.length > limit ? text.slice(0, limit) : text;
}
