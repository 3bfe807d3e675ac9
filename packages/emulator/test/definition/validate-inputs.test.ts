import { describe, expect, it } from "vitest";
import {
  checkFormat,
  declaresFileInput,
  validateInputs,
} from "../../src/definition/validate-inputs.js";

const schema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "amount", "doc"],
  properties: {
    name: { type: "string", "x-input-type": "text", maxLength: 10 },
    amount: { type: "number", "x-input-type": "number" },
    count: { type: "integer", default: 2 },
    paid: { type: "boolean", default: false },
    currency: { type: "string", enum: ["USD", "EUR"], default: "USD" },
    due: { type: "string", format: "date" },
    data: { type: ["object", "array"], "x-input-type": "json" },
    maybe: { anyOf: [{ type: ["object", "array"] }, { type: "null" }] },
    legacy: { type: "string", nullable: true },
    doc: { $ref: "#/components/schemas/FileReference" },
    docs: { type: "array", items: { $ref: "#/components/schemas/FileReference" } },
    address: {
      type: "object",
      additionalProperties: false,
      required: ["city"],
      properties: { city: { type: "string" }, zip: { type: "string" } },
    },
  },
};

const ok = { name: "Acme", amount: 5, doc: { attachment_id: "a1" } };

describe("validateInputs (spec: Input value types, no conversion)", () => {
  it("accepts valid inputs and applies saved defaults into the stored value", () => {
    const r = validateInputs(schema, ok);
    expect(r.ok).toBe(true);
    expect(r.value).toEqual({ ...ok, count: 2, paid: false, currency: "USD" });
    expect(r.fileRefs).toEqual([{ field: "doc", attachment_id: "a1" }]);
  });

  it("reports INVALID_TYPE, REQUIRED and UNKNOWN_INPUT per field", () => {
    const r = validateInputs(schema, { name: 5, amount: "5", extra: 1 });
    expect(r.ok).toBe(false);
    expect(r.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "name", reason: "INVALID_TYPE" }),
        expect.objectContaining({ field: "amount", reason: "INVALID_TYPE" }),
        expect.objectContaining({ field: "extra", reason: "UNKNOWN_INPUT" }),
        expect.objectContaining({ field: "doc", reason: "REQUIRED" }),
      ]),
    );
  });

  it("never converts: '5' is not a number, 'true' not a boolean, 1 not a boolean", () => {
    expect(validateInputs(schema, { ...ok, amount: "5" }).ok).toBe(false);
    expect(validateInputs(schema, { ...ok, paid: "true" }).ok).toBe(false);
    expect(validateInputs(schema, { ...ok, paid: 1 }).ok).toBe(false);
    expect(validateInputs(schema, { ...ok, count: 1.5 }).ok).toBe(false);
  });

  it("json inputs take an object or array, never a string of JSON", () => {
    expect(validateInputs(schema, { ...ok, data: [1] }).ok).toBe(true);
    expect(validateInputs(schema, { ...ok, data: { a: 1 } }).ok).toBe(true);
    expect(validateInputs(schema, { ...ok, data: '{"a":1}' }).ok).toBe(false);
    expect(validateInputs(schema, { ...ok, data: 3 }).ok).toBe(false);
  });

  it("handles nullable written as anyOf null and as 3.0 nullable", () => {
    expect(validateInputs(schema, { ...ok, maybe: null, legacy: null }).ok).toBe(true);
    expect(validateInputs(schema, { ...ok, maybe: "x" }).ok).toBe(false);
    expect(validateInputs(schema, { ...ok, name: null }).ok).toBe(false);
  });

  it("checks enums, formats and maxLength", () => {
    expect(validateInputs(schema, { ...ok, currency: "JPY" }).details[0]?.field).toBe("currency");
    expect(validateInputs(schema, { ...ok, due: "2026-02-30" }).ok).toBe(false);
    expect(validateInputs(schema, { ...ok, due: "2026-02-28" }).ok).toBe(true);
    expect(validateInputs(schema, { ...ok, name: "x".repeat(11) }).ok).toBe(false);
  });

  it("file inputs need {attachment_id}, not a path string", () => {
    const r = validateInputs(schema, { ...ok, doc: "/tmp/invoice.pdf" });
    expect(r.details).toEqual([expect.objectContaining({ field: "doc", reason: "INVALID_TYPE" })]);
    const m = validateInputs(schema, {
      ...ok,
      docs: [{ attachment_id: "b" }, { attachment_id: "c" }],
    });
    expect(m.fileRefs.map((f) => f.attachment_id)).toEqual(["a1", "b", "c"]);
  });

  it("validates nested objects with their own required and additionalProperties", () => {
    const r = validateInputs(schema, { ...ok, address: { zip: "1", street: "x" } });
    expect(r.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: "address.street", reason: "UNKNOWN_INPUT" }),
        expect.objectContaining({ field: "address.city", reason: "REQUIRED" }),
      ]),
    );
  });

  it("treats prototype words as plain field names", () => {
    const s = {
      type: "object",
      additionalProperties: false,
      properties: { constructor: { type: "string" }, __proto__x: { type: "string" } },
    };
    const body = JSON.parse('{"constructor":"a","__proto__":{"polluted":true}}');
    const r = validateInputs(s, body);
    expect(r.details).toEqual([
      expect.objectContaining({ field: "__proto__", reason: "UNKNOWN_INPUT" }),
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects a non-object inputs and a missing one", () => {
    expect(validateInputs(schema, [1]).details[0]).toMatchObject({
      field: "inputs",
      reason: "INVALID_TYPE",
    });
    expect(validateInputs(schema, undefined).details[0]).toMatchObject({
      field: "inputs",
      reason: "REQUIRED",
    });
  });

  it("knows which schemas declare file inputs", () => {
    expect(declaresFileInput(schema)).toBe(true);
    expect(declaresFileInput({ type: "object", properties: { a: { type: "string" } } })).toBe(
      false,
    );
  });

  it("checks formats", () => {
    expect(checkFormat("date-time", "2026-01-01T10:00:00Z")).toBe(true);
    expect(checkFormat("date-time", "2026-01-01")).toBe(false);
    expect(checkFormat("email", "a@b.co")).toBe(true);
    expect(checkFormat("uri", "portal.example.com")).toBe(false);
    expect(checkFormat("uri", "https://portal.example.com")).toBe(true);
  });
});

