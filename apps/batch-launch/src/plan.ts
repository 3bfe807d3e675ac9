// Maps every row to the workflow's inputs by the fields' declared types (the
// same definition the generated types come from), before anything is sent: a
// cell that does not fit is reported with its row and column.
import { CliError, type FieldModel, parseFieldValue, type WorkflowModel } from "@wfr/cli";
import type { Row } from "./rows.js";

/** Columns that are not inputs: the row's own id, used in the intent id. */
const ID_COLUMN = "id";

export interface PlannedRow {
  readonly row: number;
  /** The caller's own key for the row: its `id` column, or its row number. */
  readonly key: string;
  readonly inputs: Record<string, unknown>;
}

function jsonKindFits(field: FieldModel, value: unknown): boolean {
  const kind = field.kind === "enum" ? (field.enumBase ?? "text") : field.kind;
  switch (kind) {
    case "text":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "json":
      return typeof value === "object" && value !== null;
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    default:
      return true;
  }
}

export function planRows(
  workflow: WorkflowModel,
  rows: readonly Row[],
): { planned: PlannedRow[]; errors: string[] } {
  const fields = new Map(workflow.inputs.map((field) => [field.name, field]));
  const planned: PlannedRow[] = [];
  const errors: string[] = [];
  const keys = new Set<string>();
  for (const row of rows) {
    const inputs: Record<string, unknown> = {};
    let key = String(row.number);
    for (const [column, cell] of Object.entries(row.cells)) {
      const where = `row ${row.number}, column ${JSON.stringify(column)}`;
      if (column === ID_COLUMN) {
        key = String(cell);
        continue;
      }
      const field = fields.get(column);
      if (!field) {
        errors.push(`${where}: ${workflow.name} has no input ${JSON.stringify(column)}`);
        continue;
      }
      if (field.kind === "file" || field.kind === "files") {
        errors.push(`${where}: file inputs are not supported in a batch file`);
        continue;
      }
      if (row.fromCsv) {
        try {
          inputs[column] = parseFieldValue(field, String(cell), where);
        } catch (error) {
          errors.push(error instanceof CliError ? error.message : String(error));
        }
      } else if (jsonKindFits(field, cell)) inputs[column] = cell;
      else
        errors.push(
          `${where}: ${JSON.stringify(cell)} does not have the declared type (${field.kind})`,
        );
    }
    for (const field of workflow.inputs) {
      if (
        field.required &&
        !(field.name in inputs) &&
        !errors.some((e) => e.startsWith(`row ${row.number},`))
      ) {
        errors.push(
          `row ${row.number}: the required input ${JSON.stringify(field.name)} is missing`,
        );
      }
    }
    if (keys.has(key))
      errors.push(`row ${row.number}: id ${JSON.stringify(key)} appears on an earlier row`);
    keys.add(key);
    planned.push({ row: row.number, key, inputs });
  }
  return { planned, errors };
}
