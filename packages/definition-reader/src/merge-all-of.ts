// `allOf` becomes one schema before a field is read, so the model (and with
// it the emitters and the diff) never sees it: every branch must hold, so
// properties and `required` add up and each bound keeps its strictest value.
// A property, item or value schema is not copied: the merged schema holds a
// stand-in for it (`standIn`, ref-resolver.ts), so it is still read from its own file
// and errors name its own pointer.

import { sameJson } from "./json-equal.js";
import { escapePointerToken as escapePointer } from "./json-pointer.js";
import { isRecord, type Located, standIn } from "./ref-resolver.js";

/** One schema taking part in a merge: the outer schema (without `allOf`), or a normalized branch. */
export interface SchemaPart {
  readonly schema: Record<string, unknown>;
  readonly at: Located;
}

/** Keywords whose first value wins (the outer schema comes first). */
const FIRST_WINS = [
  "description",
  "default",
  "title",
  "example",
  "examples",
  "readOnly",
  "writeOnly",
  "deprecated",
];
const LOWER_BOUNDS = [
  "minimum",
  "exclusiveMinimum",
  "minLength",
  "minItems",
  "minProperties",
] as const;
const UPPER_BOUNDS = [
  "maximum",
  "exclusiveMaximum",
  "maxLength",
  "maxItems",
  "maxProperties",
] as const;
/** Keywords every part must agree on when more than one sets them. */
const MUST_AGREE = ["format", "pattern", "x-input-type", "x-output-type"] as const;
/** What merging reads itself; the rest is unknown to it. */
const HANDLED = new Set<string>([
  ...FIRST_WINS,
  ...LOWER_BOUNDS,
  ...UPPER_BOUNDS,
  ...MUST_AGREE,
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "multipleOf",
  "uniqueItems",
  "oneOf",
  "anyOf",
  "nullable",
  "discriminator",
]);

/**
 * Keywords whose schemas are read where they are written, and which do not
 * combine by merging (two `not`s are not one): a branch holding one is not
 * merged; the `allOf` is then read as parts that must each hold.
 */
const READ_IN_PLACE = [
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
];

/** A stand-in for `part.schema[key]...`, which lives at `part.at.pointer/key/...`. */
function standInFor(part: SchemaPart, value: unknown, ...segments: string[]): unknown {
  const pointer = segments.reduce((p, s) => `${p}/${escapePointer(s)}`, part.at.pointer);
  return standIn({ node: value, file: part.at.file, pointer });
}

/** One schema for several that must all hold: the only one, or a nested `allOf` of stand-ins. */
function allOfThese(schemas: readonly unknown[]): unknown {
  return schemas.length === 1 ? schemas[0] : { allOf: schemas };
}

/**
 * Merges the parts into one schema. `fail` names the `allOf` in errors: it
 * is called when the parts cannot all hold at once or when a combination
 * would need a keyword the model does not express.
 */
