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
import { isFragmentId } from "./schema-keywords.js";

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
 * spelled as JSON Schema. A schema that contains itself through a `$ref`
 * (a tree, a linked list) has no finite inlining: it is inlined once, into
 * `$defs` (draft 4's `definitions`) of the result, and every `$ref` to it
 * becomes a local `$ref` there (`#/$defs/Tree`), so the result stays one
 * self-contained schema. A `$ref` that comes back to its schema without going
 * into a property or an item is refused: no value would finish being checked.
 */
export function inlineRefs(
  resolver: RefResolver,
  at: Located,
  options: InlineOptions,
  seen: readonly string[] = [],
): unknown {
  const recursive = new Set<string>();
  for (;;) {
    const state: InlineState = { recursive, defs: new Map(), descents: 0 };
    let out: unknown;
    try {
      out = inline(resolver, at, options, seen, 0, state);
    } catch (error) {
      // Found a schema that contains itself: inline again with it in `$defs`.
      if (!(error instanceof RecursionFound) || recursive.has(error.key)) throw error;
      recursive.add(error.key);
      continue;
    }
    if (state.defs.size === 0 || !isRecord(out)) return out;
    const keyword = defsKeyword(options);
    const defs: Record<string, unknown> = {};
    for (const def of state.defs.values()) defineOwn(defs, def.name, def.schema);
    // Draft 4 ignores the keywords beside a `$ref`: a root that is one goes in an `allOf`.
    const root =
      options.dialect === "draft-04" && typeof out.$ref === "string" ? { allOf: [out] } : out;
    return { ...root, [keyword]: defs };
  }
}

/** Where the recursive schemas go: `$defs` in 2020-12, `definitions` in draft 4. */
function defsKeyword(options: InlineOptions): "$defs" | "definitions" {
  return options.dialect === "draft-04" ? "definitions" : "$defs";
}

/** Thrown inside `inlineRefs` when a `$ref` reaches a schema that contains it (`key`). */
class RecursionFound extends Error {
  constructor(readonly key: string) {
    super(`recursive $ref to ${key}`);
  }
}

interface InlineState {
  /** The `$ref` targets (`file#pointer`) known to contain themselves. */
  readonly recursive: ReadonlySet<string>;
  /** Their inlined schemas, by target, named in `$defs` (`schema` undefined while being inlined). */
  readonly defs: Map<string, { name: string; descents: number; schema?: unknown }>;
  /** How many times the walk went into a property, an item, a key or a value (see `DESCENTS`). */
  descents: number;
}

/** Keywords whose subschemas check other values than the schema's own (its properties, items, keys). */
const DESCENTS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** A name for the schema at `key` in `$defs`: its last pointer token, letters and digits only, unique. */
function defName(key: string, taken: Iterable<{ readonly name: string }>): string {
  const names = new Set([...taken].map((d) => d.name));
  let token = key.slice(key.lastIndexOf("/") + 1);
  try {
    token = decodeURIComponent(token);
  } catch {
    // An undecodable token is named from its raw text.
  }
  const base = token.replace(/[^A-Za-z0-9_]+/g, "") || "schema";
  let name = base;
  for (let n = 2; names.has(name); n++) name = `${base}${n}`;
  return name;
}

/** `inlineRefs` at `depth` schemas below where it started (a `$ref` hop counts as one). */
function inline(
  resolver: RefResolver,
  at: Located,
  options: InlineOptions,
  seen: readonly string[],
  depth: number,
  state: InlineState,
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
    let resolved: unknown;
    if (state.recursive.has(key)) {
      let def = state.defs.get(key);
      if (def === undefined) {
        def = { name: defName(key, state.defs.values()), descents: state.descents };
        state.defs.set(key, def);
        def.schema = inline(resolver, target, options, [], depth + 1, state);
      } else if (def.schema === undefined && def.descents === state.descents)
        throw new DefinitionError(
          resolver.display(at.file),
          at.pointer,
          `\`$ref\` ${ref} comes back to its schema without going into a property or an item: a schema that is its own alternative or part has no value that ever finishes being checked`,
        );
      resolved = { $ref: `#/${defsKeyword(options)}/${def.name}` };
    } else {
      if (seen.includes(key)) throw new RecursionFound(key);
      resolved = inline(resolver, target, options, [...seen, key], depth + 1, state);
    }
    const siblings = Object.keys(node).filter((k) => k !== "$ref");
    if (options.dialect === "draft-04" || siblings.length === 0) return resolved;
    const rest = inlineKeywords(resolver, at, siblings, options, seen, depth, state);
    return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), resolved] };
  }
  return nullableAsJsonSchema(
    inlineKeywords(resolver, at, Object.keys(node), options, seen, depth, state),
  );
}

function inlineKeywords(
  resolver: RefResolver,
  at: Located,
  keys: readonly string[],
  options: InlineOptions,
  seen: readonly string[],
  depth: number,
  state: InlineState,
): Record<string, unknown> {
  const node = at.node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    // A schema's definitions are read where a `$ref` reaches them, and every `$ref` is inlined:
    // they are left out, so a definition nothing refers to is never read (schema-definitions.ts).
    if (key === "$defs" || key === "definitions") continue;
    const value = node[key];
    // A fragment-only identifier names nothing a `$ref` here may use (isFragmentId): left out,
    // so Ajv, which reads `$id`s, never sees the same one twice where a definition is inlined twice.
    if ((key === "$id" || (key === "id" && options.dialect === "draft-04")) && isFragmentId(value))
      continue;
    let inlined: unknown = value;
    const descent = DESCENTS.has(key) ? 1 : 0;
    state.descents += descent;
    const sub = (...segments: (string | number)[]) =>
      inline(resolver, child(at, key, ...segments), options, seen, depth + 1, state);
    if (SUBSCHEMA_KEYWORDS.has(key) && !Array.isArray(value)) {
      inlined = sub();
    } else if ((SUBSCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) {
      inlined = value.map((_, i) => sub(i));
    } else if (SUBSCHEMA_MAPS.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value)) defineOwn(map, name, sub(name));
      inlined = map;
    }
    state.descents -= descent;
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
