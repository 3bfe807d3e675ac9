// Three shapes teams write every day, each read end to end (type, validator,
// output reader): an enum made nullable by an `anyOf` with `{type: null}`
// (the nullable form docs/definition-format.md names) or by 3.0's
// `nullable: true`, an object with declared properties and an
// `additionalProperties` schema for the rest, and a closed object declaring a
// field named `__proto__`. Generated once (two environments), type-checked
// by one TypeScript program with the schemas' agreement sources.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitSchemaCheckSources } from "../../src/emit/emit.js";
import { generate } from "../../src/generate.js";
import {
  cleanupTempDirs,
  definition,
  lineOf,
  projectDir,
  typeCheck,
  writeJson,
} from "../helpers.js";

afterAll(cleanupTempDirs);

interface Workflow {
  validateInputs(v: unknown): { field: string; reason: string }[];
  readOutputs(v: unknown): unknown;
}

const PROTO = JSON.parse('{"__proto__": {"type": "number"}, "a": {"type": "string"}}');

/** A workflow whose input (closed) and output `v` have `schema`. */
function workflow(id: string, name: string, schema: unknown) {
  const object = (closed: boolean) => ({
    type: "object",
    required: ["v"],
    ...(closed ? { additionalProperties: false } : {}),
    properties: { v: schema },
  });
  return { id, name, inputs: object(true), outputs: object(false) };
}

const APP = [
  `import type { Inputs as NullInputs, Outputs as NullOutputs } from "./gen/t/nullEnum.js";`,
  `import type { Inputs as Null30Inputs } from "./gen/d/nullEnum.js";`,
  `import type { Inputs as MapInputs, Outputs as MapOutputs } from "./gen/t/declaredMap.js";`,
  "export const none: NullInputs = { v: null };",
  `export const some: NullInputs = { v: "a" };`,
  `export const other: NullInputs = { v: "c" }; // BAD_VALUE`,
  `export function read(o: NullOutputs): "a" | "b" | null { return o.v; }`,
  "export const readNull: NullOutputs = { v: null };",
  "export const none30: Null30Inputs = { v: null };",
  `export const declared: MapInputs = { v: { a: "x" } };`,
  `export const both: MapInputs = { v: { a: "x", b: true, n: 1 } };`,
  // Any other key holds a number or one of the declared types (TypeScript wants every
  // member to fit the index signature), so only a value of none of them is refused.
  `export const badRest: MapInputs = { v: { a: "x", n: [1] } }; // BAD_REST`,
  `export const badDeclared: MapInputs = { v: { a: 1 } }; // BAD_DECLARED`,
  "export function readA(o: MapOutputs): string { return o.v.a; }",
  `export function readN(o: MapOutputs): number | undefined { return o.v["n"] as number | undefined; }`,
  "export function wrongA(o: MapOutputs): number { return o.v.a; } // BAD_READ",
].join("\n");

let workflows: Record<string, Workflow>;
let diagnostics: ReturnType<typeof typeCheck>;

beforeAll(async () => {
  const dir = projectDir();
  const nullEnum = { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] };
  writeJson(
    join(dir, "schemas", "t", "openapi.json"),
    definition(
      [
        workflow("wf_n", "Null enum", nullEnum),
        workflow("wf_m", "Declared map", {
          type: "object",
          required: ["a"],
          properties: { a: { type: "string" }, b: { type: "boolean" } },
          additionalProperties: { type: "number" },
        }),
        workflow("wf_p", "Proto", {
          type: "object",
          additionalProperties: false,
          properties: PROTO,
        }),
        {
          id: "wf_r",
          name: "Proto root",
          inputs: {
            type: "object",
            additionalProperties: false,
            properties: JSON.parse('{"__proto__": {"type": "number"}}'),
          },
        },
      ],
      { environment: "t" },
    ),
  );
  writeJson(
    join(dir, "schemas", "d", "openapi.json"),
    definition(
      [workflow("wf_n", "Null enum", { type: "string", enum: ["a", "b"], nullable: true })],
      { environment: "d", openapi: "3.0.3" },
    ),
  );
  const { models } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
  const roots = ["app.ts"];
  for (const [path, content] of emitSchemaCheckSources(models)) {
    writeFileSync(join(dir, "gen", path), content);
    roots.push(join("gen", path));
  }
  writeFileSync(join(dir, "app.ts"), APP);
  diagnostics = typeCheck(dir, roots, { exactOptionalPropertyTypes: true });
  workflows = {};
  for (const env of ["t", "d"]) {
    const index = (await import(pathToFileURL(join(dir, "gen", env, "index.js")).href)) as {
      workflows: Record<string, Workflow>;
    };
    for (const [name, wf] of Object.entries(index.workflows)) workflows[`${env}.${name}`] = wf;
  }
});

const wf = (key: string) => workflows[key] as Workflow;

describe("the generated types", () => {
  it("refuse exactly the invalid documents and wrong reads, and agree with the schemas", () => {
    expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
    expect([...new Set(diagnostics.map((d) => d.line))].sort((a, b) => a - b)).toEqual(
      ["BAD_VALUE", "BAD_REST", "BAD_DECLARED", "BAD_READ"].map((m) => lineOf(APP, m)),
    );
  });
});

describe("an enum made nullable by anyOf [enum, {type: null}] or 3.0's nullable", () => {
  it("keeps its null in the input validator and the output reader", () => {
    expect(wf("t.nullEnum").validateInputs({ v: null })).toEqual([]);
    expect(wf("t.nullEnum").validateInputs({ v: "a" })).toEqual([]);
    expect(wf("t.nullEnum").validateInputs({ v: "c" })).toMatchObject([{ reason: "INVALID_TYPE" }]);
    expect(wf("t.nullEnum").readOutputs({ v: null })).toEqual({ v: null });
    expect(wf("d.nullEnum").validateInputs({ v: null })).toEqual([]);
  });
});

describe("an object with properties and an additionalProperties schema", () => {
  it("validates declared properties as declared, and every other key as the rest's schema", () => {
    const map = wf("t.declaredMap");
    expect(map.validateInputs({ v: { a: "x", n: 1 } })).toEqual([]);
    expect(map.validateInputs({ v: { a: "x", n: "1" } })).toMatchObject([
      { field: "v.n", reason: "INVALID_TYPE" },
    ]);
    expect(map.readOutputs({ v: { a: "x", b: false, n: 2 } })).toEqual({
      v: { a: "x", b: false, n: 2 },
    });
  });
});

describe("a closed object declaring a field named __proto__", () => {
  it("accepts that field (it is declared, not unknown) and still rejects undeclared keys", () => {
    const proto = wf("t.proto");
    expect(proto.validateInputs({ v: JSON.parse('{"__proto__": 1, "a": "x"}') })).toEqual([]);
    expect(proto.validateInputs({ v: JSON.parse('{"__proto__": "x"}') })).toMatchObject([
      { field: "v.__proto__", reason: "INVALID_TYPE" },
    ]);
    expect(proto.validateInputs({ v: JSON.parse('{"__proto__": 1, "z": 1}') })).toMatchObject([
      { field: "v.z", reason: "UNKNOWN_INPUT" },
    ]);
  });

  it("accepts it at the root of the inputs, which is always closed", () => {
    const root = wf("t.protoRoot");
    expect(root.validateInputs(JSON.parse('{"__proto__": 1}'))).toEqual([]);
    expect(root.validateInputs(JSON.parse('{"x": 1}'))).toMatchObject([
      { reason: "UNKNOWN_INPUT" },
    ]);
  });
});
