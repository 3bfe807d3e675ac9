// The generated validator and the emulator's validator give the same verdict,
// reason code and path for every value: thousands of values per field kind
// and constraint (valid, boundary and invalid), generated with fast-check,
// run through the real generated module (made by the `generate` CLI from a
// definition) and through @wfr/emulator's validateInputs on the same schema.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { validateInputs as emulatorValidate } from "@wfr/emulator";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { capturedOutput, cleanupTempDirs, definition, projectDir, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

const RUNS_PER_CASE = 1000;

interface Case {
  readonly name: string;
  /** The input field's schema, exactly as the definition writes it. */
  readonly schema: Record<string, unknown>;
  /** Values aimed at the field's boundaries, besides arbitrary JSON. */
  readonly values: fc.Arbitrary<unknown>;
  /** Written into an OpenAPI 3.0 definition (boolean exclusive bounds, `nullable`). */
  readonly openapi30?: boolean;
}

const digits = (n: number) =>
  fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, "0"));
const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 8 }), fc.string({ maxLength: 8 }));
const near = (points: readonly number[]) =>
  fc.oneof(
    fc.constantFrom(...points),
    fc.constantFrom(...points).chain((p) => fc.double({ min: p - 1, max: p + 1, noNaN: true })),
    fc.integer({ min: -20, max: 20 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );

const CASES: readonly Case[] = [
  {
    name: "text maxLength (code points)",
    schema: { type: "string", maxLength: 3 },
    values: anyText,
  },
  { name: "text minLength", schema: { type: "string", minLength: 2 }, values: anyText },
  {
    name: "text format email",
    schema: { type: "string", format: "email" },
    values: fc.oneof(
      fc.emailAddress(),
      anyText,
      fc.tuple(anyText, anyText).map(([a, b]) => `${a}@${b}`),
    ),
  },
  {
    name: "text format date",
    schema: { type: "string", format: "date" },
    values: fc.oneof(
      fc.tuple(digits(4), digits(2), digits(2)).map(([y, m, d]) => `${y}-${m}-${d}`),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      anyText,
    ),
  },
  {
    name: "text format date-time",
    schema: { type: "string", format: "date-time" },
    values: fc.oneof(
      fc
        .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
        .map((d) => d.toISOString()),
      fc
        .tuple(digits(2), digits(2), digits(2), fc.constantFrom("Z", "+01:00", "", "x"))
        .map(([h, m, s, z]) => `2024-02-29T${h}:${m}:${s}${z}`),
      anyText,
    ),
  },
  {
    name: "text format uri",
    schema: { type: "string", format: "uri" },
    values: fc.oneof(
      fc.webUrl(),
      anyText,
      anyText.map((t) => `x:${t}`),
      anyText.map((t) => `http://${t}`),
    ),
  },
  {
    name: "text pattern",
    schema: { type: "string", pattern: "^[A-Z]{2}-\\d+$" },
    values: fc.oneof(
      fc.tuple(fc.constantFrom("AB", "ab", "A", "ÄB"), digits(2)).map(([p, n]) => `${p}-${n}`),
      anyText,
    ),
  },
  {
    name: "text nullable with minLength",
    schema: { type: ["string", "null"], minLength: 1 },
    values: fc.oneof(fc.constant(null), anyText),
  },
  {
    name: "number minimum/maximum",
    schema: { type: "number", minimum: 0, maximum: 10 },
    values: near([0, 10]),
  },
  {
    name: "number exclusiveMinimum/exclusiveMaximum (3.1)",
    schema: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
    values: near([0, 1]),
  },
  {
    name: "number exclusive bounds (3.0 boolean form)",
    schema: {
      type: "number",
      minimum: 1,
      exclusiveMinimum: true,
      maximum: 5,
      exclusiveMaximum: true,
    },
    values: near([1, 5]),
    openapi30: true,
  },
  {
    name: "number multipleOf",
    schema: { type: "number", multipleOf: 0.01 },
    values: fc.oneof(
      fc.integer({ min: -100000, max: 100000 }).map((n) => n / 100),
      fc.integer({ min: -100000, max: 100000 }).map((n) => n / 1000),
      near([0]),
    ),
  },
  {
    name: "integer minimum/maximum/multipleOf",
    schema: { type: "integer", minimum: -3, maximum: 3, multipleOf: 2 },
    values: fc.oneof(near([-3, 3]), fc.constantFrom(2 ** 53, -(2 ** 60), 1e21)),
  },
  {
    name: "enum of text",
    schema: { type: "string", enum: ["a", "bb", "ccc"] },
    values: fc.oneof(fc.constantFrom("a", "bb", "ccc", "A", ""), anyText),
  },
  {
    name: "boolean",
    schema: { type: "boolean" },
    values: fc.oneof(fc.boolean(), fc.constantFrom(0, 1, "true")),
  },
  {
    name: "array minItems/maxItems/uniqueItems of short text",
    schema: {
      type: "array",
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
      items: { type: "string", maxLength: 2 },
    },
    values: fc.array(fc.oneof(fc.constantFrom("a", "b", "abc"), anyText, fc.integer()), {
      maxLength: 5,
    }),
  },
  {
    name: "object with a required patterned field and a bounded one",
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["code"],
      properties: {
        code: { type: "string", pattern: "^[a-z]+$" },
        size: { type: "integer", minimum: 1 },
      },
    },
    values: fc.record(
      {
        code: fc.oneof(fc.constantFrom("abc", "ABC", ""), anyText),
        size: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant("1")),
        extra: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  },
];

const caseField = (i: number) => `v${i}`;

function inputsSchema(c: Case, i: number): Record<string, unknown> {
  return { type: "object", additionalProperties: false, properties: { [caseField(i)]: c.schema } };
}

type Verdict = string[];

function verdictOf(details: readonly { field: string; reason: string }[]): Verdict {
  return details.map((d) => `${d.field} ${d.reason}`).sort();
}

describe("differential: generated validator vs emulator validator", () => {
  it("agree on verdict, reason code and path for every field kind and constraint", async () => {
    const dir = projectDir();
    const schemas = join(dir, "schemas");
    const workflows = (openapi30: boolean) =>
      CASES.flatMap((c, i) =>
        (c.openapi30 ?? false) === openapi30
          ? [{ id: `wf_case_${i}`, name: `Case ${i}`, inputs: inputsSchema(c, i) }]
          : [],
      );
    writeJson(
      join(schemas, "modern", "openapi.json"),
      definition(workflows(false), { environment: "modern" }),
    );
    writeJson(
      join(schemas, "legacy", "openapi.json"),
      definition(workflows(true), { environment: "legacy", openapi: "3.0.3" }),
    );
    const { io, streams } = capturedOutput();
    expect(
      await main(["generate", "--schemas", schemas, "--out", join(dir, "gen")], streams),
      io.err,
    ).toBe(0);

    let compared = 0;
    for (const [i, c] of CASES.entries()) {
      const env = c.openapi30 ? "legacy" : "modern";
      const index = (await import(pathToFileURL(join(dir, "gen", env, "index.js")).href)) as {
        workflows: Record<
          string,
          { id: string; validateInputs(inputs: unknown): { field: string; reason: string }[] }
        >;
      };
      const generated = Object.values(index.workflows).find((w) => w.id === `wf_case_${i}`);
      if (!generated) throw new Error(`no generated workflow for case ${c.name}`);
      const schema = inputsSchema(c, i);
      const inputs = fc
        .tuple(
          fc.oneof({ weight: 3, arbitrary: c.values }, { weight: 1, arbitrary: fc.jsonValue() }),
          fc.boolean(),
        )
        // The wire: both sides see what JSON carries; sometimes an undeclared key rides along.
        .map(([value, extra]) =>
          JSON.parse(
            JSON.stringify({ [caseField(i)]: value ?? null, ...(extra ? { stray: 1 } : {}) }),
          ),
        );
      fc.assert(
        fc.property(inputs, (body) => {
          compared++;
          const expected = verdictOf(emulatorValidate(schema, body).details);
          expect(
            verdictOf(generated.validateInputs(body)),
            `${c.name}: ${JSON.stringify(body)}`,
          ).toEqual(expected);
        }),
        { numRuns: RUNS_PER_CASE, seed: 7_2026 + i },
      );
    }
    expect(compared).toBe(CASES.length * RUNS_PER_CASE);
  }, 240_000);
});
