// Three shapes teams write every day, each read end to end (type, validator,
// output reader): an enum made nullable by an `anyOf` with `{type: null}`
// (the nullable form docs/definition-format.md names), an object with declared
// properties and an `additionalProperties` schema for the rest, and a closed
// object declaring a field named `__proto__`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
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
  checkOutputs(v: unknown): { field: string }[];
  readOutputs(v: unknown): unknown;
}

/** Generates one workflow with `schema` as the input and the output `v`; type-checks `app` beside it, if any. */
async function generateOne(
  schema: unknown,
  app?: (imports: string) => string[],
  openapi = "3.1.0",
) {
  const dir = projectDir();
  const object = (closed: boolean) => ({
    type: "object",
    required: ["v"],
    ...(closed ? { additionalProperties: false } : {}),
    properties: { v: schema },
  });
  writeJson(
    join(dir, "schemas", "t", "openapi.json"),
    definition([{ id: "wf_s", name: "Shape", inputs: object(true), outputs: object(false) }], {
      environment: "t",
      openapi,
    }),
  );
  const { models } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
  const mod = (await import(pathToFileURL(join(dir, "gen", "t", "shape.js")).href)) as {
    shape: Workflow;
  };
  if (app === undefined) return { source: "", diagnostics: [], workflow: mod.shape };
  const roots = ["app.ts"];
  for (const [path, content] of emitSchemaCheckSources(models)) {
    writeFileSync(join(dir, "gen", path), content);
    roots.push(join("gen", path));
  }
  const source = app(`import type { Inputs, Outputs } from "./gen/t/shape.js";`).join("\n");
  writeFileSync(join(dir, "app.ts"), source);
  const diagnostics = typeCheck(dir, roots, { exactOptionalPropertyTypes: true });
  return { source, diagnostics, workflow: mod.shape };
}

describe("an enum made nullable by anyOf [enum, {type: null}]", () => {
  it("keeps its null in the type, the input validator and the output reader", async () => {
    const { source, diagnostics, workflow } = await generateOne(
      { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
      (imports) => [
        imports,
        "export const none: Inputs = { v: null };",
        `export const some: Inputs = { v: "a" };`,
        `export const other: Inputs = { v: "c" }; // BAD_VALUE`,
        `export function read(o: Outputs): "a" | "b" | null { return o.v; }`,
        "export const read_null: Outputs = { v: null };",
      ],
    );
    expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
    expect(diagnostics.map((d) => d.line)).toEqual([lineOf(source, "BAD_VALUE")]);
    expect(workflow.validateInputs({ v: null })).toEqual([]);
    expect(workflow.validateInputs({ v: "a" })).toEqual([]);
    expect(workflow.validateInputs({ v: "c" })).toMatchObject([{ reason: "INVALID_TYPE" }]);
    expect(workflow.readOutputs({ v: null })).toEqual({ v: null });
  });

  it("keeps its null in the 3.0 form too (nullable: true beside the enum)", async () => {
    const { diagnostics, workflow } = await generateOne(
      { type: "string", enum: ["a", "b"], nullable: true },
      (imports) => [imports, "export const none: Inputs = { v: null };"],
      "3.0.3",
    );
    expect(diagnostics).toEqual([]);
    expect(workflow.validateInputs({ v: null })).toEqual([]);
  });
});

describe("an object with properties and an additionalProperties schema", () => {
  it("types its declared properties as declared, and every other key as the rest's schema", async () => {
    const { source, diagnostics, workflow } = await generateOne(
      {
        type: "object",
        required: ["a"],
        properties: { a: { type: "string" }, b: { type: "boolean" } },
        additionalProperties: { type: "number" },
      },
      (imports) => [
        imports,
        `export const declared: Inputs = { v: { a: "x" } };`,
        `export const both: Inputs = { v: { a: "x", b: true, n: 1 } };`,
        // Any other key holds a number or one of the declared types (TypeScript wants every
        // member to fit the index signature), so only a value of none of them is refused.
        `export const badRest: Inputs = { v: { a: "x", n: [1] } }; // BAD_REST`,
        `export const badDeclared: Inputs = { v: { a: 1 } }; // BAD_DECLARED`,
        "export function readA(o: Outputs): string { return o.v.a; }",
        `export function readN(o: Outputs): number | undefined { return o.v["n"] as number | undefined; }`,
        "export function wrongA(o: Outputs): number { return o.v.a; } // BAD_READ",
      ],
    );
    expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
    expect([...new Set(diagnostics.map((d) => d.line))].sort()).toEqual(
      [
        lineOf(source, "BAD_REST"),
        lineOf(source, "BAD_DECLARED"),
        lineOf(source, "BAD_READ"),
      ].sort(),
    );
    expect(workflow.validateInputs({ v: { a: "x", n: 1 } })).toEqual([]);
    expect(workflow.validateInputs({ v: { a: "x", n: "1" } })).toMatchObject([
      { field: "v.n", reason: "INVALID_TYPE" },
    ]);
    expect(workflow.readOutputs({ v: { a: "x", b: false, n: 2 } })).toEqual({
      v: { a: "x", b: false, n: 2 },
    });
  });
});

describe("a closed object declaring a field named __proto__", () => {
  it("accepts that field (it is declared, not unknown) and still rejects undeclared keys", async () => {
    const { workflow } = await generateOne({
      type: "object",
      additionalProperties: false,
      properties: JSON.parse('{"__proto__": {"type": "number"}, "a": {"type": "string"}}'),
    });
    expect(workflow.validateInputs({ v: JSON.parse('{"__proto__": 1, "a": "x"}') })).toEqual([]);
    expect(workflow.validateInputs({ v: JSON.parse('{"__proto__": "x"}') })).toMatchObject([
      { field: "v.__proto__", reason: "INVALID_TYPE" },
    ]);
    expect(workflow.validateInputs({ v: JSON.parse('{"__proto__": 1, "z": 1}') })).toMatchObject([
      { field: "v.z", reason: "UNKNOWN_INPUT" },
    ]);
  });

  it("accepts it at the root of the inputs, which is always closed", async () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        [
          {
            id: "wf_p",
            name: "Proto",
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
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "t", "proto.js")).href)) as {
      proto: Workflow;
    };
    expect(mod.proto.validateInputs(JSON.parse('{"__proto__": 1}'))).toEqual([]);
    expect(mod.proto.validateInputs(JSON.parse('{"x": 1}'))).toMatchObject([
      { reason: "UNKNOWN_INPUT" },
    ]);
  });
});
