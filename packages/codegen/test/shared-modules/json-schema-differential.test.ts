// The shapes the emulator has no counterpart for (allOf, oneOf, anyOf,
// const, type lists, JSON enum values) are checked against a reference JSON
// Schema validator instead: for each schema, thousands of values (fast-check)
// get the same verdict from the generated validator (made by the `generate`
// CLI) and from Ajv (draft 2020-12, the dialect of OpenAPI 3.1) on the very
// schema the definition holds. (The JSON-Schema-Test-Suite test holds both
// validators to the official suite as well.)
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { cleanupTempDirs, definition, projectDir, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

const RUNS_PER_CASE = 1000;

interface Case {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  /** Values aimed at the schema, besides arbitrary JSON. */
  readonly values: fc.Arbitrary<unknown>;
}

const smallInt = fc.integer({ min: -5, max: 15 });
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom("", "a", "ab", "abc", "12", "x1"),
);
const json = fc.jsonValue({ maxDepth: 2 });

const CASES: readonly Case[] = [
  {
    name: "allOf of bounds (the strictest wins)",
    schema: {
      allOf: [{ type: "integer", minimum: 0, maximum: 10 }, { minimum: 3 }, { maximum: 8 }],
    },
    values: fc.oneof(smallInt, fc.double({ min: -2, max: 12, noNaN: true })),
  },
  {
    name: "allOf of string lengths and a pattern",
    schema: {
      allOf: [
        { type: "string", maxLength: 5 },
        { minLength: 2, pattern: "^[a-z]+$" },
      ],
    },
    values: text,
  },
  {
    name: "allOf of objects (properties and required add up)",
    schema: {
      allOf: [
        { type: "object", required: ["a"], properties: { a: { type: "string" } } },
        { type: "object", required: ["b"], properties: { b: { type: "integer", minimum: 0 } } },
      ],
    },
    values: fc.record(
      { a: fc.oneof(text, smallInt), b: fc.oneof(smallInt, text), c: json },
      { requiredKeys: [] },
    ),
  },
  {
    name: "allOf of enums (values in common)",
    schema: { allOf: [{ enum: ["a", "b", "c", 1] }, { enum: ["b", "c", 1, 2] }] },
    values: fc.constantFrom("a", "b", "c", 1, 2, "1", null),
  },
  {
    name: "oneOf of primitives with constraints",
    schema: {
      oneOf: [
        { type: "string", maxLength: 2 },
        { type: "number", minimum: 0 },
      ],
    },
    values: fc.oneof(text, smallInt, fc.boolean()),
  },
  {
    name: "oneOf whose alternatives overlap (exactly one must match)",
    schema: { oneOf: [{ type: "integer" }, { type: "number", maximum: 3 }] },
    values: fc.oneof(smallInt, fc.double({ min: -5, max: 10, noNaN: true })),
  },
  {
    name: "anyOf of objects",
    schema: {
      anyOf: [
        { type: "object", required: ["person"], properties: { person: { type: "string" } } },
        {
          type: "object",
          required: ["company"],
          additionalProperties: false,
          properties: { company: { type: "string" }, vat: { type: "string", minLength: 4 } },
        },
      ],
    },
    values: fc.record(
      { person: fc.oneof(text, smallInt), company: fc.oneof(text, smallInt), vat: text },
      { requiredKeys: [] },
    ),
  },
  {
    name: "anyOf with null (nullable) and an array alternative",
    schema: {
      anyOf: [
        { type: "null" },
        { type: "array", items: { type: "integer" }, maxItems: 2 },
        { type: "boolean" },
      ],
    },
    values: fc.oneof(
      fc.array(fc.oneof(smallInt, text), { maxLength: 4 }),
      fc.boolean(),
      fc.constant(null),
    ),
  },
  {
    name: "type list with constraints for each type",
    schema: { type: ["string", "integer"], minLength: 2, minimum: 5 },
    values: fc.oneof(text, smallInt, fc.double({ min: 0, max: 10, noNaN: true })),
  },
  {
    name: "type list with null",
    schema: { type: ["number", "boolean", "null"] },
    values: fc.oneof(smallInt, fc.boolean(), fc.constant(null), text),
  },
  {
    name: "const of an object",
    schema: { const: { size: "a4", copies: 1 } },
    values: fc.oneof(
      fc.constant({ size: "a4", copies: 1 }),
      fc.constant({ copies: 1, size: "a4" }),
      fc.record(
        { size: fc.constantFrom("a4", "a5"), copies: fc.constantFrom(1, 2) },
        { requiredKeys: [] },
      ),
    ),
  },
  {
    name: "enum of mixed JSON values",
    schema: { enum: [true, 0, "x", [1, "y"], { k: null }] },
    values: fc.oneof(
      fc.constantFrom(true, false, 0, 1, "x", "y", [1, "y"], ["y", 1], { k: null }, { k: 0 }),
    ),
  },
];

