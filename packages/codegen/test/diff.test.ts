// The diff as a whole: identical models, both sides named, before/after
// values, how workflows are matched (id, name, identifier), prototype-word
// field names, and a deterministic order. Each change's classification:
// diff-workflow-changes, diff-input-changes, diff-output-changes.
import { describe, expect, it } from "vitest";
import { diffEnvironments } from "../src/diff.js";
import { env, field, withInputs, withOutputs, workflow } from "./diff-factory.js";

const base = workflow();

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
