// Copied into every generated package as `_shared/plain-data` (see
// support.ts): the quick checks' view of a value as plain data, and the
// copy without prototypes every input check starts from.

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
 * How deep a value handed to a generated schema may nest. The schemas nest no
 * deeper than their definition (docs/definition-format.md#schema-nesting), but
 * a free-form JSON value (`json`, a free-form object, `{}`) is read to its
 * own depth, one stack frame per level or more: a deeper value is refused
 * with an issue before any schema reads it, never a stack overflow.
 */
export const MAX_VALUE_NESTING = 1000;

/** Whether arrays and objects nest deeper than `limit` in the value (walked with its own stack, not recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    if (depth >= limit) return true;
    seen.add(node);
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * What every generated schema reads first (`z.pipe(z.transform(...), schema)`): the value as
 * `ownProperties` copies it, or, when it nests deeper than MAX_VALUE_NESTING, an issue that
 * stops the schema there. The transform is handed the parse payload itself (no `addIssue` in
 * the mini flavour): the issue goes on its list, which stops the pipe.
 */
export function ownPropertiesWithinNesting(
  value: unknown,
  payload: {
    readonly issues: { push(issue: { code: "custom"; message: string; input: unknown }): number };
  },
): unknown {
  if (!nestsDeeperThan(value, MAX_VALUE_NESTING)) return ownProperties(value);
  payload.issues.push({
    code: "custom",
    message: `Invalid input: nested more than ${MAX_VALUE_NESTING} levels deep`,
    input: value,
  });
  return value;
}
