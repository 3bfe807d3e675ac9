// A property of the generated code: every document valid for a schema is
// accepted by the generated validators and is assignable to the generated
// `Inputs` and `Outputs` types (a false type error is as bad as a missed
// one). Schemas and their valid documents come from a seeded generator over
// the shapes teams write (nullable enums and objects, maps with declared
// properties, nested arrays and objects, anyOf); all of them are generated
// once and type-checked by one TypeScript program.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { cleanupTempDirs, definition, projectDir, typeCheck, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

type Schema = Record<string, unknown>;

const NAMES = ["a", "b", "class", "x-y", "é", "two words"];
const ENUM_TEXT = ["a", "b", "c d", "é"];

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.constantFrom<Schema>(
    { type: "string" },
    { type: "number" },
    { type: "integer" },
    { type: "boolean" },
    { type: ["string", "null"] },
    {},
  ),
  fc
    .uniqueArray(fc.constantFrom(...ENUM_TEXT), { minLength: 1, maxLength: 3 })
    .map((values) => ({ type: "string", enum: values })),
);

function objectSchema(inner: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc
    .record({
      properties: fc.dictionary(fc.constantFrom(...NAMES), inner, { maxKeys: 3 }),
      required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
      additional: fc.oneof(fc.constantFrom<unknown>(undefined, false, true), inner),
    })
    .map(({ properties, required, additional }) => ({
      type: "object",
      properties,
      required: required.filter((name) => Object.hasOwn(properties, name)),
      ...(additional !== undefined ? { additionalProperties: additional } : {}),
    }));
}

function schemaOf(depth: number): fc.Arbitrary<Schema> {
  if (depth === 0) return leaf;
  const inner = schemaOf(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 2, arbitrary: inner.map((s) => ({ anyOf: [s, { type: "null" }] })) },
    { weight: 3, arbitrary: objectSchema(inner) },
    { weight: 2, arbitrary: inner.map((s) => ({ type: "array", items: s })) },
    { weight: 1, arbitrary: fc.tuple(inner, inner).map(([a, b]) => ({ anyOf: [a, b] })) },
  );
}

const ANY_JSON: fc.Arbitrary<unknown> = fc.constantFrom(1, "x", null, true, { k: [1, "y"] }, []);

/** Documents valid for `schema` (the generator above only writes schemas it can satisfy). */
function documentOf(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((s) => documentOf(s)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const type = schema.type;
  if (Array.isArray(type))
    return fc.oneof(...type.map((t) => documentOf({ ...schema, type: t as string })));
  switch (type) {
    case "null":
      return fc.constant(null);
    case "string":
      return fc.string({ maxLength: 4, unit: "grapheme" });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (n === 0 ? 0 : n));
    case "integer":
      return fc.integer();
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(documentOf(schema.items as Schema), { maxLength: 2 });
    case "object":
      return objectDocument(schema);
    default:
      return ANY_JSON;
  }
}

function objectDocument(schema: Schema): fc.Arbitrary<unknown> {
  const properties = schema.properties as Record<string, Schema>;
  const required = new Set(schema.required as string[]);
  const members = Object.fromEntries(
    Object.entries(properties).map(([name, s]) => [
      name,
      required.has(name) ? documentOf(s) : fc.option(documentOf(s), { nil: undefined }),
    ]),
  );
  const additional = schema.additionalProperties;
  const extra =
    additional === false
      ? fc.constant({})
      : fc.dictionary(
          fc.constantFrom("extra_1", "extra_2"),
          additional === undefined || additional === true
            ? ANY_JSON
            : documentOf(additional as Schema),
          { maxKeys: 2 },
        );
  return fc.tuple(fc.record(members), extra).map(([declared, more]) => {
    const out: Record<string, unknown> = { ...more };
    for (const [k, v] of Object.entries(declared)) if (v !== undefined) out[k] = v;
    return out;
  });
}

interface Sample {
  readonly schema: Schema;
  readonly documents: readonly unknown[];
}

const SAMPLES: readonly Sample[] = fc
  .sample(
    schemaOf(3).chain((schema) =>
      fc
        .array(documentOf(schema), { minLength: 3, maxLength: 3 })
        .map((documents) => ({ schema, documents })),
    ),
    { numRuns: 40, seed: 37 },
  )
  .map((s) => s as Sample);

interface Workflow {
  validateInputs(v: unknown): unknown[];
  checkOutputs(v: unknown): unknown[];
}

describe("valid documents and the generated code", () => {
  it("are accepted by the validators and assignable to Inputs and Outputs", async () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        SAMPLES.map((sample, i) => ({
          id: `wf_${i}`,
          name: `Case ${i}`,
          inputs: {
            type: "object",
            additionalProperties: false,
            required: ["doc"],
            properties: { doc: sample.schema },
          },
          outputs: { type: "object", required: ["doc"], properties: { doc: sample.schema } },
        })),
        { environment: "t" },
      ),
    );
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const index = (await import(pathToFileURL(join(dir, "gen", "t", "index.js")).href)) as {
      workflows: Record<string, Workflow & { id: string }>;
    };
    const byId = new Map(Object.values(index.workflows).map((w) => [w.id, w]));
    const lines: string[] = [
      // A value as JSON.parse gives it (mutable, no excess-key check), with its literal types.
      "type Parsed<T> = T extends readonly (infer U)[] ? Parsed<U>[] : T extends object ? { -readonly [K in keyof T]: Parsed<T[K]> } : T;",
      "declare function parsed<const T>(value: T): Parsed<T>;",
    ];
    const where = new Map<number, string>();
    SAMPLES.forEach((sample, i) => {
      lines.push(`import type { Inputs as I${i}, Outputs as O${i} } from "./gen/t/case${i}.js";`);
      sample.documents.forEach((doc, j) => {
        const workflow = byId.get(`wf_${i}`) as Workflow;
        const what = `${JSON.stringify(sample.schema)} / ${JSON.stringify(doc)}`;
        expect(workflow.validateInputs({ doc }), what).toEqual([]);
        expect(workflow.checkOutputs({ doc }), what).toEqual([]);
        // Inputs are checked as a fresh literal (excess keys count); outputs as a value the
        // service sent (any object holding them, so no excess-key check).
        lines.push(`export const i${i}_${j}: I${i} = { doc: ${JSON.stringify(doc)} };`);
        where.set(lines.length, what);
        lines.push(`export const o${i}_${j}: O${i} = parsed({ doc: ${JSON.stringify(doc)} });`);
        where.set(lines.length, what);
      });
    });
    writeFileSync(join(dir, "app.ts"), lines.join("\n"));
    const diagnostics = typeCheck(dir, ["app.ts"], { exactOptionalPropertyTypes: true });
    expect(
      diagnostics.map((d) => `${where.get(d.line) ?? d.file}: ${d.message.split("\n")[0]}`),
    ).toEqual([]);
  });
});
