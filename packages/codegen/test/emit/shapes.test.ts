// Faithful types for every shape: free-form objects
// and maps keep their value type on both sides; allOf, oneOf, anyOf, const,
// type lists and JSON enum values become types, schemas and docs; and the
// few shapes the model cannot express fail with the file and JSON pointer
// instead of becoming a silent `unknown` or an impossible `never`.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../../src/definition-error.js";
import { emitSchemaCheckSources } from "../../src/emit/emit.js";
import { generate } from "../../src/generate.js";
import { readSchemas } from "../../src/read-definition.js";
import {
  cleanupTempDirs,
  definition,
  lineOf,
  projectDir,
  tempDir,
  typeCheck,
  writeJson,
} from "../helpers.js";

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

function errorOf(
  inputs: Record<string, unknown>,
  components: Record<string, unknown> = {},
): DefinitionError {
  const dir = tempDir();
  writeJson(
    join(dir, "env", "openapi.json"),
    definition(
      [
        {
          id: "wf_1",
          name: "One",
          inputs: { type: "object", additionalProperties: false, properties: inputs },
        },
      ],
      { components },
    ),
  );
  try {
    readSchemas(dir);
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError");
}

const Address = {
  type: "object",
  required: ["street"],
  additionalProperties: false,
  properties: { street: { type: "string", maxLength: 40 }, city: { type: "string" } },
};

/**
 * Address without `additionalProperties: false`: JSON Schema checks each
 * `allOf` branch on its own, so a closed branch would reject the other
 * branches' properties (an `allOf` that extends an object needs open branches).
 */
const { additionalProperties: _closed, ...OpenAddress } = Address;

/** Inputs using every combinator and literal shape the model supports. */
const combinators = {
  type: "object",
  additionalProperties: false,
  required: ["billing", "code", "amount", "party", "kind", "either", "preset", "flag"],
  properties: {
    // allOf of a $ref and extra properties: one object with both.
    billing: {
      allOf: [
        { $ref: "#/components/schemas/OpenAddress" },
        { type: "object", required: ["zip"], properties: { zip: { type: "string" } } },
      ],
    },
    // allOf [$ref] + nullable: the 3.0 idiom for a nullable reference.
    shipping: { allOf: [{ $ref: "#/components/schemas/Address" }], nullable: true },
    // allOf of constraints: the strictest bound wins.
    code: {
      allOf: [
        { type: "string", maxLength: 8 },
        { maxLength: 5, minLength: 2 },
      ],
    },
    amount: { oneOf: [{ type: "string", pattern: "^[0-9]+$" }, { type: "number" }] },
    party: {
      anyOf: [
        {
          type: "object",
          required: ["person"],
          additionalProperties: false,
          properties: { person: { type: "string" } },
        },
        {
          type: "object",
          required: ["company"],
          additionalProperties: false,
          properties: { company: { type: "string" }, vat: { type: "string" } },
        },
      ],
    },
    kind: { const: "invoice" },
    either: { type: ["string", "integer"], minimum: 1 },
    preset: { enum: [{ size: "a4", copies: 1 }, ["x", 2]] },
    flag: { enum: [true] },
    // `type` and `properties` beside `oneOf`: every part holds (kind all, a TypeScript intersection).
    tagged: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      oneOf: [{ required: ["a"] }, { required: ["b"] }],
    },
    // No `type`: the rule holds for numbers only.
    untyped: { minimum: 1 },
    // `false`: no value (optional, so it may only be left out).
    nothing: false,
    // `required` beyond `properties`.
    extra: { type: "object", required: ["x"] },
  },
};

const combinatorOutputs = {
  type: "object",
  required: ["total"],
  properties: {
    total: { oneOf: [{ type: "number" }, { type: "string" }] },
    source: { allOf: [{ $ref: "#/components/schemas/Address" }], nullable: true },
  },
};

