// Default outputs: synthesized deterministically from the output schema, seeded by the run id
// (twin mode: "outputs synthesized deterministically from the output schema").
import { createHash } from "node:crypto";
import { FILE_OUTPUT_REF, setOwn } from "../definition/validate-inputs.js";
import { isObject } from "../model/json-text.js";
import type { JsonSchema } from "../model/types.js";

interface FileOutputRef {
  download_url: string;
  filename: string;
  mime_type: string;
  size_bytes: number;
  expires_at: string | null;
}

interface SynthesisContext {
  /** Register a file output for `field` and return its download reference. */
  file(field: string): FileOutputRef;
}

/** A small deterministic generator (mulberry32) seeded from a string. */
function seededRandom(seed: string): () => number {
  let a = createHash("sha256").update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function synthesizeOutputs(
  schema: JsonSchema,
  runId: string,
  ctx: SynthesisContext,
): Record<string, unknown> {
  const rnd = seededRandom(runId);
  const int = (max: number) => 1 + Math.floor(rnd() * max);

  const value = (s: JsonSchema, field: string, depth: number): unknown => {
    if (!isObject<JsonSchema>(s)) return null;
    if (s.$ref === FILE_OUTPUT_REF || s["x-output-type"] === "file") return ctx.file(field);
    // A schema that contains itself is a local `$ref` into the outputs' `$defs` (the shared
    // reader's inlineRefs); the depth cut below ends it (an empty list or object).
    const own = typeof s.$ref === "string" ? /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref) : null;
    if (own !== null) {
      const defs = schema[own[1] as string];
      const target = isObject<JsonSchema>(defs) ? defs[own[2] as string] : undefined;
      return depth > 6 ? null : value(target, field, depth + 1);
    }
    if (s.const !== undefined) return s.const;
    if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
    const branches: JsonSchema[] | undefined = s.anyOf ?? s.oneOf;
    if (Array.isArray(branches)) {
      const pick =
        branches.find((b) => !(isObject<JsonSchema>(b) && b.type === "null")) ?? branches[0];
      return value(pick, field, depth);
    }
    let type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
    if (!type && isObject<JsonSchema>(s.properties)) type = "object";
    const leaf =
      field
        .split(".")
        .pop()
        ?.replace(/\[\d+\]$/, "") || "value";
    switch (type) {
      case "string":
        if (s.format === "date") return `2026-01-${String(int(28)).padStart(2, "0")}`;
        if (s.format === "date-time")
          return `2026-01-${String(int(28)).padStart(2, "0")}T12:00:00Z`;
        if (s.format === "uri")
          return `https://example.com/${encodeURIComponent(leaf)}-${int(999)}`;
        if (s.format === "email")
          return `${leaf.replace(/[^A-Za-z0-9]/g, "") || "user"}-${int(999)}@example.com`;
        return `${leaf}-${int(999)}`;
      case "integer":
        return int(100);
      case "number":
        return int(10000) / 4;
      case "boolean":
        return rnd() < 0.5;
      case "null":
        return null;
      case "array": {
        if (depth > 6) return [];
        const n = int(2);
        return Array.from({ length: n }, (_, i) =>
          value(s.items ?? {}, `${field}[${i}]`, depth + 1),
        );
      }
      case "object": {
        const out: Record<string, unknown> = {};
        if (depth > 6 || !isObject<JsonSchema>(s.properties)) return out;
        for (const [k, p] of Object.entries(s.properties)) {
          setOwn(out, k, value(p, field === "" ? k : `${field}.${k}`, depth + 1));
        }
        return out;
      }
      default:
        return `${leaf}-${int(999)}`;
    }
  };

  const out = value(schema, "", 0);
  return isObject<JsonSchema>(out) ? (out as Record<string, unknown>) : {};
}
