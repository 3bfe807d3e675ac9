// mergeAllOf: every branch holds, so properties and `required` add up and each
// bound keeps its strictest value; a property schema stays a stand-in that
// still reads from where it is written.
import { describe, expect, it } from "vitest";
import { mergeAllOf, type SchemaPart } from "../src/merge-all-of.js";
import { standInTarget } from "../src/ref-resolver.js";

const part = (schema: Record<string, unknown>, pointer: string): SchemaPart => ({
  schema,
  at: { node: schema, file: "/d/openapi.json", pointer },
});
const fail = (message: string): never => {
  throw new Error(message);
};

describe("mergeAllOf", () => {
  it("keeps the strictest bounds, the first annotation, and every required name", () => {
    const merged = mergeAllOf(
      [
        part({ type: "integer", minimum: 1, maximum: 10, title: "outer", required: ["a"] }, "/o"),
        part({ minimum: 5, maximum: 20, title: "inner", required: ["b", "a"] }, "/o/allOf/0"),
      ],
      fail,
    );
    expect(merged).toMatchObject({ type: "integer", minimum: 5, maximum: 10, title: "outer" });
    expect([...(merged.required as string[])].sort()).toEqual(["a", "b"]);
  });

  it("holds each property as a stand-in for where it is written", () => {
    const merged = mergeAllOf(
      [part({ properties: { x: { type: "string" } } }, "/s"), part({}, "/s/allOf/0")],
      fail,
    );
    const x = (merged.properties as Record<string, unknown>).x;
    expect(standInTarget(x)).toEqual({
      node: { type: "string" },
      file: "/d/openapi.json",
      pointer: "/s/properties/x",
    });
  });

  it("refuses a type list, which no single field could read", () => {
    expect(() =>
      mergeAllOf([part({ type: ["string", "null"] }, "/t"), part({}, "/t/allOf/0")], fail),
    ).toThrow(/type list inside `allOf`/);
  });

  it("does not merge a branch holding a keyword read where it is written (two `not`s are not one)", () => {
    for (const keyword of ["not", "if", "patternProperties", "dependentSchemas"])
      expect(() =>
        mergeAllOf(
          [part({ [keyword]: {} }, "/o"), part({ [keyword]: { type: "string" } }, "/o/allOf/0")],
          fail,
        ),
      ).toThrow(`a branch of \`allOf\` holds \`${keyword}\``);
    // The outer schema's own are read in place, where it is written.
    expect(
      mergeAllOf([part({ not: {} }, "/o"), part({ type: "string" }, "/o/allOf/0")], fail),
    ).toMatchObject({
      type: "string",
    });
  });
});
