// One entry per field kind: its TypeScript type, its zod schema, what its
// JSDoc says and how the diff names it. The emitters and the diff go
// through these functions only, so a new kind is one entry here (a missing
// entry is a type error) instead of a case in five parallel switches.
import { docComment, jsonLiteral, propertyKey, stringLiteral } from "./escape.js";
import {
  conditionLabel,
  conditionsRefinement,
  isPrimitive,
  rulesRefinement,
} from "./field-rules.js";
import type { FieldKind, FieldModel, RecursiveType, Side } from "./model.js";
import { arrayOf, itemsChecked, literalType } from "./type-literals.js";

export { hasJsonEnum, hasRules, isPrimitive, rulesLiteral, usesKind } from "./field-rules.js";

export type { Side } from "./model.js";

/** What one `.types.d.ts` module must import, collected while its types are written. */
export interface TypeImports {
  fileInput: boolean;
  fileOutput: boolean;
  json: boolean;
}

export interface TypeContext {
  readonly side: Side;
  readonly imports: TypeImports;
  /** Indentation of the line the type starts on (nested objects are indented from it). */
  readonly indent: string;
}

/** Whether the TypeScript flavour of a schema module (the agreement check) or plain JavaScript is written. */
export type Flavour = "ts" | "js";

export interface SchemaContext {
  readonly side: Side;
  readonly indent: string;
  readonly flavour: Flavour;
}

interface KindRules {
  /** The TypeScript type of a value, without `| null`. */
  type(f: FieldModel, ctx: TypeContext): string;
  /** The zod schema of a value, without `z.nullable` / `z.optional`; `rules` is the input's constraint refinement ("" for none). */
  schema(f: FieldModel, ctx: SchemaContext, rules: string): string;
  /** JSDoc lines that say what a caller passes or reads for this kind (besides description and constraints). */
  docs(f: FieldModel, side: Side): string[];
  /** How the diff and the docs name the kind: `text`, `enum of number`, `one of (text | number)`. */
  label(f: FieldModel): string;
}

