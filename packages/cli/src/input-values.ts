// docs/service-rules.md#input-validation: values must have the declared JSON type; no
// automatic conversion. `--input key=value` is parsed by the field's kind.
import type { FieldModel, WorkflowModel } from "./adapters/codegen.js";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { printable } from "./printable.js";

// Errors name where the value came from: `--input amount` here, a row and
// column in a batch file.
function fail(label: string, message: string): never {
  throw new CliError(`${label}: ${message}`, EXIT.INVALID_INPUT);
}

function parseJson(label: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return fail(label, `not valid JSON: ${JSON.stringify(raw)}`);
  }
}

/** Parses `raw` by the field's declared kind; `label` names the value's origin in errors. */
export function parseFieldValue(
  field: FieldModel,
  raw: string,
  label = `--input ${field.name}`,
): unknown {
  const name = label;
  const kind = field.kind === "enum" ? (field.enumBase ?? "text") : field.kind;
  let value: unknown;
  switch (kind) {
    case "text":
      value = raw;
      break;
    case "number":
    case "integer": {
      const n = raw.trim() === "" ? Number.NaN : Number(raw);
      if (!Number.isFinite(n))
        fail(name, `${JSON.stringify(raw)} is not a number (declared Number)`);
      if (kind === "integer" && !Number.isInteger(n)) fail(name, `${raw} is not an integer`);
      value = n;
      break;
    }
    case "boolean":
      if (raw !== "true" && raw !== "false")
        fail(name, `${JSON.stringify(raw)} is not true or false (declared Boolean)`);
      value = raw === "true";
      break;
    case "json":
    case "object":
    case "array": {
      value = parseJson(name, raw);
      if (typeof value !== "object" || value === null)
        fail(name, "must be a JSON object or array (declared JSON)");
      if (kind === "object" && Array.isArray(value)) fail(name, "must be a JSON object");
      if (kind === "array" && !Array.isArray(value)) fail(name, "must be a JSON array");
      break;
    }
    case "file":
    case "files":
      return fail(name, "is a file field: use --file name=path");
    default:
      value = parseJson(name, raw);
  }
  if (
    field.kind === "enum" &&
    field.enumValues &&
    !field.enumValues.includes(value as string | number)
  )
    fail(name, `must be one of ${field.enumValues.map((v) => JSON.stringify(v)).join(", ")}`);
  return value;
}

export function splitAssignment(flag: string, assignment: string): [string, string] {
  const eq = assignment.indexOf("=");
  if (eq <= 0)
    throw new CliError(`${flag} ${JSON.stringify(assignment)}: expected name=value`, EXIT.USAGE);
  return [assignment.slice(0, eq), assignment.slice(eq + 1)];
}

export function fieldOf(workflow: WorkflowModel, name: string, flag: string): FieldModel {
  const field = workflow.inputs.find((f) => f.name === name);
  if (!field)
    throw new CliError(
      `${flag} ${printable(name)}: ${printable(workflow.name)} has no input ${JSON.stringify(name)} (inputs: ${workflow.inputs.map((f) => printable(f.name)).join(", ")})`,
      EXIT.INVALID_INPUT,
    );
  return field;
}

/** By generated identifier, display name or id (in that order). */
export function findWorkflow(workflows: readonly WorkflowModel[], ref: string): WorkflowModel {
  const found =
    workflows.find((w) => w.identifier === ref) ??
    workflows.find((w) => w.id === ref) ??
    workflows.filter((w) => w.name === ref).at(0);
  if (!found)
    throw new CliError(
      `no workflow ${JSON.stringify(ref)} (known: ${workflows.map((w) => w.identifier).join(", ")})`,
      EXIT.NOT_FOUND,
    );
  return found;
}
