// Depth is a limit, not a crash: schemas nested past MAX_SCHEMA_NESTING (objects,
// arrays, allOf, anyOf, a chain of $refs) are refused with a DefinitionError at
// the schema's file#pointer, at ten times the limit and at 5,000 levels alike,
// and a definition just under the limit generates validators that work at
// that depth (docs/definition-format.md#schema-nesting).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { MAX_SCHEMA_NESTING } from "@wfr/definition-reader";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { generate } from "../src/generate.js";
import { readDefinition } from "../src/read-definition.js";
import { MAX_VALUE_NESTING } from "../src/shared-modules/plain-data.js";
import { cleanupTempDirs, definition, projectDir, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

/** Each nesting as the JSON text before and after the inner schema (JSON.stringify itself overflows at 5,000 levels). */
const NESTINGS = {
  object: ['{"type":"object","properties":{"a":', "}}"],
  array: ['{"type":"array","items":', "}"],
  allOf: ['{"allOf":[', "]}"],
  "anyOf with null": ['{"anyOf":[', ',{"type":"null"}]}'],
  anyOf: ['{"anyOf":[', ',{"type":"number"}]}'],
} as const;

/** A definition whose one workflow has the input `v` (and, for the chain, `components.schemas`), as JSON text. */
function definitionText(input: string, components = "{}"): string {
  return `{"openapi":"3.1.0","info":{"title":"t","version":"1","x-environment":"t"},"servers":[{"url":"https://api.example.test/api/v1"}],"paths":{"/automations/wf_a/runs":{"post":{"x-workflow":{"id":"wf_a","name":"Deep"},"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"inputs":{"type":"object","additionalProperties":false,"properties":{"v":${input}}}}}}}}}}},"components":{"schemas":${components}}}`;
}

function nested(kind: keyof typeof NESTINGS, depth: number): string {
  const [open, close] = NESTINGS[kind];
  return `${open.repeat(depth)}{"type":"string"}${close.repeat(depth)}`;
}

/** `S0 -> S1 -> ... -> S<length>`, the last one a string schema. */
function refChain(length: number): string {
  const links = Array.from(
    { length },
    (_, i) => `"S${i}":{"$ref":"#/components/schemas/S${i + 1}"}`,
  );
  return `{${links.join(",")},"S${length}":{"type":"string"}}`;
}

/** Writes the definition under `dir` (default: a new folder) as `schemas/t/openapi.json`. */
function writeDefinition(text: string, dir = tempDir()): string {
  mkdirSync(join(dir, "schemas", "t"), { recursive: true });
  writeFileSync(join(dir, "schemas", "t", "openapi.json"), text);
  return dir;
}

function errorOf(text: string): DefinitionError {
  const dir = writeDefinition(text);
  try {
    readDefinition(join(dir, "schemas", "t", "openapi.json"));
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError");
}

const INPUT_POINTER =
  "/paths/~1automations~1wf_a~1runs/post/requestBody/content/application~1json/schema/properties/inputs/properties/v";

describe("schemas nested past the limit", () => {
  for (const depth of [10 * MAX_SCHEMA_NESTING, 5_000])
    for (const kind of Object.keys(NESTINGS) as (keyof typeof NESTINGS)[])
      it(`refuses ${kind} nested ${depth} deep at the schema past the limit`, () => {
        const error = errorOf(definitionText(nested(kind, depth)));
        expect(error.file).toBe("t/openapi.json");
        expect(error.pointer.startsWith(INPUT_POINTER)).toBe(true);
        expect(error.pointer.length).toBeGreaterThan(INPUT_POINTER.length + MAX_SCHEMA_NESTING);
        expect(error.detail).toMatch(
          `nests more than ${MAX_SCHEMA_NESTING} schemas deep; a definition may nest at most ${MAX_SCHEMA_NESTING}`,
        );
        expect(error.message).not.toMatch(/Maximum call stack/);
      });

  for (const length of [10 * MAX_SCHEMA_NESTING, 5_000])
    it(`refuses a chain of ${length} $refs to $refs where it passes the limit`, () => {
      const error = errorOf(definitionText('{"$ref":"#/components/schemas/S0"}', refChain(length)));
      expect(error.pointer).toMatch(/^\/components\/schemas\/S\d+$/);
      expect(error.detail).toMatch(`nests more than ${MAX_SCHEMA_NESTING} schemas deep`);
    });
});

describe("schemas nested under the limit", () => {
  it("generate, and their validator checks values at that depth", async () => {
    const depth = MAX_SCHEMA_NESTING - 10;
    const dir = writeDefinition(definitionText(nested("object", depth)), projectDir());
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "t", "deep.js")).href)) as {
      deep: { validateInputs(v: unknown): { field: string; reason: string }[] };
    };
    const value = (leaf: unknown) => {
      let v: unknown = leaf;
      for (let i = 0; i < depth; i++) v = { a: v };
      return { v };
    };
    expect(mod.deep.validateInputs(value("x"))).toEqual([]);
    const [issue, ...more] = mod.deep.validateInputs(value(1));
    expect(more).toEqual([]);
    expect(issue?.reason).toBe("INVALID_TYPE");
    expect(issue?.field).toBe(`v${".a".repeat(depth)}`);
  });

  it("a chain of $refs just under the limit is followed", () => {
    const dir = writeDefinition(
      definitionText('{"$ref":"#/components/schemas/S0"}', refChain(MAX_SCHEMA_NESTING - 10)),
    );
    const model = readDefinition(join(dir, "schemas", "t", "openapi.json"));
    expect(model.workflows[0]?.inputs[0]?.kind).toBe("text");
  });
});

describe("values nested deeper than the validators read", () => {
  it("are refused with an issue, never a stack overflow; values under MAX_VALUE_NESTING are read", async () => {
    const free = { j: { type: ["object", "array"] }, o: { type: "object" } };
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        [
          {
            id: "wf_a",
            name: "Deep",
            inputs: { type: "object", additionalProperties: false, properties: free },
            outputs: { type: "object", properties: free },
          },
        ],
        { environment: "t" },
      ),
    );
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "t", "deep.js")).href)) as {
      deep: {
        validateInputs(v: unknown): { field: string; reason: string; message: string }[];
        readOutputs(v: unknown): unknown;
      };
    };
    const arrays = (depth: number) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    };
    const objects = (depth: number) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = { a: v };
      return v;
    };
    expect(mod.deep.validateInputs({ j: arrays(900), o: objects(900) })).toEqual([]);
    for (const depth of [10 * MAX_VALUE_NESTING, 100_000]) {
      expect(mod.deep.validateInputs({ j: arrays(depth) })).toEqual([
        {
          field: "",
          reason: "INVALID_TYPE",
          message: `Invalid input: nested more than ${MAX_VALUE_NESTING} levels deep`,
        },
      ]);
      expect(mod.deep.validateInputs({ o: objects(depth) })).toHaveLength(1);
      expect(() => mod.deep.readOutputs({ j: arrays(depth) })).toThrow(/nested more than/);
    }
  });
});
