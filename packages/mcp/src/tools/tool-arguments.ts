// The one place a tool call's arguments are checked. The SDK's own check answers
// `MCP error -32602: Input validation error: ...`, which is not the documented `CODE: message` +
// `Next:` format of every tool error (README "Tools"); so tools.ts routes every tools/call here
// first, and a refusal is an INVALID_ARGUMENTS error naming each argument at fault.
import { CODE } from "@wfr/protocol";
import type { z } from "zod";
import { BackendError } from "../backend.js";

/** At most this many problems are listed: a hostile call with thousands of bad fields gets a short answer. */
const LISTED_PROBLEMS = 5;
/** A path segment (an argument or a record key an agent chose) is shown at most this long. */
const SEGMENT_MAX_CHARS = 64;

/** `inputs.name`, `files.doc[0]`; a key that is long or not plain is quoted and cut. */
function argumentPath(path: readonly PropertyKey[]): string {
  let shown = "";
  for (const segment of path) {
    if (typeof segment === "number") shown += `[${segment}]`;
    else {
      const text = String(segment);
      const plain = /^[A-Za-z0-9_-]{1,64}$/.test(text);
      const part = plain
        ? text
        : JSON.stringify(
            text.length > SEGMENT_MAX_CHARS ? `${text.slice(0, SEGMENT_MAX_CHARS)}…` : text,
          );
      shown += shown === "" ? part : `.${part}`;
    }
  }
  return shown === "" ? "arguments" : shown;
}

/** The arguments as the tool's schema reads them, or a BackendError naming what is wrong. */
export async function checkedArguments<T>(schema: z.ZodType<T>, given: unknown): Promise<T> {
  const parsed = await schema.safeParseAsync(given ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const listed = issues
    .slice(0, LISTED_PROBLEMS)
    .map((issue) => `${argumentPath(issue.path)}: ${issue.message}`);
  const more =
    issues.length > LISTED_PROBLEMS ? ` (and ${issues.length - LISTED_PROBLEMS} more)` : "";
  throw new BackendError(CODE.INVALID_ARGUMENTS, `${listed.join("; ")}${more}`);
}

/** A call of a tool this server does not have. */
export function unknownTool(name: string): BackendError {
  const shown = name.length > SEGMENT_MAX_CHARS ? `${name.slice(0, SEGMENT_MAX_CHARS)}…` : name;
  return new BackendError(CODE.INVALID_ARGUMENTS, `no tool is named ${JSON.stringify(shown)}`);
}
