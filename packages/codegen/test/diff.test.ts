import { describe, expect, it } from "vitest";
import { type DiffChange, diffEnvironments } from "../src/diff.js";
import type { FieldModel, WorkflowModel } from "../src/model.js";
import { env, field, workflow } from "./diff-factory.js";

interface Rule {
  readonly name: string;
  readonly before: WorkflowModel[];
  readonly after: WorkflowModel[];
  readonly severity: DiffChange["severity"];
  readonly kind: string;
  readonly path: string | null;
}

const base = workflow();
const withInputs = (...inputs: FieldModel[]) => workflow({ inputs });
const withOutputs = (...outputs: FieldModel[]) => workflow({ outputs });
const obj = (name: string, fields: FieldModel[], over: Partial<FieldModel> = {}) =>
  field(name, { kind: "object", fields, additionalProperties: false, ...over });
const arr = (name: string, items: FieldModel, over: Partial<FieldModel> = {}) =>
  field(name, { kind: "array", items: { ...items, name: "[]" }, ...over });
const textEnum = (name: string, values: string[], over: Partial<FieldModel> = {}) =>
  field(name, { kind: "enum", enumBase: "text", enumValues: values, ...over });

const map = (name: string, values: FieldModel) =>
  field(name, {
    kind: "object",
    fields: [],
    additionalProperties: true,
    values: { ...values, name: "{}" },
  });

