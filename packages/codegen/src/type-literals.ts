// Small pieces of generated TypeScript and zod text that depend on no field
// kind: array types, arrays whose length rules come before their items, and
// JSON values as literal types.
import { jsonLiteral, propertyKey } from "./escape.js";
import { isPrimitive } from "./field-rules.js";

export function arrayOf(element: string): string {
  return /^[\w$.]+$/u.test(element) ? `readonly ${element}[]` : `ReadonlyArray<${element}>`;
}

/**
 * An array whose length rules are checked before its items, as the emulator
 * does (a too-long list of bad items is reported once, at the list).
 */
export function itemsChecked(item: string, rules: string): string {
  return rules === ""
    ? `z.array(${item})`
    : `z.pipe(z.array(z.unknown())${rules}, z.array(${item}))`;
}

/** A JSON value as a TypeScript type: literals, readonly tuples and object types. */
export function literalType(value: unknown): string {
  if (value === null || isPrimitive(value)) return jsonLiteral(value);
  if (Array.isArray(value)) return `readonly [${value.map(literalType).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([k, v]) => `readonly ${propertyKey(k, "type")}: ${literalType(v)}`).join("; ")} }`;
}
