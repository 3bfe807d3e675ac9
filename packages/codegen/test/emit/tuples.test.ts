// Tuples: 2020-12's `prefixItems` (the rest as `items`) in 3.1, draft 4's
// `items` as a list (the rest as `additionalItems`) in 3.0. The input validator
// gives Ajv's verdict on each document, and every valid one is assignable to
// the generated Inputs type: leading items before `minItems` are there, the
// others may be missing, the rest is typed by its schema (ajv-agreement.ts).
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs } from "../helpers.js";
import { type AgreementCase, run } from "./ajv-agreement.js";

afterAll(cleanupTempDirs);

const CASES_31: Record<string, AgreementCase> = {
  open: {
    schema: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] },
    documents: [[], ["a"], ["a", 1], ["a", 1, true, null], [1], ["a", "b"]],
  },
  closed: {
    schema: {
      type: "array",
      prefixItems: [{ type: "string" }, { anyOf: [{ type: "number" }, { type: "null" }] }],
      items: false,
      minItems: 1,
    },
    documents: [["a"], ["a", null], ["a", 2], ["a", 2, 3], []],
  },
  rest: {
    schema: { type: "array", prefixItems: [{ enum: ["x", "y"] }], items: { type: "boolean" } },
    documents: [["x"], ["x", true, false], ["y", 1], ["z"]],
  },
};

const CASES_30: Record<string, AgreementCase> = {
  draft4: {
    schema: {
      type: "array",
      items: [{ type: "string" }, { type: "object", properties: { a: { type: "integer" } } }],
      additionalItems: { type: "integer" },
    },
    documents: [[], ["a", { a: 1 }], ["a", { a: 1 }, 2, 3], ["a", { a: "1" }], ["a", {}, "b"]],
  },
};

describe("tuples", () => {
  it("prefixItems and items (3.1): Ajv's verdicts, valid documents typed", async () => {
    const { verdicts, expected, diagnostics } = await run(CASES_31, "3.1.0", "t");
    expect(verdicts).toEqual(expected);
    expect(diagnostics).toEqual([]);
  });

  it("items as a list and additionalItems (3.0, draft 4): Ajv's verdicts, valid documents typed", async () => {
    const { verdicts, expected, diagnostics } = await run(CASES_30, "3.0.3", "d");
    expect(verdicts).toEqual(expected);
    expect(diagnostics).toEqual([]);
  });
});
