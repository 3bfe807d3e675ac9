// Rules on a whole value that no TypeScript type expresses: `not`,
// `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`, draft 4's
// `dependencies`, and `contains` with `minContains` / `maxContains`. The generated input validator gives Ajv's verdict on each
// document, the output reader accepts every valid one (outputs are read, not
// policed), and the types stay as wide as the value's kind: every valid
// document is assignable to Inputs (one tsc program).
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs } from "../helpers.js";
import { type AgreementCase as Case, run } from "./ajv-agreement.js";

afterAll(cleanupTempDirs);

const CASES_31: Record<string, Case> = {
  not: {
    schema: { type: "string", not: { enum: ["forbidden", "also"] } },
    documents: ["ok", "forbidden", "also"],
  },
  notNull: {
    schema: { anyOf: [{ type: "integer" }, { type: "null" }], not: { type: "null" } },
    documents: [1, null],
  },
  ifThenElse: {
    schema: {
      type: "object",
      properties: { kind: { enum: ["card", "bank"] }, number: { type: "string" } },
      if: { properties: { kind: { const: "card" } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword
      then: { required: ["number"] },
      else: { not: { required: ["number"] } },
    },
    documents: [
      { kind: "card", number: "1" },
      { kind: "card" },
      { kind: "bank" },
      { kind: "bank", number: "1" },
    ],
  },
  dependentRequired: {
    schema: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
      dependentRequired: { street: ["city"] },
    },
    documents: [{}, { city: "x" }, { street: "a", city: "x" }, { street: "a" }],
  },
  dependentSchemas: {
    schema: {
      type: "object",
      properties: { card: { type: "string" }, cvc: { type: "string" } },
      dependentSchemas: { card: { required: ["cvc"], properties: { cvc: { minLength: 3 } } } },
    },
    documents: [{}, { card: "1", cvc: "123" }, { card: "1" }, { card: "1", cvc: "1" }],
  },
};

CASES_31.contains = {
  schema: { type: "array", contains: { type: "integer" }, minContains: 2, maxContains: 3 },
  documents: [[1, 2], ["a", 1, 2, 3], [1], [1, 2, 3, 4], []],
};
CASES_31.containsOne = {
  schema: { type: "array", items: { type: ["string", "integer"] }, contains: { const: "x" } },
  documents: [["x"], [1, "x"], [1], []],
};

const CASES_30: Record<string, Case> = {
  dependencies: {
    schema: {
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "integer" } },
      dependencies: { a: ["b"], b: { properties: { a: { minimum: 5 } } } },
    },
    documents: [{}, { b: 1 }, { a: 5, b: 1 }, { a: 1, b: 1 }, { a: 1 }],
  },
};

describe("not, if/then/else, dependentRequired, dependentSchemas, dependencies", () => {
  it("validate inputs as Ajv does (3.1), and type every valid document", async () => {
    const { verdicts, expected, byId, diagnostics } = await run(CASES_31, "3.1.0", "t");
    expect(verdicts).toEqual(expected);
    expect(byId.get("wf_3")?.validateInputs({ v: { street: "a" } })).toMatchObject([
      { field: "v.city", reason: "REQUIRED" },
    ]);
    expect(diagnostics).toEqual([]);
  });

  // Ajv's draft-07 reads `dependencies` as draft 4 does.
  it("read draft 4's dependencies in 3.0 as Ajv does", async () => {
    const { verdicts, expected, diagnostics } = await run(CASES_30, "3.0.3", "d");
    expect(verdicts).toEqual(expected);
    expect(diagnostics).toEqual([]);
  });
});