function hasPrototypeKey(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([key, v]) => key in Object.prototype || hasPrototypeKey(v));
}

describe("differential: generated validator vs Ajv (JSON Schema 2020-12)", () => {
  it("agree on the verdict for allOf, oneOf, anyOf, const, type lists and JSON enums", async () => {
    const dir = projectDir();
    const env = "diff";
    const schemas = join(dir, "schemas");
    writeJson(
      join(schemas, env, "openapi.json"),
      definition(
        CASES.map((c, i) => ({
          id: `wf_case_${i}`,
          name: `Case ${i}`,
          inputs: {
            type: "object",
            additionalProperties: false,
            required: ["f"],
            properties: { f: c.schema },
          },
        })),
        { environment: env },
      ),
    );
    const io = { err: "" };
    const streams = {
      stdout: { write: (_: string) => true },
      stderr: {
        write: (s: string) => {
          io.err += s;
          return true;
        },
      },
    };
    expect(
      await main(["generate", "--schemas", schemas, "--out", join(dir, "gen")], streams),
      io.err,
    ).toBe(0);
    const index = (await import(pathToFileURL(join(dir, "gen", env, "index.js")).href)) as {
      workflows: Record<string, { id: string; validateInputs(v: unknown): { field: string }[] }>;
    };
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    let compared = 0;
    for (const [i, c] of CASES.entries()) {
      const generated = Object.values(index.workflows).find((w) => w.id === `wf_case_${i}`);
      if (!generated) throw new Error(`no generated workflow for case ${c.name}`);
      const reference = ajv.compile({
        type: "object",
        additionalProperties: false,
        required: ["f"],
        properties: { f: c.schema },
      });
      fc.assert(
        fc.property(fc.oneof(c.values, json), (raw) => {
          const value = JSON.parse(JSON.stringify(raw)) as unknown;
          // Ajv's deep equality (const, enum, uniqueItems) calls an object's own
          // `valueOf`/`toString`, so `{"valueOf": 0}` throws inside the reference;
          // the generated validator's handling of such keys is tested in escape.test.ts.
          fc.pre(!hasPrototypeKey(value));
          const body = { f: value };
          const ours = generated.validateInputs(body);
          const theirs = reference(body);
          compared++;
          if ((ours.length === 0) !== theirs)
            throw new Error(
              `${c.name}: ${JSON.stringify(value)} is ${theirs ? "valid" : "invalid"} for Ajv but ${ours.length === 0 ? "valid" : `invalid (${JSON.stringify(ours)})`} for the generated validator`,
            );
          // Every issue the generated validator reports is at the field (never a stray path).
          for (const issue of ours) expect(issue.field.startsWith("f")).toBe(true);
        }),
        { numRuns: RUNS_PER_CASE, seed: 7_000 + i },
      );
    }
    expect(compared).toBe(CASES.length * RUNS_PER_CASE);
  });
});