const FIELD_KINDS: { readonly [K in FieldKind]: KindRules } = {
  text: {
    type: () => "string",
    schema: (_f, _ctx, rules) => `z.string()${rules}`,
    docs: () => [],
    label: () => "text",
  },
  number: {
    type: () => "number",
    schema: (_f, _ctx, rules) => `z.number()${rules}`,
    docs: () => [],
    label: () => "number",
  },
  integer: {
    type: () => "number",
    // zod's own .int() stops at 2^53 and would add a second issue next to a
    // broken bound; the emulator accepts any whole number and reports one.
    schema: (_f, _ctx, rules) => `z.number()${rules}`,
    docs: () => ["An integer (a whole number)."],
    label: () => "integer",
  },
  boolean: {
    type: () => "boolean",
    schema: () => "z.boolean()",
    docs: () => [],
    label: () => "boolean",
  },
  json: {
    type: (_f, ctx) => {
      ctx.imports.json = true;
      return "JsonObject | JsonArray";
    },
    schema: () => "jsonObjectOrArray",
    docs: () => ["A JSON object or array (sent as is, never as a string of JSON)."],
    label: () => "json",
  },
  file: {
    type: (_f, ctx) => {
      if (ctx.side === "input") ctx.imports.fileInput = true;
      else ctx.imports.fileOutput = true;
      return ctx.side === "input" ? "FileInput" : "FileOutputReference";
    },
    schema: (_f, ctx) => (ctx.side === "input" ? "fileInput" : "fileOutput"),
    docs: (_f, side) =>
      side === "input"
        ? [
            "A file: pass `file(bytes, { filename, mimeType })` from `@wfr/runtime`; the client uploads it with the launch.",
          ]
        : [
            "A file: a download reference; fetch its bytes with `download(reference)` (its `download_url` as given).",
          ],
    label: () => "file",
  },
  files: {
    type: (f, ctx) => arrayOf(FIELD_KINDS.file.type(f, ctx)),
    schema: (_f, ctx, rules) =>
      itemsChecked(ctx.side === "input" ? "fileInput" : "fileOutput", rules),
    docs: (_f, side) =>
      side === "input"
        ? [
            "Files: pass a list of `file(bytes, { filename, mimeType })` from `@wfr/runtime`; the client uploads them with the launch.",
          ]
        : [
            "Files: download references; fetch each one's bytes with `download(reference)` (its `download_url` as given).",
          ],
    label: () => "files",
  },
  enum: {
    type: (f) => (f.enumValues ?? []).map(literalType).join(" | ") || "never",
    schema: (f, ctx, rules) => {
      const values = f.enumValues ?? [];
      if (values.every(isPrimitive))
        return `z.literal([${values.map((v) => jsonLiteral(v)).join(", ")}])${rules}`;
      // Objects and arrays are compared as JSON, as the server compares them.
      const type =
        ctx.flavour === "ts"
          ? `<${FIELD_KINDS.enum.type(f, { ...ctx, imports: noImports() })}>`
          : "";
      return `z.custom${type}(isOneOf$(${jsonLiteral(values)}), { message: ${stringLiteral(`Invalid option: expected one of ${JSON.stringify(values)}`)} })${rules}`;
    },
    docs: (f) =>
      (f.enumValues ?? []).length === 1 && !f.nullable
        ? [`Always ${jsonLiteral(f.enumValues?.[0])}.`]
        : [],
    label: (f) => `enum of ${f.enumBase ?? "text"}`,
  },
  union: {
    type: (f, ctx) => {
      const types = (f.variants ?? []).map((v) => fieldType(v, ctx));
      return types.filter((t, i) => types.indexOf(t) === i).join(" | ");
    },
    schema: (f, ctx) => {
      const inner = `${ctx.indent}  `;
      const variants = (f.variants ?? []).map(
        (v) => `${inner}${fieldSchema(v, { ...ctx, indent: inner })},`,
      );
      // oneOf: exactly one alternative may match, as JSON Schema says (zod's xor).
      return `z.${f.exclusive ? "xor" : "union"}([\n${variants.join("\n")}\n${ctx.indent}])`;
    },
    docs: (f) => [
      `${f.exclusive ? "Exactly one" : "One or more"} of: ${(f.variants ?? []).map(kindLabel).join(", ")}.`,
    ],
    label: (f) => `one of (${(f.variants ?? []).map(kindLabel).join(" | ")})`,
  },
  array: {
    type: (f, ctx) => {
      if (f.prefixItems === undefined)
        return arrayOf(f.items ? fieldType(f.items, ctx) : "unknown");
      // A tuple: the items before `minItems` are there, the others may be missing.
      const elements = f.prefixItems.map((p, i) => {
        const t = fieldType(p, ctx);
        return i < (f.minItems ?? 0) ? t : `(${t})?`;
      });
      if (f.items === undefined) elements.push("...unknown[]");
      else if (f.items.kind !== "never" || f.items.nullable)
        elements.push(`...Array<${fieldType(f.items, ctx)}>`);
      return `readonly [${elements.join(", ")}]`;
    },
    schema: (f, ctx, rules) => {
      if (f.prefixItems === undefined)
        return itemsChecked(f.items ? fieldSchema(f.items, ctx) : "z.unknown()", rules);
      const elements = f.prefixItems.map((p, i) => {
        const z = fieldSchema(p, ctx);
        return i < (f.minItems ?? 0) ? z : `z.optional(${z})`;
      });
      // No rest schema: any further item; `false` (kind never): none.
      const rest =
        f.items === undefined
          ? ", z.unknown()"
          : f.items.kind === "never" && !f.items.nullable
            ? ""
            : `, ${fieldSchema(f.items, ctx)}`;
      const tuple = `z.tuple([${elements.join(", ")}]${rest})`;
      return rules === "" ? tuple : `z.pipe(z.array(z.unknown())${rules}, ${tuple})`;
    },
    docs: () => [],
    label: () => "array",
  },
  object: {
    type: (f, ctx) => {
      const fields = f.fields ?? [];
      if (f.values !== undefined && fields.length === 0 && f.patternValues === undefined) {
        const readonly = ctx.side === "output" ? "readonly " : "";
        return `{ ${readonly}[key: string]: ${fieldType(f.values, ctx)} }`;
      }
      if (fields.length === 0 && f.additionalProperties !== false && f.values === undefined) {
        // A free-form object: any JSON object.
        ctx.imports.json = true;
        return "JsonObject";
      }
      const rest = restValues(f);
      if (rest !== undefined) return objectType(fields, ctx, { values: rest });
      return objectType(fields, ctx, ctx.side === "input" && f.additionalProperties === true);
    },
    schema: (f, ctx, rules) => {
      const fields = f.fields ?? [];
      if (f.patternValues !== undefined || f.propertyNames !== undefined) {
        // Keys checked one by one (objectKeys); the shape checks the declared fields only.
        const proto = fields.some((x) => x.name === "__proto__")
          ? protoRefinement(f, ctx, false)
          : "";
        // The catch-all only carries the index signature's type: objectKeys is the exact check.
        const rest = (restValues(f) ?? []).map((v) => fieldSchema(v, ctx));
        const loose = `z.looseObject(${objectShape(fields, ctx)})`;
        const object =
          rest.length === 0
            ? loose
            : `z.catchall(${loose}, ${rest.length === 1 ? rest[0] : `z.union([${rest.join(", ")}])`})`;
        return `z.pipe(z.unknown().check(z.superRefine(objectKeys$(${keyRules(f, ctx)})))${proto}, ${object})${rules}`;
      }
      if (f.values !== undefined && fields.length === 0)
        return `z.record(z.string(), ${fieldSchema(f.values, ctx)})${rules}`;
      if (fields.length === 0 && f.additionalProperties !== false)
        return `z.record(z.string(), z.json())${rules}`;
      const strict = ctx.side === "input" && f.additionalProperties === false;
      const shaped = `${strict ? "z.strictObject" : "z.looseObject"}(${objectShape(fields, ctx)})`;
      const object =
        f.values !== undefined ? `z.catchall(${shaped}, ${fieldSchema(f.values, ctx)})` : shaped;
      const proto = protoRefinement(f, ctx, strict);
      if (proto === "") return `${object}${rules}`;
      // zod's object output no longer holds `__proto__`: the key is checked on the way in. A
      // strict object reports an own `__proto__` key as unrecognized, so where one is declared
      // the strict check sees the object without it.
      const declared = fields.some((x) => x.name === "__proto__");
      const checked = `z.unknown()${proto}`;
      const input =
        strict && declared ? `z.pipe(${checked}, z.transform(withoutProtoKey$))` : checked;
      return `z.pipe(${input}, ${object})${rules}`;
    },
    docs: () => [],
    label: () => "object",
  },
  unknown: {
    type: () => "unknown",
    // Constraints without a `type` hold for the values of their own JSON type (JSON Schema).
    schema: (_f, _ctx, rules) => `z.unknown()${rules}`,
    docs: () => [],
    label: () => "unknown",
  },
  never: {
    type: () => "never",
    schema: () => "z.never()",
    docs: (f) => [f.nullable ? "Always null." : "The definition allows no value here."],
    label: () => "nothing",
  },
  ref: {
    // A recursive schema: its named type, and its lazy schema (the builder declares both).
    type: (f) => f.ref as string,
    schema: (f) => `${f.ref}$`,
    docs: (f) => [`A \`${f.ref}\` (the schema contains itself).`],
    label: (f) => `recursive ${f.ref}`,
  },
  all: {
    type: (f, ctx) => {
      const types = (f.variants ?? []).map((v) => fieldType(v, ctx)).filter((t) => t !== "unknown");
      const parts = types.filter((t, i) => types.indexOf(t) === i).map((t) => `(${t})`);
      return parts.length === 0 ? "unknown" : parts.join(" & ");
    },
    schema: (f, ctx) => {
      const inner = `${ctx.indent}  `;
      const [first, ...rest] = (f.variants ?? []).map((v) =>
        fieldSchema(v, { ...ctx, indent: inner }),
      );
      // Every part must hold, as JSON Schema's allOf says. Inputs: each part checked on its own
      // (allOf$, everyPart in _shared/conditions), since zod's intersection lets a key through that
      // one closed part refuses; outputs are read, not policed: zod's intersection.
      const join = ctx.side === "input" ? "allOf$" : "z.intersection";
      return rest.reduce((all, part) => `${join}(${all}, ${part})`, first ?? "z.unknown()");
    },
    docs: (f) => [`All of: ${(f.variants ?? []).map(kindLabel).join(", ")}.`],
    label: (f) => `all of (${(f.variants ?? []).map(kindLabel).join(" & ")})`,
  },
};

