// What an `enum` (or `const`) reads as: the JSON type its values share.
import type { EnumValue, FieldModel } from "../model.js";

/** The JSON type shared by enum values: `json` for objects, arrays or a mix of types. */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v === "object" ? "object" : typeof v;
}

/** The kind of the enum values, `json` when they are objects, arrays or of mixed kinds. */
export function enumBase(
  type: unknown,
  values: readonly EnumValue[],
): NonNullable<FieldModel["enumBase"]> {
  const kinds = new Set(
    values.map((v) =>
      typeof v === "string"
        ? "text"
        : typeof v === "boolean"
          ? "boolean"
          : typeof v === "number"
            ? Number.isInteger(v) && type === "integer"
              ? "integer"
              : "number"
            : "json",
    ),
  );
  if (kinds.size !== 1) return "json";
  return [...kinds][0] as NonNullable<FieldModel["enumBase"]>;
}
