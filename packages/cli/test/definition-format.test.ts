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
    const text = formatDefinition(served, { json: true });
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
    const a = formatDefinition('{"b":1,"a":{"d":2,"c":3}}', { json: true });
    const b = formatDefinition('{"a":{"c":3,"d":2},"b":1}', { json: true });
    expect(a).toBe(b);
  });

  it("keeps YAML and bodies that are not JSON as served", () => {
    expect(formatDefinition("openapi: 3.1.0\n", { json: false })).toBe("openapi: 3.1.0\n");
    expect(formatDefinition("{not json", { json: true })).toBe("{not json");
    expect(looksLikeJson("  {}")).toBe(true);
  });

  it("writes servers[0].url as the configured base URL, in JSON and in YAML (comments kept)", () => {
    const configured = "http://127.0.0.1:4010/production/api/v1";
    const served = JSON.stringify({
      openapi: "3.1.0",
      servers: [{ url: "http://127.0.0.1:51234/production/api/v1", description: "emulator" }],
    });
    expect(
      JSON.parse(formatDefinition(served, { json: true, baseUrl: configured })).servers,
    ).toEqual([{ description: "emulator", url: configured }]);
    const yaml =
      "# served\nopenapi: 3.1.0\nservers:\n  - url: http://127.0.0.1:51234/production/api/v1\n";
    expect(formatDefinition(yaml, { json: false, baseUrl: configured })).toBe(
      `# served\nopenapi: 3.1.0\nservers:\n  - url: ${configured}\n`,
    );
    expect(formatDefinition("openapi: 3.1.0\n", { json: false, baseUrl: configured })).toBe(
      `openapi: 3.1.0\nservers:\n  - url: ${configured}\n`,
    );
  });
});
