import { describe, expect, it } from "vitest";
import { formatDefinition, looksLikeJson } from "../src/definition-format.js";

describe("formatDefinition", () => {
  it("writes JSON formatted, one key per line, keys sorted except a schema's properties", () => {
    const served = JSON.stringify({
      paths: { "/b": {}, "/a": {} },
      openapi: "3.1.0",
      components: {
        schemas: {
          Inputs: {
            type: "object",
            properties: { zeta: { type: "string" }, alpha: { type: "number" } },
            required: ["zeta"],
          },
        },
      },
    });
    const text = formatDefinition(served, true);
    expect(text.split("\n").length).toBeGreaterThan(10);
    expect(text.endsWith("}\n")).toBe(true);
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(["components", "openapi", "paths"]);
    expect(Object.keys(parsed.paths)).toEqual(["/a", "/b"]);
    // Field order is the order of the generated interfaces: kept as served.
    expect(Object.keys(parsed.components.schemas.Inputs.properties)).toEqual(["zeta", "alpha"]);
    expect(Object.keys(parsed.components.schemas.Inputs)).toEqual([
      "properties",
      "required",
      "type",
    ]);
  });

  it("is stable: the same definition served with another key order gives the same bytes", () => {
    const a = formatDefinition('{"b":1,"a":{"d":2,"c":3}}', true);
    const b = formatDefinition('{"a":{"c":3,"d":2},"b":1}', true);
    expect(a).toBe(b);
  });

  it("keeps YAML and bodies that are not JSON as served", () => {
    expect(formatDefinition("openapi: 3.1.0\n", false)).toBe("openapi: 3.1.0\n");
    expect(formatDefinition("{not json", true)).toBe("{not json");
    expect(looksLikeJson("  {}")).toBe(true);
  });
});
