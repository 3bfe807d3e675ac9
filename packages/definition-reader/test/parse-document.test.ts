// parseDocument: JSON or YAML by extension, YAML merge keys, alias cycles refused.
import { describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { parseDocument } from "../src/parse-document.js";

describe("parseDocument", () => {
  it("reads JSON and YAML by the file's extension", () => {
    expect(parseDocument('{"a":1}', "openapi.json")).toEqual({ a: 1 });
    expect(parseDocument("a: 1\n", "openapi.yaml")).toEqual({ a: 1 });
    expect(parseDocument("a: 1\n", "openapi.YML")).toEqual({ a: 1 });
  });

  it("honours YAML merge keys, as OpenAPI tools read them", () => {
    expect(parseDocument("base: &b { x: 1 }\nmore:\n  <<: *b\n  y: 2\n", "d.yaml")).toEqual({
      base: { x: 1 },
      more: { x: 1, y: 2 },
    });
  });

  it("names the file when the text does not parse", () => {
    expect(() => parseDocument("{", "schemas/prod/openapi.json")).toThrow(
      expect.objectContaining({ name: "DefinitionError", file: "schemas/prod/openapi.json" }),
    );
  });

  it("refuses a YAML alias that refers to its own enclosing node, at its pointer", () => {
    let caught: unknown;
    try {
      parseDocument("a: &x\n  b: *x\n", "d.yaml");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    expect((caught as DefinitionError).pointer).toBe("/a/b");
  });
});
