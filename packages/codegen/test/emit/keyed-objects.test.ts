// Objects whose keys carry rules: `patternProperties` (the values of every
// key a pattern matches, declared or not), `additionalProperties` beside them
// (the keys no pattern matches) and `propertyNames` (every key itself). The
// generated input validators agree with Ajv on each document, the output
// readers accept every valid one, and every valid one is assignable to the
// generated Inputs type (one tsc program).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { cleanupTempDirs, definition, projectDir, typeCheck, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

const CASES: Record<string, { schema: Record<string, unknown>; documents: unknown[] }> = {
  closedPatterns: {
    schema: {
      type: "object",
      patternProperties: { "^x-": { type: "string" } },
      additionalProperties: false,
    },
    documents: [{}, { "x-a": "1" }, { "x-a": 1 }, { y: "1" }, { "x-a": "1", y: "1" }],
  },
  patternsBesideFields: {
    schema: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "integer" }, n_declared: { type: "number" } },
      patternProperties: { "^n_": { type: "number", minimum: 0 } },
      additionalProperties: { type: "string" },
    },
    documents: [
      { id: 1 },
      { id: 1, n_a: 2, other: "s" },
      { id: 1, other: 1 },
      { id: 1, n_a: "s" },
      { id: 1, n_declared: -1 },
      { id: 1, n_declared: 1 },
      { n_a: 1 },
    ],
  },
  openPatterns: {
    schema: { type: "object", patternProperties: { "^[0-9]+$": { type: "boolean" } } },
    documents: [{ "1": true, a: [] }, { "1": "yes" }, { a: 1 }],
  },
  propertyNames: {
    schema: { type: "object", propertyNames: { pattern: "^[a-z]+$", maxLength: 3 } },
    documents: [{ abc: 1 }, { A: 1 }, { abcd: 1 }, {}],
  },
  propertyNamesEnum: {
    schema: {
      type: "object",
      propertyNames: { enum: ["red", "green"] },
      additionalProperties: { type: "integer" },
    },
    documents: [{ red: 1 }, { blue: 1 }, { green: "1" }],
  },
};

interface Workflow {
  id: string;
  validateInputs(v: unknown): { field: string; reason: string }[];
  checkOutputs(v: unknown): unknown[];
}

describe("patternProperties, additionalProperties beside them, propertyNames", () => {
  it("validate as Ajv does, and type every valid document", async () => {
    const names = Object.keys(CASES);
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        names.map((name, i) => ({
          id: `wf_${i}`,
          name: `Case ${name}`,
          inputs: {
            type: "object",
            additionalProperties: false,
            required: ["v"],
            properties: { v: CASES[name]?.schema },
          },
          outputs: { type: "object", properties: { v: CASES[name]?.schema } },
        })),
        { environment: "t" },
      ),
    );
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const index = (await import(pathToFileURL(join(dir, "gen", "t", "index.js")).href)) as {
      workflows: Record<string, Workflow>;
    };
    const byId = new Map(Object.values(index.workflows).map((w) => [w.id, w]));
    const ajv = new Ajv2020({ strict: false });
    const verdicts: string[] = [];
    const expected: string[] = [];
    const app: string[] = [];
    names.forEach((name, i) => {
      const { schema, documents } = CASES[name] as (typeof CASES)[string];
      const workflow = byId.get(`wf_${i}`) as Workflow;
      const valid = ajv.compile(schema);
      app.push(
        `import type { Inputs as I${i} } from "./gen/t/case${name[0]?.toUpperCase()}${name.slice(1)}.js";`,
      );
      documents.forEach((doc, j) => {
        const label = `${name} ${JSON.stringify(doc)}`;
        expected.push(`${label}: ${valid(doc)}`);
        verdicts.push(`${label}: ${workflow.validateInputs({ v: doc }).length === 0}`);
        // Outputs are read, not policed (unknown keys kept, rules documented): a valid one passes.
        if (valid(doc)) {
          expected.push(`${label} (outputs): true`);
          verdicts.push(`${label} (outputs): ${workflow.checkOutputs({ v: doc }).length === 0}`);
        }
        if (valid(doc)) app.push(`export const v${i}_${j}: I${i} = { v: ${JSON.stringify(doc)} };`);
      });
    });
    expect(verdicts).toEqual(expected);
    expect(byId.get("wf_0")?.validateInputs({ v: { "x-a": 1 } })).toMatchObject([
      { field: "v.x-a", reason: "INVALID_TYPE" },
    ]);
    expect(byId.get("wf_0")?.validateInputs({ v: { y: "1" } })).toMatchObject([
      { field: "v.y", reason: "UNKNOWN_INPUT" },
    ]);
    writeFileSync(join(dir, "app.ts"), app.join("\n"));
    expect(typeCheck(dir, ["app.ts"], { exactOptionalPropertyTypes: true })).toEqual([]);
  });
});