/**
 * zod's object shapes cannot hold a `__proto__` key (a shape skips it), so an
 * input object checks that key itself: as its field when it declares one, as
 * an unknown key when closed (where it declares one, the strict object is
 * handed the value without that key, see `withoutProtoKey`).
 */
function protoRefinement(f: FieldModel, ctx: SchemaContext, strict: boolean): string {
  if (ctx.side !== "input") return "";
  const field = (f.fields ?? []).find((x) => x.name === "__proto__");
  const valueSchema =
    field !== undefined
      ? fieldSchema({ ...field, name: "|" }, ctx)
      : f.values !== undefined
        ? fieldSchema(f.values, ctx)
        : undefined;
  if (valueSchema === undefined && !strict) return "";
  return `.check(z.superRefine(protoKey$(${valueSchema ?? "undefined"}, ${field?.required === true})))`;
}

/**
 * The schemas the values of undeclared keys may have, when they are known:
 * the rest's (`additionalProperties: {schema}`) and the patterns' when no
 * other key is allowed. Undefined when any value may come (an open object).
 * Patterns say nothing TypeScript can use about the keys themselves.
 */
function restValues(f: FieldModel): FieldModel[] | undefined {
  const patterns = (f.patternValues ?? []).map((p) => p.field);
  if (f.values !== undefined) return [f.values, ...patterns];
  return patterns.length > 0 && f.additionalProperties === false ? patterns : undefined;
}

