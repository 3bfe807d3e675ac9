// Copied into every generated package as `_shared/support` (compiled: `.js`
// and `.d.ts`, see emit/shared-modules.ts): what the generated schema and
// definition modules share. It imports only @wfr/runtime: the generated
// package depends on @wfr/runtime and zod, nothing else. Its errors extend the
// runtime's, so everything a wfr package throws is a WorkflowRunApiError.
import {
  CODE,
  INPUT_REASON,
  type InputIssue,
  InputValidationError,
  type OutputIssue,
  WorkflowRunApiError,
} from "@wfr/runtime";

/**
 * A deep copy of plain objects without a prototype, so that a field named
 * like an Object.prototype member (`constructor`, `toString`) is seen only
 * when it is really there. Objects with symbol keys (file inputs) and
 * class instances are kept as they are.
 */
export function ownProperties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownProperties);
  if (value === null || typeof value !== "object") return value;
  const proto = Object.getPrototypeOf(value);
  if (
    (proto !== Object.prototype && proto !== null) ||
    Object.getOwnPropertySymbols(value).length > 0
  )
    return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: ownProperties((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
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

// The value constraints, checked the way the emulator's validate-inputs.ts
// checks them (same order, lengths in code points, same formats, the same
// multipleOf tolerance); codegen's differential test holds the two together.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

function checkFormat(format: string, v: string): boolean {
  switch (format) {
    case "date": {
      const m = DATE.exec(v);
      return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case "date-time": {
      const m = DATE_TIME.exec(v);
      return (
        m !== null &&
        validDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
        Number(m[4]) < 24 &&
        Number(m[5]) < 60 &&
        Number(m[6]) < 61
      );
    }
    case "email":
      return EMAIL.test(v);
    case "uri":
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(v)) return false;
      try {
        new URL(v);
        return true;
      } catch {
        return false;
      }
    default:
      return true;
  }
}

function isMultipleOf(v: number, m: number): boolean {
  const q = v / m;
  return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

/** Whether two JSON values are equal (object key order ignored). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  return keys.every((k) => Object.hasOwn(rb, k) && sameJson(ra[k], rb[k]));
}

/** A predicate for an `enum` / `const` that lists objects or arrays: equal as JSON to one of the values. */
export function isOneOf(values: readonly unknown[]): (value: unknown) => boolean {
  return (value) => values.some((allowed) => sameJson(value, allowed));
}

/** The value constraints of one input field, as the definition declares them. */
export interface ValueRules {
  /** A whole number (of any size, as the server accepts). */
  readonly integer?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: string;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}

function textProblem(r: ValueRules, v: string): string | undefined {
  const length = [...v].length;
  if (r.maxLength !== undefined && length > r.maxLength)
    return `longer than ${r.maxLength} characters`;
  if (r.minLength !== undefined && length < r.minLength)
    return `shorter than ${r.minLength} characters`;
  if (r.format !== undefined && !checkFormat(r.format, v)) return `not a valid ${r.format}`;
  if (r.pattern !== undefined && !new RegExp(r.pattern, "u").test(v))
    return `does not match ${r.pattern}`;
  return undefined;
}

function numberProblem(r: ValueRules, v: number): string | undefined {
  if (r.integer === true && !Number.isInteger(v)) return "expected integer, got number";
  if (r.minimum !== undefined && v < r.minimum) return `less than ${r.minimum}`;
  if (r.maximum !== undefined && v > r.maximum) return `greater than ${r.maximum}`;
  if (r.exclusiveMinimum !== undefined && v <= r.exclusiveMinimum)
    return `not greater than ${r.exclusiveMinimum}`;
  if (r.exclusiveMaximum !== undefined && v >= r.exclusiveMaximum)
    return `not less than ${r.exclusiveMaximum}`;
  if (r.multipleOf !== undefined && !isMultipleOf(v, r.multipleOf))
    return `not a multiple of ${r.multipleOf}`;
  return undefined;
}

function arrayProblem(r: ValueRules, v: readonly unknown[]): string | undefined {
  if (r.maxItems !== undefined && v.length > r.maxItems) return `more than ${r.maxItems} items`;
  if (r.minItems !== undefined && v.length < r.minItems) return `fewer than ${r.minItems} items`;
  if (r.uniqueItems === true && v.some((a, i) => v.slice(0, i).some((b) => sameJson(a, b))))
    return "items are not unique";
  return undefined;
}

/** A schema refinement reporting the first broken rule, in the server's order and with its message. */
export function constraints(
  rules: ValueRules,
): (
  value: unknown,
  ctx: { addIssue(issue: { code: "custom"; message: string; input: unknown }): void },
) => void {
  return (value, ctx) => {
    const problem =
      typeof value === "string"
        ? textProblem(rules, value)
        : typeof value === "number"
          ? numberProblem(rules, value)
          : Array.isArray(value)
            ? arrayProblem(rules, value)
            : undefined;
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, input: value });
  };
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
