// A schema with every `$ref` replaced by what it points at, across files:
// what a reader that hands the schema to a JSON Schema implementation (the
// emulator's Ajv) or to a client (the MCP tools) needs. The generator reads
// the same references through `RefResolver.deref` into its own model.
import { DefinitionError } from "./definition-error.js";
import { MAX_SCHEMA_NESTING, nestingLimitDetail } from "./nesting-limit.js";
import { nullableAsJsonSchema } from "./nullable.js";
import { child, isRecord, type Located, type RefResolver } from "./ref-resolver.js";
import { refuseIdentityInDefinitions } from "./schema-definitions.js";
import { foreignDialect } from "./schema-dialect.js";

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
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas"]);

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
  return inline(resolver, at, options, seen, 0);
}

/** `inlineRefs` at `depth` schemas below where it started (a `$ref` hop counts as one). */
function inline(
  resolver: RefResolver,
  at: Located,
  options: InlineOptions,
  seen: readonly string[],
  depth: number,
): unknown {
  const node = at.node;
  if (!isRecord(node)) return node;
  if (depth > MAX_SCHEMA_NESTING)
    throw new DefinitionError(
      resolver.display(at.file),
      at.pointer,
      nestingLimitDetail("the schema"),
    );
  options.visit?.(node, at);
  const foreign = foreignDialect(node, options.dialect);
  if (foreign !== undefined)
    throw new DefinitionError(resolver.display(at.file), `${at.pointer}/$schema`, foreign);
  refuseIdentityInDefinitions(at, (file) => resolver.display(file), options.dialect === "draft-04");
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
    const resolved = inline(resolver, target, options, [...seen, key], depth + 1);
    const siblings = Object.keys(node).filter((k) => k !== "$ref");
    if (options.dialect === "draft-04" || siblings.length === 0) return resolved;
    const rest = inlineKeywords(resolver, at, siblings, options, seen, depth);
    return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), resolved] };
  }
  return nullableAsJsonSchema(
    inlineKeywords(resolver, at, Object.keys(node), options, seen, depth),
  );
}

function inlineKeywords(
  resolver: RefResolver,
  at: Located,
  keys: readonly string[],
  options: InlineOptions,
  seen: readonly string[],
  depth: number,
): Record<string, unknown> {
  const node = at.node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    // A schema's definitions are read where a `$ref` reaches them, and every `$ref` is inlined:
    // they are left out, so a definition nothing refers to is never read (schema-definitions.ts).
    if (key === "$defs" || key === "definitions") continue;
    const value = node[key];
    let inlined: unknown = value;
    if (SUBSCHEMA_KEYWORDS.has(key) && !Array.isArray(value)) {
      inlined = inline(resolver, child(at, key), options, seen, depth + 1);
    } else if ((SUBSCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) {
      inlined = value.map((_, i) => inline(resolver, child(at, key, i), options, seen, depth + 1));
    } else if (SUBSCHEMA_MAPS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value))
        defineOwn(map, name, inline(resolver, child(at, key, name), options, seen, depth + 1));
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
