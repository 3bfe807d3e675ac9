// Copied into every generated package as `_shared/object-keys` (see
// support.ts): the keys of an object checked one by one, for what a zod
// shape cannot say: `patternProperties` (every key a pattern matches, declared
// or not), `additionalProperties` beside them (the keys no pattern matches
// and no field declares) and `propertyNames` (every key itself).
import { patternOf } from "./value-rules.js";

/** The parts of a schema that `objectKeys` uses. */
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

/** What `objectKeys` checks, as the definition declares it. */
export interface KeyRules {
  /** The declared field names (`properties`). */
  readonly declared: readonly string[];
  /** `patternProperties`: each pattern (ECMA-262, `u` flag) with the schema of the values it matches. */
  readonly patterns?: readonly (readonly [string, SafeParser])[];
  /** The schema of a key neither declared nor matched; `false`: such a key is unknown. */
  readonly additional?: SafeParser | false;
  /** `propertyNames`: the schema every key must match. */
  readonly names?: SafeParser;
}

/** A refinement checking each own key of an object (anything else is left to the object schema). */
export function objectKeys(rules: KeyRules): (value: unknown, ctx: IssueSink) => void {
  return (value, ctx) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    const unknown: string[] = [];
    for (const key of Object.keys(record)) {
      const member = Object.getOwnPropertyDescriptor(record, key)?.value;
      if (rules.names !== undefined)
        for (const issue of rules.names.safeParse(key).error?.issues ?? [])
          ctx.addIssue({
            code: "custom",
            message: `Invalid key: ${issue.message}`,
            input: key,
            path: [key],
          });
      let matched = false;
      for (const [pattern, schema] of rules.patterns ?? []) {
        if (!patternOf(pattern).test(key)) continue;
        matched = true;
        report(ctx, schema, member, key);
      }
      if (matched || rules.declared.includes(key) || rules.additional === undefined) continue;
      if (rules.additional === false) unknown.push(key);
      else report(ctx, rules.additional, member, key);
    }
    if (unknown.length > 0)
      ctx.addIssue({
        code: "unrecognized_keys",
        message: `Unrecognized keys: ${unknown.map((k) => JSON.stringify(k)).join(", ")}`,
        input: record,
        keys: unknown,
      });
  };
}

function report(ctx: IssueSink, schema: SafeParser, member: unknown, key: string): void {
  for (const issue of schema.safeParse(member).error?.issues ?? [])
    ctx.addIssue({
      code: "custom",
      message: issue.message,
      input: member,
      path: [key, ...issue.path],
    });
}
