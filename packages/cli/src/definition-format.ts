// Pulled definitions are reviewed like code: a JSON definition is written
// formatted (two-space indent, one key per line) with a stable key order, so
// a graph edit in the service is a diff of the lines it touched, not one
// rewritten 24 KB line. Keys are sorted everywhere except directly under
// `properties`, whose order is the field order the generated types keep.

/** Whether a downloaded definition body is JSON (an object) rather than YAML. */
export function looksLikeJson(body: string): boolean {
  return body.trimStart().startsWith("{");
}

function sortKeys(value: unknown, keepOrder: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, false));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!keepOrder) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Record<string, unknown> = {};
  for (const [key, v] of entries) out[key] = sortKeys(v, key === "properties" && !keepOrder);
  return out;
}

/** The text written to schemas/<env>/openapi.json for a downloaded JSON body; YAML is kept as served. */
export function formatDefinition(body: string, json: boolean): string {
  if (!json || !looksLikeJson(body)) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON after all: written as served, and generate reports where it breaks.
    return body;
  }
  return `${JSON.stringify(sortKeys(parsed, false), null, 2)}\n`;
}
