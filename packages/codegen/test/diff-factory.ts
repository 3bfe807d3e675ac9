// Hand-built models for the diff tests, and the table runner of the
// classification tests (one change per row, its severity, kind and path).
import { expect, it } from "vitest";
import { type DiffChange, diffEnvironments } from "../src/diff.js";
import type { EnvironmentModel, FieldModel, WorkflowModel } from "../src/model.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function field(name: string, over: Partial<Mutable<FieldModel>> = {}): FieldModel {
  return {
    name,
    kind: "text",
    required: true,
    nullable: false,
    hasDefault: false,
    pointer: `/components/schemas/X/properties/${name}`,
    ...over,
  };
}

export function workflow(over: Partial<Mutable<WorkflowModel>> = {}): WorkflowModel {
  return {
    id: "wf_1",
    name: "Invoice intake",
    identifier: "invoiceIntake",
    state: "enabled",
    revision: 1,
    modelExposed: false,
    inputs: [field("vendor_name")],
    outputs: [field("invoice_id")],
    outputsClosed: false,
    pointer: "/paths/~1automations~1wf_1~1runs/post",
    ...over,
  };
}

export function env(
  workflows: readonly WorkflowModel[],
  over: Partial<Mutable<EnvironmentModel>> = {},
): EnvironmentModel {
  return {
    name: "production",
    workspace: "ws_1",
    baseUrl: "https://api.example.com/api/v1",
    sourceFile: "production/openapi.json",
    sourceHash: "0".repeat(64),
    workflows,
    ...over,
  };
}

/** One row of a classification table: the smallest pair of models that makes one change. */
export interface ClassificationRow {
  readonly name: string;
  readonly before: WorkflowModel[];
  readonly after: WorkflowModel[];
  readonly severity: DiffChange["severity"];
  readonly kind: string;
  readonly path: string | null;
}

export const withInputs = (...inputs: FieldModel[]) => workflow({ inputs });
export const withOutputs = (...outputs: FieldModel[]) => workflow({ outputs });
export const obj = (name: string, fields: FieldModel[], over: Partial<FieldModel> = {}) =>
  field(name, { kind: "object", fields, additionalProperties: false, ...over });
export const arr = (name: string, items: FieldModel, over: Partial<FieldModel> = {}) =>
  field(name, { kind: "array", items: { ...items, name: "[]" }, ...over });
export const textEnum = (name: string, values: string[], over: Partial<FieldModel> = {}) =>
  field(name, { kind: "enum", enumBase: "text", enumValues: values, ...over });
export const map = (name: string, values: FieldModel) =>
  field(name, {
    kind: "object",
    fields: [],
    additionalProperties: true,
    values: { ...values, name: "{}" },
  });

/** One test per row: exactly that change, with its severity, kind, path and the summary counts. */
export function classifies(rows: readonly ClassificationRow[]): void {
  it.each(rows)("$name", (row) => {
    const report = diffEnvironments(env(row.before), env(row.after));
    expect(report.changes).toHaveLength(1);
    const change = report.changes[0];
    expect(change).toMatchObject({
      severity: row.severity,
      kind: row.kind,
      path: row.path,
      workflowId: "wf_1",
      workflowName: "Invoice intake",
    });
    expect(typeof change?.message).toBe("string");
    expect(report.summary).toEqual({
      breaking: row.severity === "breaking" ? 1 : 0,
      nonBreaking: row.severity === "breaking" ? 0 : 1,
    });
  });
}
