// One row per code of the diff: the smallest pair of models that makes the
// rule fire, and the severity it must report. The table is a Record over the
// closed union of codes, so a rule added without a row here is a type error.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type DiffChangeKind, type DiffSeverity, diffEnvironments } from "../src/diff.js";
import { diffCatalogue, withDiffCatalogue } from "../src/diff-catalogue.js";
import type { FieldModel, WorkflowModel } from "../src/model.js";
import { env, field, workflow } from "./diff-factory.js";

type Over = Partial<{ -readonly [K in keyof FieldModel]: FieldModel[K] }>;
type WorkflowOver = Partial<{ -readonly [K in keyof WorkflowModel]: WorkflowModel[K] }>;

interface Case {
  readonly before: WorkflowModel | null;
  readonly after: WorkflowModel | null;
  readonly severity: DiffSeverity;
  readonly path: string | null;
}

/** An input `f` before and after (null: absent on that side). */
function input(b: Over | null, a: Over | null, severity: DiffSeverity): Case {
  return {
    before: workflow({ inputs: b ? [field("f", b)] : [] }),
    after: workflow({ inputs: a ? [field("f", a)] : [] }),
    severity,
    path: "inputs.f",
  };
}

function output(b: Over | null, a: Over | null, severity: DiffSeverity): Case {
  return {
    before: workflow({ outputs: b ? [field("f", b)] : [] }),
    after: workflow({ outputs: a ? [field("f", a)] : [] }),
    severity,
    path: "outputs.f",
  };
}

function wf(
  b: WorkflowOver,
  a: WorkflowOver,
  severity: DiffSeverity,
  path: string | null = null,
): Case {
  return { before: workflow(b), after: workflow(a), severity, path };
}

const text: Over = { kind: "text" };
const num: Over = { kind: "number" };
const enumAB: Over = { kind: "enum", enumBase: "text", enumValues: ["a", "b"] };
const enumA: Over = { kind: "enum", enumBase: "text", enumValues: ["a"] };
const obj = (additionalProperties: boolean): Over => ({
  kind: "object",
  fields: [],
  additionalProperties,
});
const union = (variants: Over[], exclusive = false): Over => ({
  kind: "union",
  exclusive,
  variants: variants.map((v) => field("|", v)),
});
const list: Over = { kind: "array", items: field("[]") };