describe("allOf, oneOf, anyOf, const, type lists and JSON enum values", () => {
  it(
    "become faithful types whose schemas agree under strict options, and validate like JSON Schema",
    async () => {
      const dir = projectDir();
      writeJson(
        join(dir, "schemas", "t", "openapi.json"),
        definition(
          [{ id: "wf_c", name: "Combos", inputs: combinators, outputs: combinatorOutputs }],
          { environment: "t", openapi: "3.0.3", components: { Address, OpenAddress } },
        ),
      );
      const { models } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
      const roots = ["app.ts"];
      for (const [path, content] of emitSchemaCheckSources(models)) {
        writeFileSync(join(dir, "gen", path), content);
        roots.push(join("gen", path));
      }
      const good = `billing: { street: "1 Main", zip: "123" }, code: "abc", amount: "12", party: { person: "Ann" }, kind: "invoice", either: "x", preset: { size: "a4", copies: 1 }, flag: true`;
      const app = [
        `import type { Inputs, Outputs } from "./gen/t/combos.js";`,
        `export const ok: Inputs = { ${good}, shipping: null };`,
        `export const ok2: Inputs = { ${good.replace('"12"', "12").replace('{ person: "Ann" }', '{ company: "Co", vat: "V" }').replace('"x"', "3").replace('{ size: "a4", copies: 1 }', '["x", 2]')} };`,
        `export const noZip: Inputs = { ${good.replace(', zip: "123"', "")} }; // NO_ZIP`,
        `export const badKind: Inputs = { ${good.replace('"invoice"', '"receipt"')} }; // BAD_KIND`,
        `export const badAmount: Inputs = { ${good.replace('"12"', "true")} }; // BAD_AMOUNT`,
        `export const badPreset: Inputs = { ${good.replace('{ size: "a4", copies: 1 }', '{ size: "a5", copies: 1 }')} }; // BAD_PRESET`,
        `export const badEither: Inputs = { ${good.replace('"x"', "false")} }; // BAD_EITHER`,
        `export const badNothing: Inputs = { ${good}, nothing: 1 }; // BAD_NOTHING`,
        `export const badTagged: Inputs = { ${good}, tagged: { a: 1 } }; // BAD_TAGGED`,
        `export const okTagged: Inputs = { ${good}, tagged: { a: "x" }, untyped: "any", extra: { x: null } };`,
        "export function read(o: Outputs): string {",
        `  const t: number | string = o.total;`,
        `  return o.source === null || o.source === undefined ? String(t) : o.source.street;`,
        "}",
        `export function bad(o: Outputs): number { return o.total; } // BAD_TOTAL`,
      ].join("\n");
      writeFileSync(join(dir, "app.ts"), app);
      const diagnostics = typeCheck(dir, roots, { exactOptionalPropertyTypes: true });
      expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
      expect([...new Set(diagnostics.map((d) => d.line))].sort()).toEqual(
        [
          "NO_ZIP",
          "BAD_KIND",
          "BAD_AMOUNT",
          "BAD_PRESET",
          "BAD_EITHER",
          "BAD_NOTHING",
          "BAD_TAGGED",
          "BAD_TOTAL",
        ]
          .map((m) => lineOf(app, m))
          .sort(),
      );

      const types = readFileSync(join(dir, "gen", "t", "combos.types.d.ts"), "utf8");
      // Definition order, not alphabetical; JSDoc says what the union is.
      expect(types.indexOf("billing")).toBeLessThan(types.indexOf("amount"));
      expect(types).toContain("Exactly one of: text, number.");
      expect(types).toContain('kind: "invoice";');

      const mod = (await import(pathToFileURL(join(dir, "gen", "t", "combos.js")).href)) as {
        combos: { validateInputs(v: unknown): { field: string; reason: string }[] };
      };
      const valid = {
        billing: { street: "1 Main", zip: "123" },
        code: "abc",
        amount: "12",
        party: { person: "Ann" },
        kind: "invoice",
        either: "x",
        preset: { copies: 1, size: "a4" },
        flag: true,
      };
      const v = (patch: Record<string, unknown>) =>
        mod.combos.validateInputs({ ...valid, ...patch });
      expect(v({})).toEqual([]);
      expect(v({ shipping: null, amount: 7, either: 2, preset: ["x", 2] })).toEqual([]);
      expect(v({ billing: { street: "x".repeat(41), zip: "1" } })).toMatchObject([
        { field: "billing.street", reason: "INVALID_TYPE" },
      ]);
      expect(v({ billing: { street: "s" } })).toMatchObject([
        { field: "billing.zip", reason: "REQUIRED" },
      ]);
      expect(v({ code: "abcdef" })).toMatchObject([{ field: "code", reason: "INVALID_TYPE" }]);
      expect(v({ code: "a" })).toMatchObject([{ field: "code", reason: "INVALID_TYPE" }]);
      expect(v({ amount: "1x" })).toMatchObject([{ field: "amount", reason: "INVALID_TYPE" }]);
      expect(v({ party: { person: "A", company: "C" } })).toMatchObject([
        { field: "party", reason: "INVALID_TYPE" },
      ]);
      expect(v({ kind: "receipt" })).toMatchObject([{ field: "kind", reason: "INVALID_TYPE" }]);
      expect(v({ either: 0 })).toMatchObject([{ field: "either", reason: "INVALID_TYPE" }]);
      expect(v({ either: 1.5 })).toMatchObject([{ field: "either", reason: "INVALID_TYPE" }]);
      expect(v({ preset: { size: "a4", copies: 2 } })).toMatchObject([
        { field: "preset", reason: "INVALID_TYPE" },
      ]);
      expect(v({ flag: false })).toMatchObject([{ field: "flag", reason: "INVALID_TYPE" }]);
    },
    TYPE_CHECK_TIMEOUT,
  );

  it("oneOf refuses a value that matches two alternatives; anyOf accepts it", async () => {
    const dir = projectDir();
    const both = (combiner: string) => ({
      [combiner]: [
        { type: "object", properties: { a: { type: "string" } } },
        { type: "object", properties: { b: { type: "string" } } },
      ],
    });
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        [
          {
            id: "wf_x",
            name: "Overlap",
            inputs: {
              type: "object",
              additionalProperties: false,
              properties: { one: both("oneOf"), any: both("anyOf") },
            },
          },
        ],
        { environment: "t" },
      ),
    );
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "t", "overlap.js")).href)) as {
      overlap: { validateInputs(v: unknown): { field: string; reason: string }[] };
    };
    expect(mod.overlap.validateInputs({ any: { a: "x" } })).toEqual([]);
    expect(mod.overlap.validateInputs({ one: { a: "x" } })).toMatchObject([
      { field: "one", reason: "INVALID_TYPE" },
    ]);
  });

  it("reads allOf into one model: properties in order, required added, the strictest bound, nullable", () => {
    const dir = tempDir();
    writeJson(
      join(dir, "env", "openapi.json"),
      definition(
        [{ id: "wf_c", name: "Combos", inputs: combinators, outputs: combinatorOutputs }],
        {
          components: { Address, OpenAddress },
        },
      ),
    );
    const [env] = readSchemas(dir);
    const inputs = env?.workflows[0]?.inputs ?? [];
    const byName = new Map(inputs.map((f) => [f.name, f]));
    expect(inputs.map((f) => f.name)).toEqual(Object.keys(combinators.properties));
    expect(byName.get("billing")).toMatchObject({ kind: "object", additionalProperties: true });
    expect(byName.get("billing")?.fields?.map((f) => [f.name, f.required])).toEqual([
      ["street", true],
      ["city", false],
      ["zip", true],
    ]);
    // A property read through the merge keeps the pointer where it is written.
    expect(byName.get("billing")?.fields?.[0]?.pointer).toBe(
      "/components/schemas/OpenAddress/properties/street",
    );
    expect(byName.get("shipping")).toMatchObject({ kind: "object", nullable: true });
    expect(byName.get("code")).toMatchObject({ kind: "text", maxLength: 5, minLength: 2 });
    expect(byName.get("amount")).toMatchObject({ kind: "union", exclusive: true });
    expect(byName.get("party")?.variants?.map((v) => v.kind)).toEqual(["object", "object"]);
    expect(byName.get("kind")).toMatchObject({ kind: "enum", enumValues: ["invoice"] });
    expect(byName.get("either")?.variants?.map((v) => [v.kind, v.minimum])).toEqual([
      ["text", undefined],
      ["integer", 1],
    ]);
    expect(byName.get("preset")).toMatchObject({ kind: "enum", enumBase: "json" });
  });

  it("a recursive $ref reached through allOf: a named type where it goes into a property, an error where it does not", () => {
    const e = errorOf(
      { f: { allOf: [{ $ref: "#/components/schemas/Self" }] } },
      { Self: { allOf: [{ $ref: "#/components/schemas/Self" }, { type: "object" }] } },
    );
    expect(e.pointer).toBe("/components/schemas/Self/allOf/0");
    expect(e.message).toMatch(/without going into a property or an item/);
    const dir = tempDir();
    writeJson(
      join(dir, "env", "openapi.json"),
      definition(
        [
          {
            id: "wf_1",
            name: "One",
            inputs: {
              type: "object",
              properties: { f: { allOf: [{ $ref: "#/components/schemas/Node" }] } },
            },
          },
        ],
        {
          components: {
            Node: {
              type: "object",
              properties: { child: { allOf: [{ $ref: "#/components/schemas/Node" }] } },
            },
          },
        },
      ),
    );
    const wf = readSchemas(dir)[0]?.workflows[0];
    expect(wf?.inputs[0]).toMatchObject({ name: "f", kind: "ref", ref: "NodeInput" });
    expect(wf?.recursiveTypes?.map((t) => [t.name, t.side, t.field.kind])).toEqual([
      ["NodeInput", "input", "object"],
    ]);
    expect(wf?.recursiveTypes?.[0]?.field.fields?.[0]).toMatchObject({
      name: "child",
      kind: "ref",
      ref: "NodeInput",
    });
  });

  it("an error inside an allOf branch names the branch's own file and pointer", () => {
    const e = errorOf(
      { f: { allOf: [{ $ref: "#/components/schemas/Bad" }, { type: "object" }] } },
      { Bad: { type: "object", properties: { g: { type: "string", pattern: "(" } } } },
    );
    expect(e.pointer).toBe("/components/schemas/Bad/properties/g");
    expect(e.message).toMatch(/`pattern` is not a valid regular expression/);
  });
});

