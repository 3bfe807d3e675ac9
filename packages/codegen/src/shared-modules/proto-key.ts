// Copied into every generated package as `_shared/proto-key` (see
// support.ts): the `__proto__` key of an input object, which zod's object
// shapes cannot hold, checked on its own.
import { isPlainRecord } from "./plain-data.js";

/** The parts of a schema and of its refinement context that `protoKey` uses. */
interface SafeParser {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}
interface IssueSink {
  addIssue(
    issue:
      | { code: "custom"; message: string; input: unknown; path: PropertyKey[] }
      | {
          code: "unrecognized_keys";
          message: string;
          input: Record<string, unknown>;
          keys: string[];
        },
  ): void;
}

/**
 * The check of an object's `__proto__` key, which the generated object shapes skip
 * (even a strict object's unknown-key check): against `schema` when the
 * object declares such a field (or a schema for every other key), as an
 * unknown key when it is closed. `required`: the field must be there.
 */
export function protoKey(
  schema: SafeParser | undefined,
  required: boolean,
): (value: unknown, ctx: IssueSink) => void {
  return (value, ctx) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return;
    if (!Object.hasOwn(value, "__proto__")) {
      if (required)
        ctx.addIssue({
          code: "custom",
          message: "Required input is missing",
          input: undefined,
          path: ["__proto__"],
        });
      return;
    }
    const field = Object.getOwnPropertyDescriptor(value, "__proto__")?.value;
    if (schema === undefined) {
      ctx.addIssue({
        code: "unrecognized_keys",
        message: 'Unrecognized key: "__proto__"',
        input: value as Record<string, unknown>,
        keys: ["__proto__"],
      });
      return;
    }
    const result = schema.safeParse(field);
    for (const issue of result.error?.issues ?? [])
      ctx.addIssue({
        code: "custom",
        message: issue.message,
        input: field,
        path: ["__proto__", ...issue.path],
      });
  };
}

/**
 * A closed object's value without its own `__proto__` key, for the strict
 * unknown-key check of an object that declares such a field (`protoKey`
 * checks that field; the strict object schema would report the key as unknown).
 */
export function withoutProtoKey(value: unknown): unknown {
  if (!isPlainRecord(value) || !Object.hasOwn(value, "__proto__")) return value;
  const out = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>;
  for (const key of Object.keys(value)) if (key !== "__proto__") out[key] = value[key];
  return out;
}