const CASES: Record<DiffChangeKind, Case> = {
  "workflow-removed": { before: workflow(), after: null, severity: "breaking", path: null },
  "workflow-added": { before: null, after: workflow(), severity: "non-breaking", path: null },
  "workflow-renamed": wf({ name: "A" }, { name: "B" }, "non-breaking"),
  "workflow-identifier-changed": wf({ identifier: "a" }, { identifier: "b" }, "breaking"),
  "workflow-made-draft": wf({ state: "enabled" }, { state: "draft" }, "breaking"),
  "workflow-disabled": wf({ state: "enabled" }, { state: "disabled" }, "breaking"),
  "workflow-enabled": wf({ state: "draft" }, { state: "enabled" }, "non-breaking"),
  "workflow-state-changed": wf({ state: "draft" }, { state: "disabled" }, "non-breaking"),
  "workflow-revision-changed": wf({ revision: 1 }, { revision: 2 }, "non-breaking"),
  "workflow-description-changed": wf({ description: "a" }, { description: "b" }, "non-breaking"),
  "model-exposure-removed": wf({ modelExposed: true }, { modelExposed: false }, "breaking"),
  "model-exposure-added": wf({ modelExposed: false }, { modelExposed: true }, "non-breaking"),
  "outputs-closed": wf(
    { outputsClosed: false },
    { outputsClosed: true },
    "non-breaking",
    "outputs",
  ),
  "outputs-opened": wf(
    { outputsClosed: true },
    { outputsClosed: false },
    "non-breaking",
    "outputs",
  ),

  "input-removed": input(text, null, "breaking"),
  "output-removed": output(text, null, "breaking"),
  "input-added-required": input(null, text, "breaking"),
  "input-added-optional": input(null, { required: false }, "non-breaking"),
  "output-added": output(null, text, "non-breaking"),

  "input-type-widened": input({ kind: "integer" }, num, "non-breaking"),
  "output-type-narrowed": output(num, { kind: "integer" }, "non-breaking"),
  "input-type-changed": input(text, num, "breaking"),
  "output-type-changed": output(text, num, "breaking"),
  "input-default-removed": input(
    { required: true, hasDefault: true, default: "x" },
    { required: true },
    "breaking",
  ),
  "input-default-added": input(text, { hasDefault: true, default: "x" }, "non-breaking"),
  "input-default-changed": input(
    { hasDefault: true, default: "x" },
    { hasDefault: true, default: "y" },
    "non-breaking",
  ),
  "input-made-required": input({ required: false }, { required: true }, "breaking"),
  "input-made-optional": input({ required: true }, { required: false }, "non-breaking"),
  "output-made-optional": output({ required: true }, { required: false }, "breaking"),
  "output-made-required": output({ required: false }, { required: true }, "non-breaking"),
  "input-nullability-widened": input(text, { nullable: true }, "non-breaking"),
  "output-nullability-widened": output(text, { nullable: true }, "breaking"),
  "input-nullability-narrowed": input({ nullable: true }, text, "breaking"),
  "output-nullability-narrowed": output({ nullable: true }, text, "non-breaking"),

  "input-format-added": input(text, { format: "date" }, "breaking"),
  "output-format-added": output(text, { format: "date" }, "non-breaking"),
  "input-format-removed": input({ format: "date" }, text, "non-breaking"),
  "output-format-removed": output({ format: "date" }, text, "breaking"),
  "input-format-changed": input({ format: "date" }, { format: "email" }, "breaking"),
  "output-format-changed": output({ format: "date" }, { format: "email" }, "breaking"),
  "input-enum-value-removed": input(enumAB, enumA, "breaking"),
  "output-enum-value-removed": output(enumAB, enumA, "non-breaking"),
  "input-enum-value-added": input(enumA, enumAB, "non-breaking"),
  "output-enum-value-added": output(enumA, enumAB, "breaking"),
  "input-description-changed": input({ description: "a" }, { description: "b" }, "non-breaking"),
  "output-description-changed": output({ description: "a" }, { description: "b" }, "non-breaking"),

  "input-additional-properties-allowed": input(obj(false), obj(true), "non-breaking"),
  "output-additional-properties-allowed": output(obj(false), obj(true), "non-breaking"),
  "input-additional-properties-closed": input(obj(true), obj(false), "breaking"),
  "output-additional-properties-closed": output(obj(true), obj(false), "non-breaking"),
  "input-alternative-removed": input(union([text, num]), union([text, list]), "breaking"),
  "output-alternative-removed": output(union([text, num]), union([text, list]), "non-breaking"),
  "input-alternative-added": input(union([text, num]), union([text, num, list]), "non-breaking"),
  "output-alternative-added": output(union([text, num]), union([text, num, list]), "breaking"),
  "input-alternatives-made-exclusive": input(
    union([text, num]),
    union([text, num], true),
    "breaking",
  ),
  "output-alternatives-made-exclusive": output(
    union([text, num]),
    union([text, num], true),
    "non-breaking",
  ),
  "input-alternatives-made-inclusive": input(
    union([text, num], true),
    union([text, num]),
    "non-breaking",
  ),
  "output-alternatives-made-inclusive": output(
    union([text, num], true),
    union([text, num]),
    "breaking",
  ),

  "input-max-length-narrowed": input({ maxLength: 10 }, { maxLength: 5 }, "breaking"),
  "output-max-length-narrowed": output({ maxLength: 10 }, { maxLength: 5 }, "non-breaking"),
  "input-max-length-widened": input({ maxLength: 5 }, {}, "non-breaking"),
  "output-max-length-widened": output({ maxLength: 5 }, { maxLength: 10 }, "breaking"),
  "input-min-length-narrowed": input({}, { minLength: 2 }, "breaking"),
  "output-min-length-narrowed": output({ minLength: 1 }, { minLength: 2 }, "non-breaking"),
  "input-min-length-widened": input({ minLength: 2 }, { minLength: 1 }, "non-breaking"),
  "output-min-length-widened": output({ minLength: 2 }, {}, "breaking"),
  "input-max-items-narrowed": input({ ...list, maxItems: 3 }, { ...list, maxItems: 2 }, "breaking"),
  "output-max-items-narrowed": output(
    { ...list, maxItems: 3 },
    { ...list, maxItems: 2 },
    "non-breaking",
  ),
  "input-max-items-widened": input({ ...list, maxItems: 2 }, list, "non-breaking"),
  "output-max-items-widened": output(
    { ...list, maxItems: 2 },
    { ...list, maxItems: 3 },
    "breaking",
  ),
  "input-min-items-narrowed": input(list, { ...list, minItems: 1 }, "breaking"),
  "output-min-items-narrowed": output(list, { ...list, minItems: 1 }, "non-breaking"),
  "input-min-items-widened": input({ ...list, minItems: 1 }, list, "non-breaking"),
  "output-min-items-widened": output(
    { ...list, minItems: 2 },
    { ...list, minItems: 1 },
    "breaking",
  ),
  "input-max-properties-narrowed": input(
    { ...obj(true), maxProperties: 3 },
    { ...obj(true), maxProperties: 2 },
    "breaking",
  ),
  "output-max-properties-narrowed": output(
    { ...obj(true), maxProperties: 3 },
    { ...obj(true), maxProperties: 2 },
    "non-breaking",
  ),
  "input-max-properties-widened": input(
    { ...obj(true), maxProperties: 2 },
    obj(true),
    "non-breaking",
  ),
  "output-max-properties-widened": output(
    { ...obj(true), maxProperties: 2 },
    { ...obj(true), maxProperties: 3 },
    "breaking",
  ),
  "input-min-properties-narrowed": input(obj(true), { ...obj(true), minProperties: 1 }, "breaking"),
  "output-min-properties-narrowed": output(
    obj(true),
    { ...obj(true), minProperties: 1 },
    "non-breaking",
  ),
  "input-min-properties-widened": input(
    { ...obj(true), minProperties: 1 },
    obj(true),
    "non-breaking",
  ),
  "output-min-properties-widened": output(
    { ...obj(true), minProperties: 2 },
    { ...obj(true), minProperties: 1 },
    "breaking",
  ),
  "input-minimum-narrowed": input(
    { ...num, minimum: 0 },
    { ...num, exclusiveMinimum: 0 },
    "breaking",
  ),
  "output-minimum-narrowed": output({ ...num, minimum: 0 }, { ...num, minimum: 1 }, "non-breaking"),
  "input-minimum-widened": input({ ...num, minimum: 1 }, num, "non-breaking"),
  "output-minimum-widened": output({ ...num, minimum: 1 }, { ...num, minimum: 0 }, "breaking"),
  "input-maximum-narrowed": input(num, { ...num, maximum: 9 }, "breaking"),
  "output-maximum-narrowed": output({ ...num, maximum: 9 }, { ...num, maximum: 8 }, "non-breaking"),
  "input-maximum-widened": input(
    { ...num, exclusiveMaximum: 9 },
    { ...num, maximum: 9 },
    "non-breaking",
  ),
  "output-maximum-widened": output({ ...num, maximum: 8 }, { ...num, maximum: 9 }, "breaking"),
  "input-multiple-of-narrowed": input(
    { ...num, multipleOf: 2 },
    { ...num, multipleOf: 4 },
    "breaking",
  ),
  "output-multiple-of-narrowed": output(num, { ...num, multipleOf: 2 }, "non-breaking"),
  "input-multiple-of-widened": input(
    { ...num, multipleOf: 4 },
    { ...num, multipleOf: 2 },
    "non-breaking",
  ),
  "output-multiple-of-widened": output({ ...num, multipleOf: 2 }, num, "breaking"),
  "input-multiple-of-changed": input(
    { ...num, multipleOf: 2 },
    { ...num, multipleOf: 3 },
    "breaking",
  ),
  "output-multiple-of-changed": output(
    { ...num, multipleOf: 2 },
    { ...num, multipleOf: 3 },
    "breaking",
  ),
  "input-unique-items-narrowed": input(list, { ...list, uniqueItems: true }, "breaking"),
  "output-unique-items-narrowed": output(list, { ...list, uniqueItems: true }, "non-breaking"),
  "input-unique-items-widened": input({ ...list, uniqueItems: true }, list, "non-breaking"),
  "output-unique-items-widened": output({ ...list, uniqueItems: true }, list, "breaking"),
  "input-pattern-added": input(text, { pattern: "^a" }, "breaking"),
  "output-pattern-added": output(text, { pattern: "^a" }, "non-breaking"),
  "input-pattern-removed": input({ pattern: "^a" }, text, "non-breaking"),
  "output-pattern-removed": output({ pattern: "^a" }, text, "breaking"),
  "input-pattern-changed": input({ pattern: "^a" }, { pattern: "^b" }, "breaking"),
  "output-pattern-changed": output({ pattern: "^a" }, { pattern: "^b" }, "breaking"),
  "input-schema-changed": input(
    { unknownPart: [field("x")] } as Over,
    { unknownPart: [field("x"), field("y")] } as Over,
    "breaking",
  ),
  "output-schema-changed": output(
    { unknownPart: 1 } as Over,
    { unknownPart: 2 } as Over,
    "breaking",
  ),
};