describe("number and array constraints the definition format allows", () => {
  const constrained = {
    type: "object",
    properties: {
      price: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 100, multipleOf: 0.1 },
      legacy: {
        type: "integer",
        minimum: 1,
        exclusiveMinimum: true,
        maximum: 9,
        exclusiveMaximum: true,
      },
      tags: { type: "array", items: { type: "string" }, uniqueItems: true },
    },
  };
  const reasons = (inputs: unknown) =>
    validateInputs(constrained, inputs).details.map((d) => `${d.field}:${d.reason}`);

  it("enforces exclusiveMinimum/exclusiveMaximum in the 3.1 numeric form", () => {
    expect(reasons({ price: 0 })).toEqual(["price:INVALID_TYPE"]);
    expect(reasons({ price: 100 })).toEqual(["price:INVALID_TYPE"]);
    expect(reasons({ price: 99.9 })).toEqual([]);
  });

  it("enforces the 3.0 boolean exclusive form next to minimum/maximum", () => {
    expect(reasons({ legacy: 1 })).toEqual(["legacy:INVALID_TYPE"]);
    expect(reasons({ legacy: 9 })).toEqual(["legacy:INVALID_TYPE"]);
    expect(reasons({ legacy: 2 })).toEqual([]);
  });

  it("enforces multipleOf, tolerating binary rounding", () => {
    expect(reasons({ price: 0.3 })).toEqual([]);
    expect(reasons({ price: 0.35 })).toEqual(["price:INVALID_TYPE"]);
  });

  it("enforces uniqueItems by JSON equality", () => {
    expect(reasons({ tags: ["a", "b"] })).toEqual([]);
    expect(reasons({ tags: ["a", "b", "a"] })).toEqual(["tags:INVALID_TYPE"]);
  });
});