/** The `KeyRules` of an object with `patternProperties` or `propertyNames` (see objectKeys). */
function keyRules(f: FieldModel, ctx: SchemaContext): string {
  const inner = `${ctx.indent}  `;
  const at = { ...ctx, indent: inner };
  const entries = [`declared: ${jsonLiteral((f.fields ?? []).map((x) => x.name))}`];
  if (f.patternValues !== undefined)
    entries.push(
      `patterns: [${f.patternValues.map((p) => `[${stringLiteral(p.pattern)}, ${fieldSchema(p.field, at)}]`).join(", ")}]`,
    );
  // Outputs keep the keys the service adds: only inputs refuse unknown ones.
  if (f.values !== undefined) entries.push(`additional: ${fieldSchema(f.values, at)}`);
  else if (f.additionalProperties === false && ctx.side === "input")
    entries.push("additional: false");
  if (f.propertyNames !== undefined) entries.push(`names: ${fieldSchema(f.propertyNames, at)}`);
  return `{ ${entries.join(", ")} }`;
}

/** The input object schema of a workflow's `inputs` (closed: unknown keys are rejected). */
export function inputsObjectSchema(fields: readonly FieldModel[], ctx: SchemaContext): string {
  return FIELD_KINDS.object.schema(
    {
      name: "|",
      kind: "object",
      required: true,
      nullable: false,
      hasDefault: false,
      fields,
      additionalProperties: false,
      pointer: "",
    },
    ctx,
    "",
  );
}

