// Copied into every generated package as `_shared/value-rules` (see
// support.ts): the value constraints of an input field, checked the way the
// emulator checks them (same order, lengths in code points, the same
// multipleOf tolerance; formats in formats.ts).
import { checkFormat } from "./formats.js";

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
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

/** Each `pattern` compiled once (a non-global RegExp's `test` keeps no state between calls). */
const patterns = new Map<string, RegExp>();

export function patternOf(source: string): RegExp {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    compiled = new RegExp(source, "u");
    patterns.set(source, compiled);
  }
  return compiled;
}

function textProblem(r: ValueRules, v: string): string | undefined {
  const length = [...v].length;
  if (r.maxLength !== undefined && length > r.maxLength)
    return `longer than ${r.maxLength} characters`;
  if (r.minLength !== undefined && length < r.minLength)
    return `shorter than ${r.minLength} characters`;
  if (r.format !== undefined && !checkFormat(r.format, v)) return `not a valid ${r.format}`;
  if (r.pattern !== undefined && !patternOf(r.pattern).test(v))
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

function objectProblem(r: ValueRules, v: object): string | undefined {
  const count = Object.keys(v).length;
  if (r.maxProperties !== undefined && count > r.maxProperties)
    return `more than ${r.maxProperties} properties`;
  if (r.minProperties !== undefined && count < r.minProperties)
    return `fewer than ${r.minProperties} properties`;
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
    const problem = ruleProblem(rules, value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem, input: value });
  };
}

/** The first rule the value breaks, in the server's order, or undefined. */
function ruleProblem(rules: ValueRules, value: unknown): string | undefined {
  return typeof value === "string"
    ? textProblem(rules, value)
    : typeof value === "number"
      ? numberProblem(rules, value)
      : Array.isArray(value)
        ? arrayProblem(rules, value)
        : value !== null && typeof value === "object"
          ? objectProblem(rules, value)
          : undefined;
}

/** Whether the value keeps every rule: the quick check's side of `constraints`, the same checks. */
export function meetsRules(rules: ValueRules, value: unknown): boolean {
  return ruleProblem(rules, value) === undefined;
}
