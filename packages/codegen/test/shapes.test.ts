// Faithful types for every shape (issue 7, section 2): free-form objects
// and maps keep their value type on both sides, and the shapes the model
// cannot express fail with the file and JSON pointer instead of becoming a
// silent `unknown` or an impossible `never`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { emitSchemaCheckSources } from "../src/emit.js";
import { generate } from "../src/generate.js";
import { readSchemas } from "../src/read-definition.js";
import {
  cleanupTempDirs,
  definition,
  lineOf,
  projectDir,
  tempDir,
  typeCheck,
  writeJson,
} from "./helpers.js";

afterAll(cleanupTempDirs);

const TYPE_CHECK_TIMEOUT = 120_000;

const shapes = {
  type: "object",
  additionalProperties: false,
  required: ["free", "counts", "tags_by_key"],
  properties: {
    free: { type: "object" },
    counts: { type: "object", additionalProperties: { type: "integer" } },
    tags_by_key: {
      type: "object",
      additionalProperties: { type: "array", items: { type: "string" } },
    },
    open: { type: "object", additionalProperties: true },
    flag: { enum: [true] },
  },
};

const outputs = {
  type: "object",
  required: ["meta", "totals"],
  properties: {
    meta: { type: "object" },
    totals: { type: "object", additionalProperties: { type: "number" } },
    closed: { type: "object", properties: {}, additionalProperties: false },
  },
};

describe("free-form objects and maps", () => {
  it(
    "become JSON objects / Record<string, T> on both sides; schemas agree under strict options; values validate",
    async () => {
      const dir = projectDir();
      writeJson(
        join(dir, "schemas", "t", "openapi.json"),
        definition([{ id: "wf_s", name: "Shapes", inputs: shapes, outputs }], {
          environment: "t",
        }),
      );
      const { models } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
      const roots = ["app.ts"];
      for (const [path, content] of emitSchemaCheckSources(models)) {
        writeFileSync(join(dir, "gen", path), content);
        roots.push(join("gen", path));
      }
      const app = [
        `import type { Inputs, Outputs } from "./gen/t/shapes.js";`,
        `export const ok: Inputs = { free: { a: [1, { b: null }] }, counts: { x: 1 }, tags_by_key: { k: ["a"] }, open: { z: true }, flag: true };`,
        `export const badCount: Inputs = { free: {}, counts: { x: "1" }, tags_by_key: {} }; // BAD_COUNT`,
        `export const badFlag: Inputs = { free: {}, counts: {}, tags_by_key: {}, flag: false }; // BAD_FLAG`,
        "export function read(o: Outputs): number | undefined {",
        `  const m: Record<string, unknown> = o.meta;`,
        `  return o.totals["x"] ?? (m ? 0 : 1);`,
        "}",
        `export function bad(o: Outputs): string | undefined { return o.totals["x"]; } // BAD_TOTAL`,
      ].join("\n");
      writeFileSync(join(dir, "app.ts"), app);
      const diagnostics = typeCheck(dir, roots, { exactOptionalPropertyTypes: true });
      expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
      expect([...new Set(diagnostics.map((d) => d.line))].sort()).toEqual(
        [lineOf(app, "BAD_COUNT"), lineOf(app, "BAD_FLAG"), lineOf(app, "BAD_TOTAL")].sort(),
      );

      const mod = (await import(pathToFileURL(join(dir, "gen", "t", "shapes.js")).href)) as {
        shapes: {
          validateInputs(v: unknown): { field: string; reason: string }[];
          checkOutputs(v: unknown): { field: string }[];
        };
      };
      const valid = { free: { a: 1 }, counts: { x: 1 }, tags_by_key: { k: ["a"] } };
      expect(mod.shapes.validateInputs(valid)).toEqual([]);
      expect(mod.shapes.validateInputs({ ...valid, counts: { x: 1.5 } })).toMatchObject([
        { field: "counts.x", reason: "INVALID_TYPE" },
      ]);
      expect(mod.shapes.validateInputs({ ...valid, free: "{}" })).toMatchObject([
        { field: "free", reason: "INVALID_TYPE" },
      ]);
      expect(mod.shapes.checkOutputs({ meta: { any: [1] }, totals: { a: 2 }, extra: 1 })).toEqual(
        [],
      );
      expect(mod.shapes.checkOutputs({ meta: {}, totals: { a: "2" } })).toMatchObject([
        { field: "totals.a" },
      ]);
    },
    TYPE_CHECK_TIMEOUT,
  );
});

function errorOf(inputs: Record<string, unknown>): DefinitionError {
  const dir = tempDir();
  writeJson(
    join(dir, "env", "openapi.json"),
    definition([
      {
        id: "wf_1",
        name: "One",
        inputs: { type: "object", additionalProperties: false, properties: inputs },
      },
    ]),
  );
  try {
    readSchemas(dir);
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError");
}

describe("shapes the model cannot express fail with file and pointer, never a silent unknown", () => {
  const P = "/components/schemas/Workflow_wf_1_Inputs/properties";
  const cases: [string, unknown, RegExp][] = [
    ["allOf", { allOf: [{ type: "string" }, { maxLength: 3 }] }, /`allOf` is not supported/],
    [
      "allOf [$ref] + nullable (3.0 idiom)",
      { allOf: [{ $ref: "#/components/schemas/FileOutput" }], nullable: true },
      /`allOf` is not supported/,
    ],
    ["oneOf of primitives", { oneOf: [{ type: "string" }, { type: "number" }] }, /`oneOf`/],
    [
      "anyOf of objects",
      { anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object" }] },
      /`anyOf`/,
    ],
    ["const", { const: "x" }, /`const` is not supported/],
    ["type [string, number]", { type: ["string", "number"] }, /`type: \["string","number"\]`/],
    ["enum: []", { type: "string", enum: [] }, /`enum` allows no value/],
    ["object enum values", { enum: [{ a: 1 }] }, /`enum` value \{"a":1\} is not supported/],
    ["allOf beside a type", { type: "object", allOf: [{ type: "object" }] }, /`allOf`/],
    [
      "properties with an additionalProperties schema",
      {
        type: "object",
        properties: { a: { type: "string" } },
        additionalProperties: { type: "string" },
      },
      /additionalProperties/,
    ],
  ];
  for (const [name, schema, message] of cases) {
    it(name, () => {
      const e = errorOf({ f: schema });
      expect(e.file).toBe("env/openapi.json");
      expect(e.pointer).toBe(`${P}/f`);
      expect(e.message).toMatch(message);
      expect(e.message.startsWith(`env/openapi.json#${P}/f: `)).toBe(true);
    });
  }
});