describe("each diff rule, from the smallest pair of models that makes it fire", () => {
  for (const [code, c] of Object.entries(CASES) as [DiffChangeKind, Case][]) {
    it(`${code}: ${c.severity}`, () => {
      const report = diffEnvironments(
        env(c.before ? [c.before] : []),
        env(c.after ? [c.after] : []),
      );
      const found = report.changes.filter((change) => change.kind === code);
      expect(found, JSON.stringify(report.changes, null, 1)).toHaveLength(1);
      expect(found[0]).toMatchObject({ severity: c.severity, path: c.path });
      expect(found[0]?.message).not.toBe("");
    });
  }

  it("the default removal's severity depends on whether the input stays optional", () => {
    const c = input(
      { required: false, hasDefault: true, default: 1 },
      { required: false },
      "non-breaking",
    );
    const report = diffEnvironments(
      env([c.before as WorkflowModel]),
      env([c.after as WorkflowModel]),
    );
    expect(report.changes).toMatchObject([
      { kind: "input-default-removed", severity: "non-breaking" },
    ]);
  });

  it("a change nested in objects, items and union alternatives is found at its path", () => {
    const inner = (maxLength: number) =>
      field("f", {
        kind: "object",
        fields: [
          field("street", {
            kind: "array",
            items: field("[]", {
              kind: "union",
              variants: [field("|", { maxLength }), field("|", num)],
            }),
          }),
        ],
      });
    const report = diffEnvironments(
      env([workflow({ inputs: [inner(10)] })]),
      env([workflow({ inputs: [inner(5)] })]),
    );
    expect(report.changes).toMatchObject([
      { kind: "input-max-length-narrowed", path: "inputs.f.street[](one of text)" },
    ]);
  });
});

describe("the catalogue", () => {
  it("lists every code once, and exactly the codes of the table above", () => {
    const codes = diffCatalogue().map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(Object.keys(CASES).sort());
  });

  it("is what the README shows (re-render: node scripts/render-diff-catalogue.mjs)", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(withDiffCatalogue(readme)).toBe(readme);
  });

  it("no code is built from a template, so searching for a code finds its rule", () => {
    const folder = new URL("../src/diff-rules/", import.meta.url);
    const source = readdirSync(folder)
      .map((file) => readFileSync(new URL(file, folder), "utf8"))
      .join("\n");
    for (const code of Object.keys(CASES)) expect(source, code).toContain(`"${code}"`);
  });
});
