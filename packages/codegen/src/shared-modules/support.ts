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

/**
 * A plain data object: `Object.prototype` or no prototype, and no symbol keys, so exactly the
 * objects `ownProperties` copies (and a file input, which has a symbol key, is not one).
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

/** An optional member of a file output: absent, or present with a value `valid` accepts (never `undefined`). */
function optionalMember(
  value: Record<string, unknown>,
  key: string,
  valid: (member: unknown) => boolean,
): boolean {
  return Object.hasOwn(value, key) ? valid(value[key]) : value[key] === undefined;
}

/**
 * A file output's download reference as plain data, which the outputs' `fileOutput` schema
 * accepts: `download_url` and `filename` text, `mime_type` text, `size_bytes` a finite number and
 * `expires_at` text or null where present, other keys kept. False is "not sure": the schema decides.
 */
export function isFileOutput(value: unknown): boolean {
  return (
    isPlainRecord(value) &&
    !Object.hasOwn(value, "__proto__") &&
    typeof value.download_url === "string" &&
    Object.hasOwn(value, "download_url") &&
    typeof value.filename === "string" &&
    Object.hasOwn(value, "filename") &&
    optionalMember(value, "mime_type", (m) => typeof m === "string") &&
    optionalMember(value, "size_bytes", (m) => typeof m === "number" && Number.isFinite(m)) &&
    optionalMember(value, "expires_at", (m) => m === null || typeof m === "string")
  );
}

/** Whether every element of an array passes `check`, holes included (as `undefined`). */
export function allItems(value: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
  return true;
}

/**
 * Nesting past which the quick JSON check stops answering and leaves the value to the schema
 * (which then decides, as it always did: a cycle or a very deep value is its to report).
 */
const PLAIN_JSON_DEPTH = 64;

/**
 * Whether a value is JSON made of plain data (strings, finite numbers, booleans, null, arrays
 * and plain records), which `z.json()` accepts. False is "not sure": the schema decides.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= PLAIN_JSON_DEPTH) return false;
  if (Array.isArray(value)) return allItems(value, (item) => isPlainJson(item, depth + 1));
  return isJsonRecord(value, depth);
}

function isJsonRecord(value: unknown, depth: number): boolean {
  if (!isPlainRecord(value)) return false;
  for (const key of Object.keys(value))
    if (key === "__proto__" || !isPlainJson(value[key], depth + 1)) return false;
  return true;
}

/** The quick check of a free-form JSON object (`z.record(z.string(), z.json())`); false is "not sure". */
export function isPlainJsonRecord(value: unknown): boolean {
  return isJsonRecord(value, 0);
}

/** The quick check of a `json` input (a JSON object or array); false is "not sure". */
export function isPlainJsonObjectOrArray(value: unknown): boolean {
  return value !== null && typeof value === "object" && isPlainJson(value, 0);
}

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

// The value constraints, checked the way the emulator checks them (same
// order, lengths in code points, the same multipleOf tolerance). The
// asserted formats (date, date-time, email, uri; RFC 3339 / 5321 / 3986)
// are the emulator's own checks (its src/formats.ts), line for line: the
// JSON-Schema-Test-Suite judges both, and codegen's differential test holds
// them together. Every other `format` is an annotation.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

// RFC 5321 mailbox: a dot-atom or quoted local part; a host name or an address literal.
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = `(?:${ATOM}(?:\\.${ATOM})*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*")`;
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const EMAIL = new RegExp(
  `^${LOCAL}@(?:(${LABEL}(?:\\.${LABEL})*)|\\[(?:IPv6:([^\\]]*)|([0-9.]+))\\])$`,
);

// RFC 3986 absolute URI.
const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const PCHAR = `(?:[${UNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const URI = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.-]*:(?://((?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*@)?(\\[[^\\]]*\\]|(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*)(?::\\d*)?(?:/${PCHAR}*)*|/(?:${PCHAR}+(?:/${PCHAR}*)*)?|${PCHAR}+(?:/${PCHAR}*)*|)(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?$`,
);

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** A calendar date (any year 0000-9999: no Date arithmetic, which maps 0-99 to 19xx). */
function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][
    m - 1
  ] as number;
  return d <= days;
}

function validDateTime(v: string): boolean {
  const m = DATE_TIME.exec(v);
  if (m === null || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
  const [offsetHour, offsetMinute] = [Number(m[8] ?? 0), Number(m[9] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  // A leap second is the last second of a UTC day: 23:59:60 once the offset is taken off.
  const sign = m[7] === "-" ? -1 : 1;
  const utcMinutes = (hour * 60 + minute - sign * (offsetHour * 60 + offsetMinute) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

function validIpv4(v: string): boolean {
  const parts = v.split(".");
  return (
    parts.length === 4 && parts.every((p) => /^(?:0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
  );
}

function validIpv6(v: string): boolean {
  let text = v;
  let groups = 8;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    if (!validIpv4(text.slice(lastColon + 1))) return false;
    text = `${text.slice(0, lastColon + 1)}0`;
    groups = 7;
  }
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const hex = (part: string) => (part === "" ? [] : part.split(":"));
  const head = hex(halves[0] as string);
  const tail = halves.length === 2 ? hex(halves[1] as string) : [];
  const all = [...head, ...tail];
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  if (groups === 7) all.pop();
  return halves.length === 2 ? all.length < groups : all.length === groups;
}

function validEmail(v: string): boolean {
  const m = EMAIL.exec(v);
  if (m === null) return false;
  if (m[2] !== undefined) return validIpv6(m[2]);
  if (m[3] !== undefined) return validIpv4(m[3]);
  return true;
}

function validUri(v: string): boolean {
  const m = URI.exec(v);
  if (m === null) return false;
  const host = m[2];
  if (host?.startsWith("[")) {
    const literal = host.slice(1, -1);
    return /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/.test(literal) || validIpv6(literal);
  }
  return true;
}

/** The formats asserted; any other `format` is an annotation and accepts every string. */
const ASSERTED_FORMATS = {
  date: (v: string) => {
    const m = DATE.exec(v);
    return m !== null && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  "date-time": validDateTime,
  email: validEmail,
  uri: validUri,
} as const satisfies Record<string, (v: string) => boolean>;

function checkFormat(format: string, v: string): boolean {
  if (!Object.hasOwn(ASSERTED_FORMATS, format)) return true;
  return (ASSERTED_FORMATS as Record<string, (v: string) => boolean>)[format]?.(v) === true;
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
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

/** Each `pattern` compiled once (a non-global RegExp's `test` keeps no state between calls). */
const patterns = new Map<string, RegExp>();

function patternOf(source: string): RegExp {
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
