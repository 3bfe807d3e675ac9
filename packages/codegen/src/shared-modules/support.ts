// Copied into every generated package as `_shared/support` (compiled: `.js`
// and `.d.ts`, see emit/shared-modules.ts): what the generated schema and
// definition modules share: here the issue mapping and the errors, and,
// re-exported, the plain-data checks, the `__proto__` key check, the key
// checks of patternProperties / propertyNames, the conditions (not, if/then/else,
// dependentRequired, dependentSchemas) and the value rules (each its own `_shared/` module). They import only @wfr/runtime and
// each other: the generated package depends on @wfr/runtime and zod, nothing
// else. Its errors extend the runtime's, so everything a wfr package throws is
// a WorkflowRunApiError.
import {
  CODE,
  INPUT_REASON,
  type InputIssue,
  InputValidationError,
  type OutputIssue,
  WorkflowRunApiError,
} from "@wfr/runtime";

export { type Condition, conditions, everyPart } from "./conditions.js";
export { type KeyRules, objectKeys } from "./object-keys.js";
export {
  allItems,
  isFileOutput,
  isPlainJsonObjectOrArray,
  isPlainJsonRecord,
  isPlainRecord,
  ownProperties,
  ownPropertiesWithinNesting,
} from "./plain-data.js";
export { protoKey, withoutProtoKey } from "./proto-key.js";
export { constraints, isOneOf, meetsRules, type ValueRules } from "./value-rules.js";

/**
 * The environment's base URL at run time: `WFR_<ENV>_BASE_URL` where the process has it (an
 * emulator on another port, a proxy), else the URL the definition states. Without `process`
 * (a browser bundle) the definition's. Called when a client is created, never at import, so
 * that importing generated code needs no permission: Deno without `--allow-env` refuses the
 * read (`NotCapable`), and a refusal means "not set".
 */
export function runTimeBaseUrl(variable: string, fromDefinition: string): string {
  let value: string | undefined;
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env;
    value = env?.[variable]?.trim();
  } catch {
    value = undefined;
  }
  return value ? value : fromDefinition;
}

/** `a.b[2].c`, the way the server names nested fields. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

function isPresent(data: unknown, path: readonly PropertyKey[]): boolean {
  let node = data;
  for (const segment of path) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, segment)) return false;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node !== undefined;
}

/** The parts of a zod issue these mappers read. */
interface SchemaIssue {
  readonly code?: string;
  readonly path?: readonly PropertyKey[];
  readonly keys?: readonly string[];
  readonly message?: string;
}

/** Maps schema issues to the server's reason codes: UNKNOWN_INPUT, REQUIRED, INVALID_TYPE. */
export function toInputIssues(issues: readonly unknown[], data: unknown): InputIssue[] {
  const out: InputIssue[] = [];
  for (const issue of issues as readonly SchemaIssue[]) {
    const path = issue.path ?? [];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys ?? []) {
        out.push({
          field: formatPath([...path, key]),
          reason: INPUT_REASON.UNKNOWN_INPUT,
          message: `Unknown input ${JSON.stringify(key)}`,
        });
      }
    } else if (path.length > 0 && !isPresent(data, path)) {
      out.push({
        field: formatPath(path),
        reason: INPUT_REASON.REQUIRED,
        message: "Required input is missing",
      });
    } else {
      out.push({
        field: formatPath(path),
        reason: INPUT_REASON.INVALID_TYPE,
        message: issue.message ?? "Invalid input",
      });
    }
  }
  return out;
}

/** Maps schema issues of outputs to field paths and messages. */
export function toOutputIssues(issues: readonly unknown[]): OutputIssue[] {
  return (issues as readonly SchemaIssue[]).map((issue) => ({
    field: formatPath(issue.path ?? []),
    message: issue.message ?? "Invalid output",
  }));
}

/**
 * Thrown by an input builder when inputs are not valid; `issues` carry the server's reason codes.
 * The runtime's InputValidationError (an InvalidInputsError, code INVALID_INPUTS, status null),
 * so one `catch` handles a builder's refusal and the runtime's alike.
 */
export class InvalidInputsError extends InputValidationError {
  override name = "InvalidInputsError";
  readonly workflowId: string;
  readonly issues: readonly InputIssue[];
  constructor(workflowId: string, issues: readonly InputIssue[]) {
    super(issues, workflowId);
    this.workflowId = workflowId;
    this.issues = issues;
  }
}

/** Thrown by an output reader when a result's outputs do not match the definition (code INVALID_OUTPUTS). */
export class InvalidOutputsError extends WorkflowRunApiError {
  override name = "InvalidOutputsError";
  readonly workflowId: string;
  readonly issues: readonly OutputIssue[];
  constructor(workflowId: string, issues: readonly OutputIssue[]) {
    super({
      status: null,
      code: CODE.INVALID_OUTPUTS,
      message: `Unexpected outputs for ${workflowId}: ${issues.map((i) => `${i.field || "(outputs)"}: ${i.message}`).join("; ")}`,
    });
    this.workflowId = workflowId;
    this.issues = issues;
  }
}
