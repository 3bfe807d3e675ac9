// The quick checks of a workflow's inputs and outputs, written beside its zod schemas: plain
// JavaScript over the caller's own objects or the parsed result (no copy, no zod, nothing
// allocated for the common launch or result). They only ever answer "valid where the schema is
// valid too"; anything they do not cover (a kind such as a union or a map, a value that is not
// plain data, a `__proto__` key, very deep JSON) is "not sure", and `validateInputs` or
// `checkOutputs` then asks the schema, which alone words the issues. So a quick check can make
// validation cheaper but never changes a verdict. The outputs' side follows the outputs' schema:
// objects keep the keys the service adds, and constraints are documented, not checked.
import { stringLiteral } from "../escape.js";
import type { Side } from "../field-kinds.js";
import { type Flavour, isPrimitive, rulesLiteral } from "../field-kinds.js";
import type { FieldModel } from "../model.js";

/** What writing one module's quick check collects: module-level helpers and the support it uses. */
interface QuickContext {
  readonly flavour: Flavour;
  /** Which schema the check stands in for: the strict inputs or the tolerant outputs. */
  readonly side: Side;
  /** Module-level declarations (object checks and rule constants), in the order they are made. */
  readonly declarations: string[];
  /** Names imported from `_shared/support` (and `isFileInput` from the runtime). */
  readonly uses: Set<string>;
}

/** The support functions a quick check may call, by their local name. */
export const QUICK_SUPPORT = {
  isPlainRecord$: "isPlainRecord as isPlainRecord$",
  allItems$: "allItems as allItems$",
  meetsRules$: "meetsRules as meetsRules$",
  isPlainJsonRecord$: "isPlainJsonRecord as isPlainJsonRecord$",
  isPlainJsonObjectOrArray$: "isPlainJsonObjectOrArray as isPlainJsonObjectOrArray$",
  isFileOutput$: "isFileOutput as isFileOutput$",
} as const;

function use(ctx: QuickContext, name: keyof typeof QUICK_SUPPORT | "isFileInput$"): string {
  ctx.uses.add(name);
  return name;
}

/** A fresh module-level name for a helper: `quickObject$1`, `rules$2`. */
function declare(ctx: QuickContext, prefix: string, text: (name: string) => string): string {
  const name = `${prefix}$${ctx.declarations.length + 1}`;
  // The number is taken before the text is built: nested helpers declared meanwhile come first.
  ctx.declarations.push("");
  const at = ctx.declarations.length - 1;
  ctx.declarations[at] = text(name);
  return name;
}

/** An expression that is true only when `x` is a valid value of this kind (no nullability, no rules). */
function kindCheck(f: FieldModel, x: string, ctx: QuickContext, depth: number): string {
  switch (f.kind) {
    case "text":
      return `typeof ${x} === "string"`;
    case "number":
    case "integer":
      return `typeof ${x} === "number" && Number.isFinite(${x})`;
    case "boolean":
      return `typeof ${x} === "boolean"`;
    case "json":
      return `${use(ctx, "isPlainJsonObjectOrArray$")}(${x})`;
    case "file":
      return `${use(ctx, fileCheck(ctx))}(${x})`;
    case "files":
      return `${use(ctx, "allItems$")}(${x}, ${use(ctx, fileCheck(ctx))})`;
    case "array": {
      if (f.prefixItems !== undefined) return "false";
      const item = `item${depth}`;
      const check = f.items === undefined ? "true" : valueCheck(f.items, item, ctx, depth + 1);
      if (check === "true") return `Array.isArray(${x})`;
      const param = ctx.flavour === "ts" ? `(${item}: unknown)` : item;
      return `${use(ctx, "allItems$")}(${x}, ${param} => ${check})`;
    }
    case "enum": {
      const values = f.enumValues ?? [];
      if (values.length === 0 || !values.every(isPrimitive)) return "false";
      return `(${values.map((v) => `${x} === ${typeof v === "string" ? stringLiteral(v) : String(v)}`).join(" || ")})`;
    }
    case "object":
      return objectCheck(f, x, ctx);
    case "unknown":
      // Any value (its rules aside); a required field's `undefined` is refused in fieldCheck.
      return "true";
    default:
      // union, all, never: the schema decides.
      return "false";
  }
}

/** A file of the inputs is one made with `file()`; a file of the outputs is a download reference. */
function fileCheck(ctx: QuickContext): "isFileInput$" | "isFileOutput$" {
  return ctx.side === "input" ? "isFileInput$" : "isFileOutput$";
}

