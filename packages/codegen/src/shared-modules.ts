// The modules every environment shares (`json`, `support`), as the
// JavaScript consumers load and the declarations their `tsc` reads. The
// generator writes them after the shared header; the generated package's
// strict-options and run-time tests type-check and execute them.

export const JSON_JS = "export {};\n";

export const JSON_DTS = `/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonArray | JsonObject;
/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}
/** A JSON array. */
export type JsonArray = JsonValue[];
`;

export const SUPPORT_DTS = `import type { InputIssue, OutputIssue } from "@wfr/runtime";

/** A deep copy of plain objects without a prototype, so that only own properties are seen. */
export declare function ownProperties(value: unknown): unknown;
/** \`a.b[2].c\`, the way the server names nested fields. */
export declare function formatPath(path: readonly PropertyKey[]): string;
/** Maps schema issues to the server's reason codes: UNKNOWN_INPUT, REQUIRED, INVALID_TYPE. */
export declare function toInputIssues(issues: readonly unknown[], data: unknown): InputIssue[];
/** Maps schema issues of outputs to field paths and messages. */
export declare function toOutputIssues(issues: readonly unknown[]): OutputIssue[];

/** Thrown by an input builder when inputs are not valid; \`issues\` carry the server's reason codes. */
export declare class InvalidInputsError extends Error {
  readonly name: "InvalidInputsError";
  readonly workflowId: string;
  readonly issues: readonly InputIssue[];
  constructor(workflowId: string, issues: readonly InputIssue[]);
}

/** Thrown by an output reader when a result's outputs do not match the definition. */
export declare class InvalidOutputsError extends Error {
  readonly name: "InvalidOutputsError";
  readonly workflowId: string;
  readonly issues: readonly OutputIssue[];
  constructor(workflowId: string, issues: readonly OutputIssue[]);
}
`;

export const SUPPORT_JS = `/**
 * A deep copy of plain objects without a prototype, so that a field named
 * like an Object.prototype member (\`constructor\`, \`toString\`) is seen only
 * when it is really there. Objects with symbol keys (file inputs) and
 * class instances are kept as they are.
 */
export function ownProperties(value) {
  if (Array.isArray(value)) return value.map(ownProperties);
  if (value === null || typeof value !== "object") return value;
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(value).length > 0) return value;
  const out = Object.create(null);
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: ownProperties(value[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** \`a.b[2].c\`, the way the server names nested fields. */
export function formatPath(path) {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += \`[\${segment}]\`;
    else out += out === "" ? String(segment) : \`.\${String(segment)}\`;
  }
  return out;
}

function isPresent(data, path) {
  let node = data;
  for (const segment of path) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, segment)) return false;
    node = node[segment];
  }
  return node !== undefined;
}

/** Maps schema issues to the server's reason codes: UNKNOWN_INPUT, REQUIRED, INVALID_TYPE. */
export function toInputIssues(issues, data) {
  const out = [];
  for (const issue of issues) {
    const path = issue.path ?? [];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys ?? []) {
        out.push({ field: formatPath([...path, key]), reason: "UNKNOWN_INPUT", message: \`Unknown input \${JSON.stringify(key)}\` });
      }
    } else if (path.length > 0 && !isPresent(data, path)) {
      out.push({ field: formatPath(path), reason: "REQUIRED", message: "Required input is missing" });
    } else {
      out.push({ field: formatPath(path), reason: "INVALID_TYPE", message: issue.message ?? "Invalid input" });
    }
  }
  return out;
}

/** Maps schema issues of outputs to field paths and messages. */
export function toOutputIssues(issues) {
  return issues.map((issue) => ({ field: formatPath(issue.path ?? []), message: issue.message ?? "Invalid output" }));
}

/** Thrown by an input builder when inputs are not valid; \`issues\` carry the server's reason codes. */
export class InvalidInputsError extends Error {
  name = "InvalidInputsError";
  constructor(workflowId, issues) {
    super(\`Invalid inputs for \${workflowId}: \${issues.map((i) => \`\${i.field || "(inputs)"} \${i.reason}\`).join(", ")}\`);
    this.workflowId = workflowId;
    this.issues = issues;
  }
}

/** Thrown by an output reader when a result's outputs do not match the definition. */
export class InvalidOutputsError extends Error {
  name = "InvalidOutputsError";
  constructor(workflowId, issues) {
    super(\`Unexpected outputs for \${workflowId}: \${issues.map((i) => \`\${i.field || "(outputs)"}: \${i.message}\`).join("; ")}\`);
    this.workflowId = workflowId;
    this.issues = issues;
  }
}
`;
