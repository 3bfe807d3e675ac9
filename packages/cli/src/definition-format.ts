// Pulled definitions are reviewed like code: a JSON definition is written
// formatted (two-space indent, one key per line) with a stable key order, so
// a graph edit in the service is a diff of the lines it touched, not one
// rewritten 24 KB line. Keys are sorted everywhere except directly under
// `properties`, whose order is the field order the generated types keep.
// `servers[0].url` is written as the base URL configured for the environment,
// not the one it was reached at: an emulator's port of the day or a
// `WFR_<ENV>_BASE_URL` override must not become drift in the committed file.
import { yamlLibrary } from "@wfr/definition-reader";

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

/** What the definition is written with: its format, and the base URL it names as its server. */
export interface DefinitionFormatOptions {
  readonly json: boolean;
  /** The environment's configured base URL; servers[0].url becomes it. Absent: kept as served. */
  readonly baseUrl?: string;
}

function withServer(parsed: unknown, baseUrl: string | undefined): unknown {
  if (baseUrl === undefined || parsed === null || typeof parsed !== "object") return parsed;
  const doc = parsed as { servers?: unknown };
  const servers = Array.isArray(doc.servers) ? [...doc.servers] : [];
  const first = servers[0];
  servers[0] =
    first !== null && typeof first === "object" ? { ...first, url: baseUrl } : { url: baseUrl };
  return { ...doc, servers };
}

/** The text written to schemas/<env>/openapi.(json|yaml) for a downloaded body. */
export function formatDefinition(body: string, options: DefinitionFormatOptions): string {
  if (!options.json || !looksLikeJson(body)) return pinYamlServer(body, options.baseUrl);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON after all: written as served, and generate reports where it breaks.
    return body;
  }
  return `${JSON.stringify(sortKeys(withServer(parsed, options.baseUrl), false), null, 2)}\n`;
}

/** YAML is kept as served (comments, order), but for servers[0].url. */
function pinYamlServer(body: string, baseUrl: string | undefined): string {
  if (baseUrl === undefined) return body;
  const { isMap, parseDocument } = yamlLibrary();
  const doc = parseDocument(body);
  if (doc.errors.length > 0 || !isMap(doc.contents)) return body;
  if (doc.getIn(["servers", 0, "url"]) === baseUrl) return body;
  if (doc.hasIn(["servers", 0])) doc.setIn(["servers", 0, "url"], baseUrl);
  else doc.set("servers", doc.createNode([{ url: baseUrl }]));
  return doc.toString();
}
