// Definitions nothing refers to are not read (one unused definition with a
// keyword wfr refuses no longer refuses the whole schema), and `$ref: "#"`
// (the whole OpenAPI document) is refused at its pointer instead of being
// read as any JSON value.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { readDefinition } from "../src/read-definition.js";
import { cleanupTempDirs, definition, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

function read(inputs: Record<string, unknown>, openapi = "3.1.0") {
  const file = join(tempDir(), "t", "openapi.json");
  writeJson(file, definition([{ id: "wf_a", name: "A", inputs }], { environment: "t", openapi }));
  return () => readDefinition(file);
}

function errorOf(fn: () => unknown): DefinitionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError");
}

const INPUTS = "/components/schemas/Workflow_wf_a_Inputs";

describe("definitions carried by a schema", () => {
  it("are read only where a $ref reaches them", () => {
    const model = read({
      type: "object",
      additionalProperties: false,
      properties: { a: { $ref: `#${INPUTS}/$defs/Used` } },
      $defs: {
        Used: { type: "string" },
        Unused: { not: { type: "string" }, $dynamicRef: "#meta" },
      },
    })();
    expect(model.workflows[0]?.inputs.map((f) => [f.name, f.kind])).toEqual([["a", "text"]]);
  });

  it("refuse a keyword they hold where a $ref reaches them", () => {
    const error = errorOf(
      read({
        type: "object",
        properties: { a: { $ref: `#${INPUTS}/definitions/Bad` } },
        definitions: { Bad: { $dynamicRef: "#meta" } },
      }),
    );
    expect(error.pointer).toBe(`${INPUTS}/definitions/Bad`);
    expect(error.detail).toMatch("`$dynamicRef` is not supported");
  });

  it("refuse $id or $anchor even unused (a reference elsewhere would mean another schema)", () => {
    const error = errorOf(
      read({ type: "object", properties: {}, $defs: { Named: { $id: "named.json" } } }),
    );
    expect(error.pointer).toBe(`${INPUTS}/$defs/Named/$id`);
  });
});

describe('$ref: "#"', () => {
  it("is refused at its pointer: the whole OpenAPI document is not a schema", () => {
    const error = errorOf(read({ type: "object", properties: { a: { $ref: "#" } } }));
    expect(error.file).toBe("t/openapi.json");
    expect(error.pointer).toBe(`${INPUTS}/properties/a`);
    expect(error.detail).toMatch("points at the whole OpenAPI document");
  });
});

describe("a nested $schema", () => {
  it("is read where it restates the definition's dialect, refused at its pointer otherwise", () => {
    const model = read({
      type: "object",
      properties: {
        a: { $schema: "https://spec.openapis.org/oas/3.1/dialect/base", type: "string" },
      },
    })();
    expect(model.workflows[0]?.inputs[0]?.kind).toBe("text");
    const error = errorOf(
      read({
        type: "object",
        properties: { a: { $schema: "http://json-schema.org/draft-07/schema#", type: "string" } },
      }),
    );
    expect(error.pointer).toBe(`${INPUTS}/properties/a/$schema`);
    expect(error.detail).toMatch("names another dialect");
  });
});
