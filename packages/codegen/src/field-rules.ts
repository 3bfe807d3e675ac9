// The value rules a generated validator checks on a field, and what a
// module needs to import for its fields (walked through every nested field).
import { jsonLiteral, stringLiteral } from "./escape.js";
import type { FieldCondition, FieldKind, FieldModel, Side } from "./model.js";

export function isPrimitive(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** The value constraints a validator checks, in the order the emulator checks them. */
const RULE_KEYS = [
  "maxLength",
  "minLength",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
] as const;

/**
 * The `constraints(...)` refinement of an input field, or "" when it has
 * none. Outputs are read, not policed: their constraints go to the docs only.
 */
export function rulesRefinement(f: FieldModel, side: Side): string {
  if (side !== "input") return "";
  const rules = rulesLiteral(f);
  return rules === "" ? "" : `.check(z.superRefine(constraints$(${rules})))`;
}

/** The `ValueRules` object literal of an input field (`{ integer: true, maxLength: 3 }`), or "" when it has none. */
export function rulesLiteral(f: FieldModel): string {
  const entries = [
    ...(f.kind === "integer" ? ["integer: true"] : []),
    ...RULE_KEYS.filter((k) => f[k] !== undefined).map((k) => `${k}: ${jsonLiteral(f[k])}`),
  ];
  return entries.length === 0 ? "" : `{ ${entries.join(", ")} }`;
}

/** Every field nested in these (object properties, items, map values, alternatives), depth first. */
function* allFields(fields: readonly FieldModel[]): Generator<FieldModel> {
  for (const f of fields) {
    yield f;
    yield* allFields([
      ...(f.fields ?? []),
      ...(f.items ? [f.items] : []),
      ...(f.prefixItems ?? []),
      ...(f.values ? [f.values] : []),
      ...(f.patternValues ?? []).map((p) => p.field),
      ...(f.propertyNames ? [f.propertyNames] : []),
      ...(f.conditions ?? []).flatMap(conditionSchemas),
      ...(f.variants ?? []),
    ]);
  }
}

/** Whether any field here or nested has one of the kinds. */
export function usesKind(fields: readonly FieldModel[], kinds: readonly FieldKind[]): boolean {
  for (const f of allFields(fields)) if (kinds.includes(f.kind)) return true;
  return false;
}

/** Whether any input here or nested has value constraints (the schema module then imports `constraints`). */
export function hasRules(fields: readonly FieldModel[]): boolean {
  for (const f of allFields(fields)) if (rulesRefinement(f, "input") !== "") return true;
  return false;
}

/** Whether any enum here or nested lists objects or arrays (compared as JSON). */
export function hasJsonEnum(fields: readonly FieldModel[]): boolean {
  for (const f of allFields(fields))
    if (f.kind === "enum" && !(f.enumValues ?? []).every(isPrimitive)) return true;
  return false;
}

/** The schemas a condition holds. */
export function conditionSchemas(c: FieldCondition): FieldModel[] {
  switch (c.kind) {
    case "not":
    case "dependentSchema":
    case "contains":
      return [c.schema];
    case "if":
      return [
        c.ifSchema,
        ...(c.thenSchema ? [c.thenSchema] : []),
        ...(c.elseSchema ? [c.elseSchema] : []),
      ];
    case "dependentRequired":
      return [];
  }
}

/**
 * The `conditions(...)` refinement of an input field, or "" when it has none
 * (outputs are read, not policed). `schemaOf` writes a condition's schema.
 */
export function conditionsRefinement(
  f: FieldModel,
  side: Side,
  schemaOf: (schema: FieldModel) => string,
): string {
  if (side !== "input" || (f.conditions ?? []).length === 0) return "";
  const entries = (f.conditions ?? []).map((c): string => {
    if (c.kind === "not") return `{ not: ${schemaOf(c.schema)} }`;
    if (c.kind === "if") {
      const then = c.thenSchema ? `, thenSchema: ${schemaOf(c.thenSchema)}` : "";
      const otherwise = c.elseSchema ? `, elseSchema: ${schemaOf(c.elseSchema)}` : "";
      return `{ ifSchema: ${schemaOf(c.ifSchema)}${then}${otherwise} }`;
    }
    if (c.kind === "contains")
      return `{ contains: ${schemaOf(c.schema)}, min: ${c.min}${c.max !== undefined ? `, max: ${c.max}` : ""} }`;
    if (c.kind === "dependentRequired")
      return `{ key: ${stringLiteral(c.key)}, names: ${jsonLiteral(c.names)} }`;
    return `{ key: ${stringLiteral(c.key)}, schema: ${schemaOf(c.schema)} }`;
  });
  return `.check(z.superRefine(conditions$([${entries.join(", ")}])))`;
}

/** How the docs name a condition. */
export function conditionLabel(c: FieldCondition): string {
  switch (c.kind) {
    case "not":
      return "`not` a schema";
    case "if":
      return "`if`/`then`/`else`";
    case "dependentRequired":
      return `with ${JSON.stringify(c.key)}, also ${c.names.map((n) => JSON.stringify(n)).join(", ")}`;
    case "dependentSchema":
      return `with ${JSON.stringify(c.key)}, a schema for the whole object`;
    case "contains":
      return `at least ${c.min}${c.max !== undefined ? ` and at most ${c.max}` : ""} items matching a schema (\`contains\`)`;
  }
}