export function mergeAllOf(
  parts: readonly SchemaPart[],
  fail: (message: string) => never,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const set = (key: string, value: unknown) =>
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });

  const inPlace = parts
    .slice(1)
    .flatMap((p) => READ_IN_PLACE.filter((k) => Object.hasOwn(p.schema, k)));
  if (parts.some((p) => Array.isArray(p.schema.items))) inPlace.push("items");
  if (inPlace.length > 0)
    fail(`a branch of \`allOf\` holds \`${inPlace[0]}\`, which is read where it is written`);
  for (const key of FIRST_WINS) {
    const part = parts.find((p) => Object.hasOwn(p.schema, key));
    if (part) set(key, part.schema[key]);
  }
  for (const part of parts)
    for (const key of Object.keys(part.schema))
      if (!HANDLED.has(key) && !Object.hasOwn(out, key)) set(key, part.schema[key]);

  // type: all must agree; an integer is also a number.
  const types = [...new Set(parts.map((p) => p.schema.type).filter((t) => t !== undefined))];
  if (types.some((t) => typeof t !== "string"))
    fail("a type list inside `allOf` is not supported; use `oneOf` for alternatives");
  if (types.length === 1) set("type", types[0]);
  else if (types.length === 2 && types.includes("integer") && types.includes("number"))
    set("type", "integer");
  else if (types.length > 1)
    fail(
      `the branches of \`allOf\` require different types (${types.join(", ")}); no value has both`,
    );

  for (const key of MUST_AGREE) {
    const values = parts.map((p) => p.schema[key]).filter((v) => v !== undefined);
    const distinct = values.filter((v, i) => values.findIndex((w) => sameJson(v, w)) === i);
    if (distinct.length > 1)
      fail(
        `the branches of \`allOf\` set different \`${key}\` values (${distinct.map((v) => JSON.stringify(v)).join(", ")}); the model keeps one per field`,
      );
    if (distinct.length === 1) set(key, distinct[0]);
  }

  for (const key of LOWER_BOUNDS) {
    const values = parts.map((p) => p.schema[key]).filter((v) => typeof v === "number");
    if (values.length > 0) set(key, Math.max(...values));
  }
  for (const key of UPPER_BOUNDS) {
    const values = parts.map((p) => p.schema[key]).filter((v) => typeof v === "number");
    if (values.length > 0) set(key, Math.min(...values));
  }
  // OpenAPI 3.0's boolean exclusive bounds apply to their own part's minimum/maximum only.
  if (parts.some((p) => typeof p.schema.exclusiveMinimum === "boolean"))
    fail(
      "OpenAPI 3.0's boolean `exclusiveMinimum` inside `allOf` is not supported; use 3.1's numeric form",
    );
  if (parts.some((p) => typeof p.schema.exclusiveMaximum === "boolean"))
    fail(
      "OpenAPI 3.0's boolean `exclusiveMaximum` inside `allOf` is not supported; use 3.1's numeric form",
    );

  const multiples = [
    ...new Set(parts.map((p) => p.schema.multipleOf).filter((v) => typeof v === "number")),
  ].sort((a, b) => b - a);
  if (multiples.length > 0) {
    const largest = multiples[0] as number;
    const ratio = (m: number) => largest / m;
    if (!multiples.every((m) => Math.abs(ratio(m) - Math.round(ratio(m))) < 1e-9))
      fail(
        `the branches of \`allOf\` set \`multipleOf\` values that do not divide each other (${multiples.join(", ")})`,
      );
    set("multipleOf", largest);
  }
  if (parts.some((p) => p.schema.uniqueItems === true)) set("uniqueItems", true);

  // enum: the values every part allows.
  const enums = parts.map((p) => p.schema.enum).filter((e) => Array.isArray(e));
  if (enums.length > 0) {
    const [first, ...rest] = enums as unknown[][];
    const common = (first ?? []).filter((v) => rest.every((e) => e.some((w) => sameJson(v, w))));
    if (common.length === 0)
      fail("the `enum` lists of the branches of `allOf` have no value in common");
    set("enum", common);
  }

  // Object structure.
  const properties = new Map<string, unknown[]>();
  for (const part of parts) {
    if (!isRecord(part.schema.properties)) continue;
    for (const [name, value] of Object.entries(part.schema.properties)) {
      const list = properties.get(name) ?? [];
      list.push(standInFor(part, value, "properties", name));
      properties.set(name, list);
    }
  }
  if (properties.size > 0) {
    const merged: Record<string, unknown> = {};
    for (const [name, list] of properties)
      Object.defineProperty(merged, name, {
        value: allOfThese(list),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    set("properties", merged);
  }
  const required = new Set<string>();
  for (const part of parts)
    if (Array.isArray(part.schema.required))
      for (const name of part.schema.required) if (typeof name === "string") required.add(name);
  if (required.size > 0) set("required", [...required]);

  // additionalProperties: closed when any part closes it; value schemas all hold.
  const extra = parts.filter((p) => p.schema.additionalProperties !== undefined);
  if (extra.some((p) => p.schema.additionalProperties === false))
    set("additionalProperties", false);
  else {
    const schemas = extra
      .filter((p) => isRecord(p.schema.additionalProperties))
      .map((p) => standInFor(p, p.schema.additionalProperties, "additionalProperties"));
    if (schemas.length > 0) set("additionalProperties", allOfThese(schemas));
    else if (extra.length > 0) set("additionalProperties", true);
  }

  const items = parts
    .filter((p) => p.schema.items !== undefined)
    .map((p) => standInFor(p, p.schema.items, "items"));
  if (items.length > 0) set("items", allOfThese(items));

  // A union may come from one part only, and not beside properties.
  const unions = parts.filter((p) => p.schema.oneOf !== undefined || p.schema.anyOf !== undefined);
  if (unions.length > 1)
    fail("more than one branch of `allOf` is a `oneOf`/`anyOf`; the model cannot intersect unions");
  const union = unions[0];
  if (union !== undefined) {
    if (properties.size > 0 || items.length > 0)
      fail(
        "`allOf` combining a `oneOf`/`anyOf` with properties or items is not supported; repeat the shared properties in each alternative",
      );
    for (const key of ["oneOf", "anyOf"] as const) {
      const branches = union.schema[key];
      if (Array.isArray(branches))
        set(
          key,
          branches.map((b, i) => standInFor(union, b, key, String(i))),
        );
    }
  }
  return out;
}
