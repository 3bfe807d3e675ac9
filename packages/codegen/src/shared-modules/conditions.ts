// Copied into every generated package as `_shared/conditions` (see
// support.ts): the rules on a whole input value that no TypeScript type
// expresses: `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`
// (draft 4's `dependencies`) and `contains`, checked as JSON Schema says.

/** The parts of a schema that `conditions` uses. */
interface SafeParser {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
}

interface IssueSink {
  addIssue(issue: { code: "custom"; message: string; input: unknown; path: PropertyKey[] }): void;
}

/** One rule, as the generated schema module writes it. */
export type Condition =
  | { readonly not: SafeParser }
  | {
      readonly ifSchema: SafeParser;
      readonly thenSchema?: SafeParser;
      readonly elseSchema?: SafeParser;
    }
  | { readonly contains: SafeParser; readonly min: number; readonly max?: number }
  | { readonly key: string; readonly names: readonly string[] }
  | { readonly key: string; readonly schema: SafeParser };

/** A refinement reporting every condition the value breaks. */
export function conditions(list: readonly Condition[]): (value: unknown, ctx: IssueSink) => void {
  return (value, ctx) => {
    for (const condition of list) {
      if ("not" in condition) {
        if (condition.not.safeParse(value).success)
          ctx.addIssue({
            code: "custom",
            message: "Invalid input: matches a schema it must not match",
            input: value,
            path: [],
          });
      } else if ("contains" in condition) {
        if (!Array.isArray(value)) continue;
        let count = 0;
        for (const item of value) if (condition.contains.safeParse(item).success) count++;
        if (count < condition.min || (condition.max !== undefined && count > condition.max))
          ctx.addIssue({
            code: "custom",
            message: `Invalid input: ${count} items match the \`contains\` schema, expected ${condition.max === undefined ? `at least ${condition.min}` : `${condition.min} to ${condition.max}`}`,
            input: value,
            path: [],
          });
      } else if ("ifSchema" in condition) {
        const branch = condition.ifSchema.safeParse(value).success
          ? condition.thenSchema
          : condition.elseSchema;
        if (branch !== undefined) forward(ctx, branch, value);
      } else if (
        value !== null &&
        typeof value === "object" &&
        !Array.isArray(value) &&
        Object.hasOwn(value, condition.key)
      ) {
        if ("names" in condition) {
          for (const name of condition.names)
            if (!Object.hasOwn(value, name))
              ctx.addIssue({
                code: "custom",
                message: `Required input is missing (${JSON.stringify(condition.key)} is there)`,
                input: undefined,
                path: [name],
              });
        } else forward(ctx, condition.schema, value);
      }
    }
  };
}

/** The issues of `schema` on the value, reported at their own paths. */
function forward(ctx: IssueSink, schema: SafeParser, value: unknown): void {
  for (const issue of schema.safeParse(value).error?.issues ?? [])
    ctx.addIssue({ code: "custom", message: issue.message, input: value, path: [...issue.path] });
}

/** An issue as a schema reports it, forwarded as it is (its code decides the reason). */
interface ForwardedIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

interface SchemaWithIssues {
  safeParse(value: unknown): { success: boolean; error?: { issues: readonly ForwardedIssue[] } };
}

/**
 * A refinement that holds when every part does, each checked on its own
 * (JSON Schema's `allOf`): an intersection schema reports a key a closed
 * part does not know only when every part refuses it, so an `allOf` with a
 * closed part cannot be one. The issues come as each part reports them.
 */
export function everyPart(
  parts: readonly SchemaWithIssues[],
): (value: unknown, ctx: { addIssue(issue: never): void }) => void {
  return (value, ctx) => {
    for (const part of parts)
      for (const issue of part.safeParse(value).error?.issues ?? [])
        (ctx.addIssue as (issue: ForwardedIssue) => void)({ ...issue, path: [...issue.path] });
  };
}
