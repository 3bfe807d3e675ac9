// A schema with every `$ref` replaced by what it points at, across files:
// what a reader that hands the schema to a JSON Schema implementation (the
// emulator's Ajv) or to a client (the MCP tools) needs. The generator reads
// the same references through `RefResolver.deref` into its own model.
import { DefinitionError } from "./definition-error.js";
import { nullableAsJsonSchema } from "./nullable.js";
import { child, isRecord, type Located, type RefResolver } from "./ref-resolver.js";

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose value maps names to subschemas (a name may be `__proto__`). */
const SUBSCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

export interface InlineOptions {
  /**
   * `2020-12` (OpenAPI 3.1): keywords beside a `$ref` hold together with its
   * target, so `{$ref: X, ...rest}` becomes `{...rest, allOf: [X]}`.
   * `draft-04` (OpenAPI 3.0): "SHALL be ignored", so the target alone.
   */
  readonly dialect: "2020-12" | "draft-04";
  /**
   * Asked before a `$ref` is followed, with the reference as written and
   * the node it points at: a schema to put in its place as it is, or
   * undefined to inline the target.
   */
  readonly keep?: (ref: string, target: unknown) => unknown;
  /** Called on every schema object with where it is written (to refuse keywords at `file#pointer`). */
  readonly visit?: (schema: Record<string, unknown>, at: Located) => void;
}

/**
 * The schema at `at` with every reference inlined and 3.0 `nullable`
 * spelled as JSON Schema. A `$ref` that reaches itself is refused: a
 * recursive schema has no finite inlining (and the generator refuses it too).
 */
export function inlineRefs(
  resolver: RefResolver,
  at: Located,
  options: InlineOptions,
  seen: readonly string[] = [],
): unknown {
  const node = at.node;
  if (!isRecord(node)) return node;
  options.visit?.(node, at);
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    const { key, target } = resolver.refTarget(at);
    const kept = options.keep?.(ref, target.node);
    if (kept !== undefined) return kept;
    if (seen.includes(key))
      throw new DefinitionError(
        resolver.display(at.file),
        at.pointer,
        `recursive $ref ${ref}: a schema that contains itself is not supported`,
      );
    const resolved = inlineRefs(resolver, target, options, [...seen, key]);
    const siblings = Object.keys(node).filter((k) => k !== "$ref");
    if (options.dialect === "draft-04" || siblings.length === 0) return resolved;
    const rest = inlineKeywords(resolver, at, siblings, options, seen);
    return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), resolved] };
  }
  return nullableAsJsonSchema(inlineKeywords(resolver, at, Object.keys(node), options, seen));
}

function inlineKeywords(
  resolver: RefResolver,
  at: Located,
  keys: readonly string[],
  options: InlineOptions,
  seen: readonly string[],
): Record<string, unknown> {
  const node = at.node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = node[key];
    let inlined: unknown = value;
    if (SUBSCHEMA_KEYWORDS.has(key) && !Array.isArray(value)) {
      inlined = inlineRefs(resolver, child(at, key), options, seen);
    } else if ((SUBSCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) {
      inlined = value.map((_, i) => inlineRefs(resolver, child(at, key, i), options, seen));
    } else if (SUBSCHEMA_MAPS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value))
        defineOwn(map, name, inlineRefs(resolver, child(at, key, name), options, seen));
      inlined = map;
    }
    defineOwn(out, key, inlined);
  }
  return out;
}

/** An own property even for `__proto__` (plain assignment would set the prototype). */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