function noImports(): TypeImports {
  return { fileInput: false, fileOutput: false, json: false };
}

/** How the diff and the docs name a field's kind. */
export function kindLabel(f: FieldModel): string {
  return FIELD_KINDS[f.kind].label(f);
}

/** The TypeScript type of a field's value (`| null` included when nullable). */
function fieldType(f: FieldModel, ctx: TypeContext): string {
  const t = FIELD_KINDS[f.kind].type(f, ctx);
  return f.nullable && t !== "unknown" ? `${t} | null` : t;
}

/** The TypeScript type a recursive type's name stands for. */
export function recursiveType(t: RecursiveType, ctx: TypeContext): string {
  return fieldType(t.field, ctx);
}

/** The zod schema a recursive type's lazy schema builds. */
export function recursiveSchema(t: RecursiveType, ctx: SchemaContext): string {
  return fieldSchema(t.field, ctx);
}

/** The zod schema of a field (`z.nullable` and `z.optional` included). */
function fieldSchema(f: FieldModel, ctx: SchemaContext): string {
  let z = FIELD_KINDS[f.kind].schema(f, ctx, rulesRefinement(f, ctx.side));
  if (f.nullable && f.kind !== "unknown") z = `z.nullable(${z})`;
  // Outside `z.nullable`: a condition holds for null too.
  z += conditionsRefinement(f, ctx.side, (schema) => fieldSchema(schema, ctx));
  // zod lets a missing key through `z.unknown()`; a required one must be there.
  if (f.required && f.kind === "unknown" && !["[]", "|", "{}"].includes(f.name))
    z += `.check(z.refine((v${ctx.flavour === "ts" ? ": unknown" : ""}) => v !== undefined, "Required input is missing"))`;
  if (!f.required && f.name !== "[]" && f.name !== "|" && f.name !== "{}") z = `z.optional(${z})`;
  return z;
}

/** The JSDoc lines of a field: description, what to pass or read, constraints, default. */
function fieldDocs(f: FieldModel, side: Side): string[] {
  const lines: string[] = [];
  if (f.description !== undefined) lines.push(f.description);
  lines.push(...FIELD_KINDS[f.kind].docs(f, side));
  if (f.format !== undefined) lines.push(`Format: ${f.format}.`);
  if (f.minLength !== undefined) lines.push(`At least ${f.minLength} characters.`);
  if (f.maxLength !== undefined) lines.push(`At most ${f.maxLength} characters.`);
  if (f.pattern !== undefined) lines.push(`Pattern: \`${f.pattern}\`.`);
  if (f.minimum !== undefined) lines.push(`@minimum ${f.minimum}`);
  if (f.exclusiveMinimum !== undefined) lines.push(`Greater than ${f.exclusiveMinimum}.`);
  if (f.maximum !== undefined) lines.push(`@maximum ${f.maximum}`);
  if (f.exclusiveMaximum !== undefined) lines.push(`Less than ${f.exclusiveMaximum}.`);
  if (f.multipleOf !== undefined) lines.push(`A multiple of ${f.multipleOf}.`);
  if (f.minItems !== undefined) lines.push(`At least ${f.minItems} items.`);
  if (f.maxItems !== undefined) lines.push(`At most ${f.maxItems} items.`);
  if (f.minProperties !== undefined) lines.push(`At least ${f.minProperties} properties.`);
  if (f.maxProperties !== undefined) lines.push(`At most ${f.maxProperties} properties.`);
  if (f.uniqueItems === true) lines.push("Items are unique.");
  if ((f.conditions ?? []).length > 0)
    lines.push(
      `Also checked by the input validator (no type says it): ${(f.conditions ?? []).map(conditionLabel).join("; ")}.`,
    );
  if (f.hasDefault) lines.push(`@default ${jsonLiteral(f.default)}`);
  return lines;
}