const rules: Rule[] = [
  // Map values (`additionalProperties: <schema>`) are part of the model.
  {
    name: "input map value type changed",
    before: [withInputs(map("counts", field("{}", { kind: "integer" })))],
    after: [withInputs(map("counts", field("{}", { kind: "text" })))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.counts{}",
  },
  // Workflow level.
  {
    name: "workflow removed",
    before: [base],
    after: [],
    severity: "breaking",
    kind: "workflow-removed",
    path: null,
  },
  {
    name: "workflow added",
    before: [],
    after: [base],
    severity: "non-breaking",
    kind: "workflow-added",
    path: null,
  },
  {
    name: "workflow disabled",
    before: [base],
    after: [workflow({ state: "disabled" })],
    severity: "breaking",
    kind: "workflow-disabled",
    path: null,
  },
  {
    name: "workflow made draft",
    before: [base],
    after: [workflow({ state: "draft" })],
    severity: "breaking",
    kind: "workflow-made-draft",
    path: null,
  },
  {
    name: "workflow enabled",
    before: [workflow({ state: "draft" })],
    after: [base],
    severity: "non-breaking",
    kind: "workflow-enabled",
    path: null,
  },
  {
    name: "revision bump",
    before: [base],
    after: [workflow({ revision: 2 })],
    severity: "non-breaking",
    kind: "workflow-revision-changed",
    path: null,
  },
  {
    name: "workflow description changed",
    before: [base],
    after: [workflow({ description: "Books invoices" })],
    severity: "non-breaking",
    kind: "workflow-description-changed",
    path: null,
  },
  {
    name: "model exposure removed",
    before: [workflow({ modelExposed: true })],
    after: [base],
    severity: "breaking",
    kind: "model-exposure-removed",
    path: null,
  },
  {
    name: "model exposure added",
    before: [base],
    after: [workflow({ modelExposed: true })],
    severity: "non-breaking",
    kind: "model-exposure-added",
    path: null,
  },
  {
    name: "workflow state draft -> disabled (launchable neither before nor after)",
    before: [workflow({ state: "draft" })],
    after: [workflow({ state: "disabled" })],
    severity: "non-breaking",
    kind: "workflow-state-changed",
    path: null,
  },
  {
    name: "generated identifier changed",
    before: [base],
    after: [workflow({ identifier: "invoiceIntakeP7qd2l" })],
    severity: "breaking",
    kind: "workflow-identifier-changed",
    path: null,
  },
  {
    name: "outputs closed to undeclared fields",
    before: [base],
    after: [workflow({ outputsClosed: true })],
    severity: "non-breaking",
    kind: "outputs-closed",
    path: "outputs",
  },
  // Inputs.
  {
    name: "input added as required",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a"), field("po_number"))],
    severity: "breaking",
    kind: "input-added-required",
    path: "inputs.po_number",
  },
  {
    name: "required input added with a default is optional for the caller",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a"), field("b", { hasDefault: true, default: "x" }))],
    severity: "non-breaking",
    kind: "input-added-optional",
    path: "inputs.b",
  },
  {
    name: "optional input added",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a"), field("note", { required: false }))],
    severity: "non-breaking",
    kind: "input-added-optional",
    path: "inputs.note",
  },
  {
    name: "input removed",
    before: [withInputs(field("a"), field("vendor_name"))],
    after: [withInputs(field("a"))],
    severity: "breaking",
    kind: "input-removed",
    path: "inputs.vendor_name",
  },
  {
    name: "input kind changed json -> text",
    before: [withInputs(field("a", { kind: "json" }))],
    after: [withInputs(field("a", { kind: "text" }))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.a",
  },
  {
    name: "input narrowed number -> integer",
    before: [withInputs(field("a", { kind: "number" }))],
    after: [withInputs(field("a", { kind: "integer" }))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.a",
  },
  {
    name: "input widened integer -> number",
    before: [withInputs(field("a", { kind: "integer" }))],
    after: [withInputs(field("a", { kind: "number" }))],
    severity: "non-breaking",
    kind: "input-type-widened",
    path: "inputs.a",
  },
  {
    name: "input widened object -> json",
    before: [withInputs(obj("a", [field("x")]))],
    after: [withInputs(field("a", { kind: "json" }))],
    severity: "non-breaking",
    kind: "input-type-widened",
    path: "inputs.a",
  },
  {
    name: "input widened enum -> text",
    before: [withInputs(textEnum("a", ["x"]))],
    after: [withInputs(field("a"))],
    severity: "non-breaking",
    kind: "input-type-widened",
    path: "inputs.a",
  },
  {
    name: "input kind changed file -> files",
    before: [withInputs(field("a", { kind: "file" }))],
    after: [withInputs(field("a", { kind: "files" }))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.a",
  },
  {
    name: "default removed from an optional input that stays optional",
    before: [withInputs(field("a", { required: false, hasDefault: true, default: 2 }))],
    after: [withInputs(field("a", { required: false }))],
    severity: "non-breaking",
    kind: "input-default-removed",
    path: "inputs.a",
  },
  {
    name: "default value changed",
    before: [withInputs(field("a", { required: false, hasDefault: true, default: { x: 1 } }))],
    after: [withInputs(field("a", { required: false, hasDefault: true, default: { x: 2 } }))],
    severity: "non-breaking",
    kind: "input-default-changed",
    path: "inputs.a",
  },
  {
    name: "input narrowed text -> enum",
    before: [withInputs(field("a"))],
    after: [withInputs(textEnum("a", ["x", "y"]))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.a",
  },
  {
    name: "nested object input field changed",
    before: [withInputs(obj("address", [field("city"), field("zip", { kind: "text" })]))],
    after: [withInputs(obj("address", [field("city"), field("zip", { kind: "integer" })]))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.address.zip",
  },
  {
    name: "nested object input gains a required field",
    before: [withInputs(obj("address", [field("city")]))],
    after: [withInputs(obj("address", [field("city"), field("country")]))],
    severity: "breaking",
    kind: "input-added-required",
    path: "inputs.address.country",
  },
  {
    name: "array input items narrowed",
    before: [withInputs(arr("tags", field("[]", { kind: "text" })))],
    after: [withInputs(arr("tags", textEnum("[]", ["a", "b"])))],
    severity: "breaking",
    kind: "input-type-changed",
    path: "inputs.tags[]",
  },
  {
    name: "format added on an input",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a", { format: "date" }))],
    severity: "breaking",
    kind: "input-format-added",
    path: "inputs.a",
  },
  {
    name: "format changed on an input",
    before: [withInputs(field("a", { format: "date" }))],
    after: [withInputs(field("a", { format: "date-time" }))],
    severity: "breaking",
    kind: "input-format-changed",
    path: "inputs.a",
  },
  {
    name: "format removed from an input",
    before: [withInputs(field("a", { format: "date" }))],
    after: [withInputs(field("a"))],
    severity: "non-breaking",
    kind: "input-format-removed",
    path: "inputs.a",
  },
  {
    name: "input nullability narrowed",
    before: [withInputs(field("a", { nullable: true }))],
    after: [withInputs(field("a"))],
    severity: "breaking",
    kind: "input-nullability-narrowed",
    path: "inputs.a",
  },
  {
    name: "input nullability widened",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a", { nullable: true }))],
    severity: "non-breaking",
    kind: "input-nullability-widened",
    path: "inputs.a",
  },
  {
    name: "enum value removed from an input",
    before: [withInputs(textEnum("currency", ["USD", "EUR", "GBP"]))],
    after: [withInputs(textEnum("currency", ["USD", "EUR"]))],
    severity: "breaking",
    kind: "input-enum-value-removed",
    path: "inputs.currency",
  },
  {
    name: "enum value added to an input",
    before: [withInputs(textEnum("currency", ["USD", "EUR"]))],
    after: [withInputs(textEnum("currency", ["USD", "EUR", "JPY"]))],
    severity: "non-breaking",
    kind: "input-enum-value-added",
    path: "inputs.currency",
  },
  {
    name: "maxLength added on an input",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a", { maxLength: 10 }))],
    severity: "breaking",
    kind: "input-max-length-narrowed",
    path: "inputs.a",
  },
  {
    name: "maxLength lowered on an input",
    before: [withInputs(field("a", { maxLength: 100 }))],
    after: [withInputs(field("a", { maxLength: 10 }))],
    severity: "breaking",
    kind: "input-max-length-narrowed",
    path: "inputs.a",
  },
  {
    name: "maxLength raised on an input",
    before: [withInputs(field("a", { maxLength: 10 }))],
    after: [withInputs(field("a", { maxLength: 100 }))],
    severity: "non-breaking",
    kind: "input-max-length-widened",
    path: "inputs.a",
  },
  {
    name: "optional input made required",
    before: [withInputs(field("a", { required: false }))],
    after: [withInputs(field("a"))],
    severity: "breaking",
    kind: "input-made-required",
    path: "inputs.a",
  },
  {
    name: "required input made optional",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a", { required: false }))],
    severity: "non-breaking",
    kind: "input-made-optional",
    path: "inputs.a",
  },
  {
    name: "default removed from an input that relied on it",
    before: [withInputs(field("a", { required: false, hasDefault: true, default: "USD" }))],
    after: [withInputs(field("a", { required: true }))],
    severity: "breaking",
    kind: "input-default-removed",
    path: "inputs.a",
  },
  {
    name: "default removed from an input marked required with a default",
    before: [withInputs(field("a", { required: true, hasDefault: true, default: 1 }))],
    after: [withInputs(field("a", { required: true }))],
    severity: "breaking",
    kind: "input-default-removed",
    path: "inputs.a",
  },
  {
    name: "default added",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a", { required: false, hasDefault: true, default: "x" }))],
    severity: "non-breaking",
    kind: "input-default-added",
    path: "inputs.a",
  },
  {
    name: "input description changed",
    before: [withInputs(field("a"))],
    after: [withInputs(field("a", { description: "Vendor" }))],
    severity: "non-breaking",
    kind: "input-description-changed",
    path: "inputs.a",
  },
  {
    name: "nested input object closed to undeclared keys",
    before: [withInputs(obj("o", [field("x")], { additionalProperties: true }))],
    after: [withInputs(obj("o", [field("x")], { additionalProperties: false }))],
    severity: "breaking",
    kind: "input-additional-properties-closed",
    path: "inputs.o",
  },
  // Outputs.
  {
    name: "output removed",
    before: [withOutputs(field("invoice_id"), field("ledger_lines", { required: false }))],
    after: [withOutputs(field("invoice_id"))],
    severity: "breaking",
    kind: "output-removed",
    path: "outputs.ledger_lines",
  },
  {
    name: "output added",
    before: [withOutputs(field("invoice_id"))],
    after: [withOutputs(field("invoice_id"), field("ledger_entries", { required: false }))],
    severity: "non-breaking",
    kind: "output-added",
    path: "outputs.ledger_entries",
  },
  {
    name: "output kind changed number -> text",
    before: [withOutputs(field("confidence", { kind: "number" }))],
    after: [withOutputs(field("confidence", { kind: "text" }))],
    severity: "breaking",
    kind: "output-type-changed",
    path: "outputs.confidence",
  },
  {
    name: "output widened integer -> number",
    before: [withOutputs(field("n", { kind: "integer" }))],
    after: [withOutputs(field("n", { kind: "number" }))],
    severity: "breaking",
    kind: "output-type-changed",
    path: "outputs.n",
  },
  {
    name: "output narrowed number -> integer",
    before: [withOutputs(field("n", { kind: "number" }))],
    after: [withOutputs(field("n", { kind: "integer" }))],
    severity: "non-breaking",
    kind: "output-type-narrowed",
    path: "outputs.n",
  },
  {
    name: "output made nullable",
    before: [withOutputs(field("a"))],
    after: [withOutputs(field("a", { nullable: true }))],
    severity: "breaking",
    kind: "output-nullability-widened",
    path: "outputs.a",
  },
  {
    name: "output made not nullable",
    before: [withOutputs(field("a", { nullable: true }))],
    after: [withOutputs(field("a"))],
    severity: "non-breaking",
    kind: "output-nullability-narrowed",
    path: "outputs.a",
  },
  {
    name: "enum value added on an output",
    before: [withOutputs(textEnum("status", ["booked", "rejected"]))],
    after: [withOutputs(textEnum("status", ["booked", "rejected", "on_hold"]))],
    severity: "breaking",
    kind: "output-enum-value-added",
    path: "outputs.status",
  },
  {
    name: "enum value removed from an output",
    before: [withOutputs(textEnum("status", ["booked", "rejected"]))],
    after: [withOutputs(textEnum("status", ["booked"]))],
    severity: "non-breaking",
    kind: "output-enum-value-removed",
    path: "outputs.status",
  },
  {
    name: "output made optional",
    before: [withOutputs(field("a"))],
    after: [withOutputs(field("a", { required: false }))],
    severity: "breaking",
    kind: "output-made-optional",
    path: "outputs.a",
  },
  {
    name: "nested output field removed inside array items",
    before: [withOutputs(arr("ledger_lines", obj("[]", [field("account"), field("debit")])))],
    after: [withOutputs(arr("ledger_lines", obj("[]", [field("debit")])))],
    severity: "breaking",
    kind: "output-removed",
    path: "outputs.ledger_lines[].account",
  },
  {
    name: "nested output field type changed inside array items",
    before: [withOutputs(arr("ledger_lines", obj("[]", [field("debit", { kind: "number" })])))],
    after: [withOutputs(arr("ledger_lines", obj("[]", [field("debit", { kind: "text" })])))],
    severity: "breaking",
    kind: "output-type-changed",
    path: "outputs.ledger_lines[].debit",
  },
  {
    name: "output narrowed text -> enum",
    before: [withOutputs(field("status"))],
    after: [withOutputs(textEnum("status", ["a"]))],
    severity: "non-breaking",
    kind: "output-type-narrowed",
    path: "outputs.status",
  },
  {
    name: "output widened to unknown",
    before: [withOutputs(field("a"))],
    after: [withOutputs(field("a", { kind: "unknown" }))],
    severity: "breaking",
    kind: "output-type-changed",
    path: "outputs.a",
  },
  {
    name: "output made required",
    before: [withOutputs(field("a", { required: false }))],
    after: [withOutputs(field("a"))],
    severity: "non-breaking",
    kind: "output-made-required",
    path: "outputs.a",
  },
  {
    name: "output format removed",
    before: [withOutputs(field("a", { format: "date" }))],
    after: [withOutputs(field("a"))],
    severity: "breaking",
    kind: "output-format-removed",
    path: "outputs.a",
  },
  {
    name: "nested output field made nullable inside an object",
    before: [withOutputs(obj("o", [field("x")]))],
    after: [withOutputs(obj("o", [field("x", { nullable: true })]))],
    severity: "breaking",
    kind: "output-nullability-widened",
    path: "outputs.o.x",
  },
  {
    name: "output description changed",
    before: [withOutputs(field("a"))],
    after: [withOutputs(field("a", { description: "The id" }))],
    severity: "non-breaking",
    kind: "output-description-changed",
    path: "outputs.a",
  },
];

describe("diffEnvironments classification", () => {
  it.each(rules)("$name", (rule) => {
    const report = diffEnvironments(env(rule.before), env(rule.after));
    expect(report.changes).toHaveLength(1);
    const change = report.changes[0];
    expect(change).toMatchObject({
      severity: rule.severity,
      kind: rule.kind,
      path: rule.path,
      workflowId: "wf_1",
      workflowName: "Invoice intake",
    });
    expect(typeof change?.message).toBe("string");
    expect(report.summary).toEqual({
      breaking: rule.severity === "breaking" ? 1 : 0,
      nonBreaking: rule.severity === "breaking" ? 0 : 1,
    });
  });
});

describe("diffEnvironments", () => {
  it("reports nothing for identical models", () => {
    const model = env([base]);
    const report = diffEnvironments(model, model);
    expect(report.changes).toEqual([]);
    expect(report.summary).toEqual({ breaking: 0, nonBreaking: 0 });
  });

  it("names both sides", () => {
    const report = diffEnvironments(
      env([], { name: "production", sourceFile: "production/openapi.json" }),
      env([], { name: "staging", sourceFile: "staging/openapi.yaml" }),
    );
    expect(report.old).toEqual({
      environment: "production",
      sourceFile: "production/openapi.json",
    });
    expect(report.new).toEqual({ environment: "staging", sourceFile: "staging/openapi.yaml" });
  });

  it("records before and after values", () => {
    const report = diffEnvironments(
      env([withOutputs(field("confidence", { kind: "number" }))]),
      env([withOutputs(field("confidence", { kind: "text" }))]),
    );
    expect(report.changes[0]).toMatchObject({ before: "number", after: "text" });
  });

  it("matches by id by default: same name with a different id is removed + added", () => {
    const report = diffEnvironments(env([base]), env([workflow({ id: "wf_2" })]));
    expect(report.changes.map((c) => [c.kind, c.workflowId])).toEqual([
      ["workflow-removed", "wf_1"],
      ["workflow-added", "wf_2"],
    ]);
  });

  it("matches by name across environments", () => {
    const report = diffEnvironments(
      env([base]),
      env([workflow({ id: "wf_S", revision: 3 })], { name: "staging" }),
      { matchBy: "name" },
    );
    expect(report.changes).toHaveLength(1);
    expect(report.changes[0]).toMatchObject({
      kind: "workflow-revision-changed",
      workflowId: "wf_S",
    });
  });

  it("falls back to the identifier when names are ambiguous", () => {
    const a1 = workflow({ id: "a1", name: "Dup", identifier: "dup" });
    const a2 = workflow({ id: "a2", name: "Dup", identifier: "dupA2" });
    const b1 = workflow({ id: "b1", name: "Dup", identifier: "dup" });
    const b2 = workflow({ id: "b2", name: "Dup", identifier: "dupA2", revision: 5 });
    const report = diffEnvironments(env([a1, a2]), env([b2, b1]), { matchBy: "name" });
    expect(report.changes.map((c) => [c.kind, c.workflowId])).toEqual([
      ["workflow-revision-changed", "b2"],
    ]);
  });

  it("is safe with prototype-word field names", () => {
    const report = diffEnvironments(
      env([withInputs(field("__proto__"), field("constructor"))]),
      env([withInputs(field("constructor", { kind: "number" }), field("hasOwnProperty"))]),
    );
    expect(report.changes.map((c) => [c.kind, c.path])).toEqual([
      ["input-removed", "inputs.__proto__"],
      ["input-type-changed", "inputs.constructor"],
      ["input-added-required", "inputs.hasOwnProperty"],
    ]);
  });

  it("sorts changes deterministically, breaking first per workflow, whatever the input order", () => {
    const wA = workflow({
      id: "wf_a",
      name: "Alpha",
      identifier: "alpha",
      inputs: [field("x"), field("y")],
    });
    const wB = workflow({ id: "wf_b", name: "Beta", identifier: "beta" });
    const wA2 = workflow({
      id: "wf_a",
      name: "Alpha",
      identifier: "alpha",
      revision: 2,
      inputs: [field("x", { description: "d" }), field("z")],
    });
    const wC = workflow({ id: "wf_c", name: "Gamma", identifier: "gamma" });
    const r1 = diffEnvironments(env([wA, wB]), env([wA2, wC]));
    const r2 = diffEnvironments(env([wB, wA]), env([wC, wA2]));
    expect(JSON.stringify(r1)).toBe(JSON.stringify(r2));
    expect(r1.changes.map((c) => `${c.workflowName}:${c.severity}:${c.kind}:${c.path}`)).toEqual([
      "Alpha:breaking:input-removed:inputs.y",
      "Alpha:breaking:input-added-required:inputs.z",
      "Alpha:non-breaking:workflow-revision-changed:null",
      "Alpha:non-breaking:input-description-changed:inputs.x",
      "Beta:breaking:workflow-removed:null",
      "Gamma:non-breaking:workflow-added:null",
    ]);
  });
});
