import { describe, expect, it } from "vitest";
import { isNullOnlySchema, nullableAsJsonSchema, splitNullType } from "../src/nullable.js";

describe("splitNullType", () => {
  it("reads 3.0 `nullable: true` as nullable and keeps the schema", () => {
    const schema = { type: "string", nullable: true };
    expect(splitNullType(schema)).toEqual({ schema, nullable: true });
  });
  it("takes null out of a 3.1 type list, one remaining type read as that type", () => {
    expect(splitNullType({ type: ["string", "null"] })).toEqual({
      schema: { type: "string" },
      nullable: true,
    });
    expect(splitNullType({ type: ["string", "integer", "null"] })).toEqual({
      schema: { type: ["string", "integer"] },
      nullable: true,
    });
  });
  it("leaves a schema without null alone", () => {
    expect(splitNullType({ type: "string", nullable: false })).toEqual({
      schema: { type: "string", nullable: false },
      nullable: false,
    });
  });
});

describe("isNullOnlySchema", () => {
  it("is true for type null and an enum of only null", () => {
    expect(isNullOnlySchema({ type: "null" })).toBe(true);
    expect(isNullOnlySchema({ enum: [null] })).toBe(true);
  });
  it("is false for other schemas, boolean schemas and non-array enums", () => {
    expect(isNullOnlySchema({ enum: [null, 1] })).toBe(false);
    expect(isNullOnlySchema({ type: ["null", "string"] })).toBe(false);
    expect(isNullOnlySchema(true)).toBe(false);
    expect(isNullOnlySchema(false)).toBe(false);
    expect(isNullOnlySchema({ enum: "x" })).toBe(false);
  });
});

describe("nullableAsJsonSchema", () => {
  it("adds null to a single type and to a type list", () => {
    expect(nullableAsJsonSchema({ type: "string", nullable: true })).toEqual({
      type: ["string", "null"],
    });
    expect(nullableAsJsonSchema({ type: ["string", "integer"], nullable: true })).toEqual({
      type: ["string", "integer", "null"],
    });
  });
  it("adds null to a nullable enum", () => {
    expect(nullableAsJsonSchema({ type: "string", enum: ["a"], nullable: true })).toEqual({
      type: ["string", "null"],
      enum: ["a", null],
    });
  });
  it("wraps a schema without type in anyOf with null", () => {
    expect(nullableAsJsonSchema({ minimum: 1, nullable: true })).toEqual({
      anyOf: [{ minimum: 1 }, { type: "null" }],
    });
  });
  it("returns a schema without `nullable: true` as it is", () => {
    const schema = { type: "string", nullable: false };
    expect(nullableAsJsonSchema(schema)).toBe(schema);
  });
});
