import type { FieldModel } from "../model.js";

/** A compact, JSON-friendly summary of a field for `before` / `after`. */
export function describeField(field: FieldModel): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: field.kind, required: field.required };
  if (field.nullable) out.nullable = true;
  if (field.hasDefault) out.default = field.default;
  if (field.format !== undefined) out.format = field.format;
  if (field.enumValues !== undefined) out.enum = [...field.enumValues];
  for (const key of CONSTRAINT_KEYS) if (field[key] !== undefined) out[key] = field[key];
  if (field.items !== undefined) out.items = describeField(field.items);
  if (field.variants !== undefined) out.variants = field.variants.map(describeField);
  if (field.exclusive === true) out.exclusive = true;
  if (field.values !== undefined) out.values = describeField(field.values);
  if (field.fields !== undefined) {
    const props: Record<string, unknown> = {};
    for (const f of field.fields) defineKey(props, f.name, describeField(f));
    out.fields = props;
  }
  return out;
}

/** The value constraints `describeField` lists. */
const CONSTRAINT_KEYS = [
  "maxLength",
  "minLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
] as const satisfies readonly (keyof FieldModel)[];

/** Sets an own key, safe for `__proto__` and friends. */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