describe("JSON Schema semantics (Ajv: 2020-12, draft 4 for OpenAPI 3.0)", () => {
  const one = (value: unknown) => ({
    type: "object",
    additionalProperties: false,
    properties: { v: value },
  });
  const valid = (schema: unknown, v: unknown, dialect?: "draft-04") =>
    validateInputs(one(schema), { v }, dialect).ok;

  it("oneOf means exactly one, not anyOf", () => {
    const s = { oneOf: [{ type: "integer" }, { minimum: 2 }] };
    expect(valid(s, 1)).toBe(true);
    expect(valid(s, 3)).toBe(false);
  });

  it("keeps `type`, `properties` and `required` beside a combinator", () => {
    expect(valid({ type: "string", anyOf: [{ maxLength: 2 }, { minLength: 4 }] }, "foo")).toBe(
      false,
    );
    expect(valid({ type: "string", anyOf: [{ maxLength: 2 }, { minLength: 4 }] }, 5)).toBe(false);
    const s = {
      type: "object",
      required: ["a"],
      oneOf: [{ required: ["b"] }, { required: ["c"] }],
    };
    expect(valid(s, { a: 1, b: 1 })).toBe(true);
    expect(valid(s, { b: 1 })).toBe(false);
    expect(valid(s, { a: 1, b: 1, c: 1 })).toBe(false);
  });

  it("reads a `false` subschema as nothing, `true` as anything", () => {
    expect(valid({ type: "object", properties: { x: false } }, { x: 1 })).toBe(false);
    expect(valid({ type: "object", properties: { x: false } }, {})).toBe(true);
    expect(valid({ type: "array", items: false }, [])).toBe(true);
    expect(valid({ type: "array", items: false }, [1])).toBe(false);
    expect(valid({ allOf: [true, false] }, 1)).toBe(false);
  });

  it("requires names that `properties` does not list", () => {
    expect(valid({ type: "object", required: ["x"] }, {})).toBe(false);
    expect(valid({ type: "object", required: ["x"] }, { x: null })).toBe(true);
  });

  it("applies constraints whatever `type` says or omits", () => {
    expect(valid({ minimum: 5 }, 1)).toBe(false);
    expect(valid({ minimum: 5 }, "1")).toBe(true);
    expect(valid({ format: "date" }, "2020-02-30")).toBe(false);
  });

  it("validates a field named __proto__", () => {
    const s = {
      type: "object",
      required: ["__proto__"],
      properties: JSON.parse('{"__proto__": {"type": "number"}}'),
    };
    expect(valid(s, JSON.parse('{"__proto__": 1}'))).toBe(true);
    expect(valid(s, JSON.parse('{"__proto__": "x"}'))).toBe(false);
    expect(valid(s, {})).toBe(false);
  });

  it("reads dates of years 0000-0099 and range-checks date-time offsets", () => {
    expect(checkFormat("date", "0001-01-01")).toBe(true);
    expect(checkFormat("date", "0400-02-29")).toBe(true);
    expect(checkFormat("date", "0100-02-29")).toBe(false);
    expect(checkFormat("date-time", "1990-12-31T15:59:59-24:00")).toBe(false);
    expect(checkFormat("date-time", "1990-12-31T10:00:00+10:60")).toBe(false);
    expect(checkFormat("date-time", "1998-12-31T15:59:60.123-08:00")).toBe(true);
    expect(checkFormat("date-time", "1998-12-31T22:59:60Z")).toBe(false);
  });

  it("never fails a launch on an invalid saved default that was not used", () => {
    const s = { type: "object", properties: { n: { type: "integer", maximum: 3, default: 5 } } };
    expect(validateInputs(s, {}).ok).toBe(true);
    expect(validateInputs(s, { n: 5 }).ok).toBe(false);
  });

  it("uses draft-4 bounds for OpenAPI 3.0 definitions", () => {
    const s = { type: "number", minimum: 1, exclusiveMinimum: true };
    expect(valid(s, 1, "draft-04")).toBe(false);
    expect(valid(s, 1.5, "draft-04")).toBe(true);
  });
});
