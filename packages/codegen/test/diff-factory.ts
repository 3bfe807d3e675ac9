// Hand-built models for the diff tests.
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
