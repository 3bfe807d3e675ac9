// The value constraints of a field (lengths, pattern, bounds, item and
// property counts), checked as the model keeps them.
import type { FieldKind, FieldModel } from "../model.js";

/**
 * The value constraints of one field, for the kinds they apply to (the
 * emulator checks string rules on strings, number rules on numbers, item
 * rules on arrays). OpenAPI 3.0's boolean `exclusiveMinimum: true` next to
 * `minimum` becomes the numeric 3.1 form, so the model has one reading.
 */
export function valueConstraints(
  s: Record<string, unknown>,
  kind: FieldKind,
  fail: (message: string) => never,
): Partial<FieldModel> {
  const out: Record<string, unknown> = {};
  const count = (key: string): number | undefined => {
    const v = s[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
      fail(`\`${key}\` must be a non-negative integer, got ${JSON.stringify(v)}`);
    return v;
  };
  const number = (key: string): number | undefined => {
    const v = s[key];
    if (v === undefined || typeof v === "boolean") return undefined;
    if (typeof v !== "number" || !Number.isFinite(v))
      fail(`\`${key}\` must be a number, got ${JSON.stringify(v)}`);
    return v;
  };
  if (kind === "text" || kind === "enum") {
    const maxLength = count("maxLength");
    const minLength = count("minLength");
    if (maxLength !== undefined) out.maxLength = maxLength;
    if (minLength !== undefined) out.minLength = minLength;
    if (s.pattern !== undefined) {
      if (typeof s.pattern !== "string") fail("`pattern` must be a string");
      out.pattern = checkedPattern(s.pattern, "`pattern`", fail);
    }
  }
  if (kind === "number" || kind === "integer" || kind === "enum") {
    let minimum = number("minimum");
    let maximum = number("maximum");
    let exclusiveMinimum = number("exclusiveMinimum");
    let exclusiveMaximum = number("exclusiveMaximum");
    if (s.exclusiveMinimum === true && minimum !== undefined) {
      exclusiveMinimum = minimum;
      minimum = undefined;
    }
    if (s.exclusiveMaximum === true && maximum !== undefined) {
      exclusiveMaximum = maximum;
      maximum = undefined;
    }
    const multipleOf = number("multipleOf");
    if (multipleOf !== undefined && multipleOf <= 0)
      fail(`\`multipleOf\` must be greater than 0, got ${multipleOf}`);
    if (minimum !== undefined) out.minimum = minimum;
    if (maximum !== undefined) out.maximum = maximum;
    if (exclusiveMinimum !== undefined) out.exclusiveMinimum = exclusiveMinimum;
    if (exclusiveMaximum !== undefined) out.exclusiveMaximum = exclusiveMaximum;
    if (multipleOf !== undefined) out.multipleOf = multipleOf;
  }
  if (kind === "array" || kind === "files") {
    const minItems = count("minItems");
    const maxItems = count("maxItems");
    if (minItems !== undefined) out.minItems = minItems;
    if (maxItems !== undefined) out.maxItems = maxItems;
    if (s.uniqueItems === true) out.uniqueItems = true;
  }
  if (kind === "object") {
    const minProperties = count("minProperties");
    const maxProperties = count("maxProperties");
    if (minProperties !== undefined) out.minProperties = minProperties;
    if (maxProperties !== undefined) out.maxProperties = maxProperties;
  }
  return out as Partial<FieldModel>;
}

/** A regular expression of the definition (`pattern`, a `patternProperties` key), compiled as the validators compile it. */
export function checkedPattern(
  source: string,
  what: string,
  fail: (message: string) => never,
): string {
  try {
    new RegExp(source, "u");
  } catch (error) {
    fail(`${what} is not a valid regular expression: ${(error as Error).message}`);
  }
  return source;
}
