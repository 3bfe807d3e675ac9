// Shapes JSON Schema defines, read as it says by the generated validator
// (the JSON-Schema-Test-Suite test judges the same at scale; these name each
// reading): constraints without `type`, `false` schemas, `required` beyond
// `properties`, a field named `__proto__`, keywords beside `$ref` (3.1: both
// hold; 3.0: ignored), `type` beside `anyOf`/`oneOf`, `oneOf` of objects told
// apart by `required`, `const: null`, and the values the date formats accept.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { cleanupTempDirs, definition, projectDir, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

type Validate = (value: unknown) => boolean;

/** Generates one workflow per schema (input `v`) and returns a validator for each. */
async function validators(
  schemas: Record<string, unknown>,
  openapi = "3.1.0",
  components: Record<string, unknown> = {},
): Promise<Record<string, Validate>> {
  const dir = projectDir();
  const env = "t";
  const names = Object.keys(schemas);
  writeJson(
    join(dir, "schemas", env, "openapi.json"),
    definition(
      names.map((name, i) => ({
        id: `wf_${i}`,
        name: `Case ${i}`,
        inputs: {
          type: "object",
          additionalProperties: false,
          required: ["v"],
          properties: { v: schemas[name] },
        },
      })),
      { environment: env, openapi, components },
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
  const code = await main(
    ["generate", "--schemas", join(dir, "schemas"), "--out", join(dir, "gen")],
    streams,
  );
  expect(code, io.err).toBe(0);
  const index = (await import(pathToFileURL(join(dir, "gen", env, "index.js")).href)) as {
    workflows: Record<string, { id: string; validateInputs(v: unknown): unknown[] }>;
  };
  const byId = new Map(Object.values(index.workflows).map((w) => [w.id, w]));
  return Object.fromEntries(
    names.map((name, i) => [
      name,
      (value: unknown) => (byId.get(`wf_${i}`)?.validateInputs({ v: value }) ?? [1]).length === 0,
    ]),
  );
}

describe("the generated validator reads JSON Schema as JSON Schema", () => {
  it("applies constraints whatever `type` says or omits", async () => {
    const v = await validators({
      minimum: { minimum: 5 },
      date: { format: "date" },
      props: { properties: { a: { type: "integer" } } },
      items: { items: { type: "string" } },
    });
    expect(v.minimum?.(1)).toBe(false);
    expect(v.minimum?.(6)).toBe(true);
    expect(v.minimum?.("1")).toBe(true);
    expect(v.date?.("2020-02-30")).toBe(false);
    expect(v.date?.(12)).toBe(true);
    expect(v.props?.({ a: "x" })).toBe(false);
    expect(v.props?.(12)).toBe(true);
    expect(v.items?.([1])).toBe(false);
    expect(v.items?.({ a: 1 })).toBe(true);
  });

  it("reads `false` as no value, in properties, items, allOf and behind a $ref", async () => {
    const v = await validators(
      {
        property: { type: "object", properties: { x: false } },
        items: { type: "array", items: false },
        allOf: { allOf: [true, false] },
        ref: { $ref: "#/components/schemas/Nothing" },
      },
      "3.1.0",
      { Nothing: false },
    );
    expect(v.property?.({ x: 1 })).toBe(false);
    expect(v.property?.({})).toBe(true);
    expect(v.items?.([])).toBe(true);
    expect(v.items?.([1])).toBe(false);
    expect(v.allOf?.(1)).toBe(false);
    expect(v.ref?.("a")).toBe(false);
  });

  it("requires names that `properties` does not list", async () => {
    const v = await validators({ o: { type: "object", required: ["x"] } });
    expect(v.o?.({})).toBe(false);
    expect(v.o?.({ x: null })).toBe(true);
  });

  it("checks a field named __proto__, and rejects it as unknown where the object is closed", async () => {
    const v = await validators({
      proto: {
        type: "object",
        required: ["__proto__"],
        properties: JSON.parse('{"__proto__": {"type": "number"}}'),
      },
      closed: {
        type: "object",
        additionalProperties: false,
        properties: { a: { type: "string" } },
      },
    });
    expect(v.proto?.(JSON.parse('{"__proto__": 1}'))).toBe(true);
    expect(v.proto?.(JSON.parse('{"__proto__": "x"}'))).toBe(false);
    expect(v.proto?.({})).toBe(false);
    expect(v.closed?.(JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(v.closed?.({ a: "x" })).toBe(true);
  });

  it("applies keywords beside a $ref with the target in 3.1", async () => {
    const components = { Max10: { type: "integer", maximum: 10 }, Int: { type: "integer" } };
    const v = await validators(
      {
        max: { $ref: "#/components/schemas/Max10", maximum: 20 },
        type: { $ref: "#/components/schemas/Int", type: "string" },
      },
      "3.1.0",
      components,
    );
    expect(v.max?.(15)).toBe(false);
    expect(v.max?.(5)).toBe(true);
    expect(v.type?.("a")).toBe(false);
    expect(v.type?.(1)).toBe(false);
  });

  it("ignores keywords beside a $ref in 3.0, as OpenAPI 3.0 says", async () => {
    const v = await validators(
      { max: { $ref: "#/components/schemas/Max10", maximum: 20 } },
      "3.0.3",
      { Max10: { type: "integer", maximum: 10 } },
    );
    expect(v.max?.(15)).toBe(false);
    expect(v.max?.(5)).toBe(true);
  });

  it("keeps `type` beside anyOf/oneOf, and tells oneOf objects apart by `required`", async () => {
    const v = await validators({
      text: { type: "string", anyOf: [{ maxLength: 2 }, { minLength: 4 }] },
      object: { type: "object", oneOf: [{ required: ["a"] }, { required: ["b"] }] },
    });
    expect(v.text?.("foo")).toBe(false);
    expect(v.text?.("fo")).toBe(true);
    expect(v.text?.(12)).toBe(false);
    expect(v.object?.({ a: 1 })).toBe(true);
    expect(v.object?.({ b: 1 })).toBe(true);
    expect(v.object?.({ a: 1, b: 1 })).toBe(false);
    expect(v.object?.({})).toBe(false);
  });

  it("counts an object's own keys for minProperties / maxProperties, whatever `type` says", async () => {
    const v = await validators({
      bounded: { type: "object", minProperties: 1, maxProperties: 2 },
      untyped: { maxProperties: 1 },
    });
    expect(v.bounded?.({})).toBe(false);
    expect(v.bounded?.({ a: 1 })).toBe(true);
    expect(v.bounded?.({ a: 1, b: 2, c: 3 })).toBe(false);
    expect(v.untyped?.({ a: 1, b: 2 })).toBe(false);
    expect(v.untyped?.([1, 2])).toBe(true);
  });

  it("accepts `const: null` and `enum: [null]` as null only", async () => {
    const v = await validators({ c: { const: null }, e: { enum: [null] } });
    expect(v.c?.(null)).toBe(true);
    expect(v.c?.(0)).toBe(false);
    expect(v.e?.(null)).toBe(true);
    expect(v.e?.("null")).toBe(false);
  });

  it("reads dates of the years 0000-0099 and range-checks date-time offsets", async () => {
    const v = await validators({
      date: { type: "string", format: "date" },
      time: { type: "string", format: "date-time" },
    });
    expect(v.date?.("0001-01-01")).toBe(true);
    expect(v.date?.("0400-02-29")).toBe(true);
    expect(v.date?.("0100-02-29")).toBe(false);
    expect(v.time?.("1990-12-31T15:59:59-24:00")).toBe(false);
    expect(v.time?.("1990-12-31T10:00:00+10:60")).toBe(false);
    expect(v.time?.("1990-12-31T10:00:00+10:59")).toBe(true);
  });
});