// ---------------------------------------------------------------- objects

/** Names every object literal already has through Object.prototype (as TypeScript sees it). */
const OBJECT_MEMBERS = new Set([
  "constructor",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
]);

/**
 * The type of a property. An optional property named like an
 * Object.prototype member (`constructor`, `toString`, ...) also admits that
 * member's type: TypeScript checks an object literal that omits it against
 * the inherited member, so without this no literal could omit it. The input
 * schema still rejects such values at run time.
 */
function memberType(f: FieldModel, ctx: TypeContext): string {
  const t = fieldType(f, ctx);
  if (f.required) return t;
  // `| undefined`: the schemas accept an explicit undefined for an optional
  // field, so the types say so too (and hold under exactOptionalPropertyTypes).
  const inherited = OBJECT_MEMBERS.has(f.name) ? ` | Object[${stringLiteral(f.name)}]` : "";
  return `${t}${inherited} | undefined`;
}

/** `name?: type;` for an interface or object type, readonly for outputs. */
function memberSignature(f: FieldModel, ctx: TypeContext): string {
  const readonly = ctx.side === "output" ? "readonly " : "";
  const optional = f.required ? "" : "?";
  return `${readonly}${propertyKey(f.name, "type")}${optional}: ${memberType(f, ctx)};`;
}

/** The members of an interface or object type, each after its JSDoc, in definition order. */
export function members(fields: readonly FieldModel[], ctx: TypeContext): string[] {
  return fields.map(
    (f) =>
      `${docComment(fieldDocs(f, ctx.side), ctx.indent)}${ctx.indent}${memberSignature(f, ctx)}`,
  );
}

/**
 * An object type: its members, and an index signature when other keys are
 * allowed. With a schema for the other keys (`values`), TypeScript requires
 * every declared member to fit the index signature too, so the signature is
 * the union of the values' type and the members' types: each declared key
 * keeps its own type, any other key reads as one of them.
 */
function objectType(
  fields: readonly FieldModel[],
  ctx: TypeContext,
  open: boolean | { readonly values: readonly FieldModel[] },
): string {
  // A closed object without properties: nothing may be sent; outputs stay open (the service may add fields).
  if (fields.length === 0 && open === false)
    return ctx.side === "input" ? "Record<string, never>" : "{ readonly [key: string]: unknown }";
  const inner = { ...ctx, indent: `${ctx.indent}  ` };
  const lines = members(fields, inner);
  if (open === true) lines.push(`${inner.indent}[key: string]: unknown;`);
  else if (open !== false) {
    const types = [
      ...open.values.map((v) => fieldType(v, ctx)),
      ...fields.map((f) => memberType(f, ctx)),
    ];
    const index = types.filter((t, i) => types.indexOf(t) === i).join(" | ");
    const readonly = ctx.side === "output" ? "readonly " : "";
    lines.push(`${inner.indent}${readonly}[key: string]: ${index};`);
  }
  return `{\n${lines.join("\n")}\n${ctx.indent}}`;
}

/** `{ name: schema, ... }`, the shape of a zod object, in definition order. */
export function objectShape(all: readonly FieldModel[], ctx: SchemaContext): string {
  // `__proto__` is checked by protoRefinement (a zod shape cannot hold it).
  const fields = ctx.side === "input" ? all.filter((f) => f.name !== "__proto__") : all;
  if (fields.length === 0) return "{}";
  const inner = `${ctx.indent}  `;
  return `{\n${fields.map((f) => `${inner}${propertyKey(f.name, "value")}: ${fieldSchema(f, { ...ctx, indent: inner })},`).join("\n")}\n${ctx.indent}}`;
}