describe("shapes the model cannot express fail with file and pointer, never a silent unknown", () => {
  const P = "/components/schemas/Workflow_wf_1_Inputs/properties";
  const cases: [string, unknown, string, RegExp][] = [
    [
      "a type that is not a JSON Schema type",
      { type: ["string", "date"] },
      "",
      /"date", which is not a JSON Schema type/,
    ],
    ...["additionalItems", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$id"].map(
      (k): [string, unknown, string, RegExp] => [
        k,
        { [k]: k.startsWith("$") ? "x" : {} },
        "",
        new RegExp(`\`${k.replace("$", "\\$")}\` is not supported`),
      ],
    ),
    [
      "items as a list (a draft-4 tuple)",
      { type: "array", items: [{ type: "string" }] },
      "",
      /`items` as a list/,
    ],
    [
      "a $ref to a URL",
      { $ref: "https://example.com/schema.json" },
      "",
      /`\$ref` to "https:\/\/example\.com\/schema\.json" is not supported/,
    ],
  ];
  for (const [name, schema, suffix, message] of cases) {
    it(name, () => {
      const e = errorOf({ f: schema });
      expect(e.file).toBe("env/openapi.json");
      expect(e.pointer).toBe(`${P}/f${suffix}`);
      expect(e.message).toMatch(message);
      expect(e.message.startsWith(`env/openapi.json#${P}/f${suffix}: `)).toBe(true);
    });
  }
});