/** The check of an object field: a helper function for declared fields, the JSON check for a free-form one. */
function objectCheck(f: FieldModel, x: string, ctx: QuickContext): string {
  const fields = f.fields ?? [];
  if (
    f.values !== undefined ||
    f.patternValues !== undefined ||
    f.propertyNames !== undefined ||
    fields.some((field) => field.name === "__proto__")
  )
    return "false";
  if (fields.length === 0 && f.additionalProperties !== false)
    return `${use(ctx, "isPlainJsonRecord$")}(${x})`;
  // The outputs' objects are loose: a key the service adds is kept, never a failure.
  const closed = ctx.side === "input" && f.additionalProperties === false;
  return `${objectFunction(fields, closed, ctx)}(${x})`;
}

/**
 * A module-level function checking an object with declared fields: each own key once (so a
 * name inherited from a prototype is never read as a field), every required field counted.
 */
export function objectFunction(
  fields: readonly FieldModel[],
  closed: boolean,
  ctx: QuickContext,
): string {
  const ts = ctx.flavour === "ts";
  return declare(ctx, "quickObject", (name) => {
    const signature = `function ${name}(value${ts ? ": unknown): boolean" : ")"} {`;
    if (fields.length === 0)
      // Closed and empty: no key at all (an open one is a free-form object, see objectCheck).
      return `${signature}\n  return ${use(ctx, "isPlainRecord$")}(value) && Object.keys(value).length === 0;\n}`;
    const required = fields.filter((field) => field.required).length;
    const cases = fields.map((field) => {
      const check = fieldCheck(field, "x", ctx);
      return [
        `      case ${stringLiteral(field.name)}:`,
        `        if (!(${check})) return false;`,
        ...(field.required ? ["        required++;"] : []),
        "        break;",
      ].join("\n");
    });
    const otherKeys = closed
      ? ["      default:", "        return false;"]
      : ['      case "__proto__":', "        return false;", "      default:", "        break;"];
    return [
      signature,
      `  if (!${use(ctx, "isPlainRecord$")}(value)) return false;`,
      "  let required = 0;",
      "  for (const key of Object.keys(value)) {",
      "    const x = value[key];",
      "    switch (key) {",
      ...cases,
      ...otherKeys,
      "    }",
      "  }",
      `  return required === ${required};`,
      "}",
    ].join("\n");
  });
}

/** The check of a value with its nullability and rules. */
function valueCheck(f: FieldModel, x: string, ctx: QuickContext, depth: number): string {
  // Conditions (`not`, `if`, dependencies) are the schema's to check.
  if (ctx.side === "input" && (f.conditions ?? []).length > 0) return "false";
  let check = kindCheck(f, x, ctx, depth);
  if (check === "false") return check;
  // Outputs are read, not policed: their schema checks no constraints, so neither does this.
  const rules = ctx.side === "input" ? rulesLiteral(f) : "";
  if (rules !== "") {
    const constant = declare(ctx, "rules", (name) => `const ${name} = ${rules};`);
    const meets = `${use(ctx, "meetsRules$")}(${constant}, ${x})`;
    check = check === "true" ? meets : `${check} && ${meets}`;
  }
  return f.nullable && f.kind !== "unknown" ? `${x} === null || (${check})` : check;
}

/** The check of an object's field: `undefined` passes where the field is optional, as in the schema. */
function fieldCheck(f: FieldModel, x: string, ctx: QuickContext): string {
  const check = valueCheck(f, x, ctx, 1);
  if (check === "false") return check;
  if (!f.required) return check === "true" ? check : `${x} === undefined || ${check}`;
  // The schema's `z.unknown()` lets `undefined` through; a required field refuses it (fieldSchema).
  if (f.kind === "unknown")
    return check === "true" ? `${x} !== undefined` : `${x} !== undefined && ${check}`;
  return check;
}

/** What writing one module's quick checks produced: helper declarations, the two check names, imports. */
export interface QuickChecks {
  readonly declarations: string[];
  readonly inputs: string;
  readonly outputs: string;
  readonly uses: Set<string>;
}

/**
 * The quick checks of a workflow's inputs (a closed object) and outputs (a loose one), sharing
 * one set of module-level helpers so that their names never collide.
 */
export function quickChecks(
  inputs: readonly FieldModel[],
  outputs: readonly FieldModel[],
  flavour: Flavour,
): QuickChecks {
  const declarations: string[] = [];
  const uses = new Set<string>();
  const top = (fields: readonly FieldModel[], side: Side): string => {
    const ctx: QuickContext = { flavour, side, declarations, uses };
    return fields.some((field) => field.name === "__proto__")
      ? declare(
          ctx,
          "quickObject",
          (n) =>
            `function ${n}(${flavour === "ts" ? "_value: unknown): boolean" : ")"} {\n  return false;\n}`,
        )
      : objectFunction(fields, side === "input", ctx);
  };
  return { declarations, inputs: top(inputs, "input"), outputs: top(outputs, "output"), uses };
}
