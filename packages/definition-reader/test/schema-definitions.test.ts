// A schema's definitions (`$defs`, `definitions`) are read only where a `$ref`
// reaches them; an identity keyword in them is refused wherever it is; and
// `$ref: "#"` (the whole OpenAPI document) is refused, not read as any value.
import { describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { inlineRefs } from "../src/inline-refs.js";
import { RefResolver } from "../src/ref-resolver.js";

const FILE = "/definitions/openapi.json";

function inline(doc: Record<string, unknown>, dialect: "2020-12" | "draft-04" = "2020-12") {
  const resolver = new RefResolver((file) => file.slice("/definitions/".length));
  resolver.seed(FILE, doc);
  const visited: string[] = [];
  const value = inlineRefs(
    resolver,
    { node: doc.schema, file: FILE, pointer: "/schema" },
    {
      dialect,
      visit: (_schema, at) => visited.push(at.pointer),
    },
  );
  return { value, visited };
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

describe("definitions nothing refers to", () => {
  it("are not read: left out of the inlined schema and never visited", () => {
    const { value, visited } = inline({
      openapi: "3.1.0",
      schema: {
        type: "object",
        properties: { a: { $ref: "#/schema/$defs/Used" } },
        $defs: { Used: { type: "string" }, Unused: { not: { type: "string" } } },
      },
    });
    expect(value).toEqual({ type: "object", properties: { a: { type: "string" } } });
    expect(visited).not.toContain("/schema/$defs/Unused");
    expect(visited).toContain("/schema/$defs/Used");
  });

  it("still may not name a schema with $id or $anchor, used or not (a reference would change)", () => {
    const error = errorOf(() =>
      inline({
        openapi: "3.1.0",
        schema: { type: "string", $defs: { A: { $defs: { B: { $anchor: "b" } } } } },
      }),
    );
    expect(error.pointer).toBe("/schema/$defs/A/$defs/B/$anchor");
    expect(error.detail).toMatch("`$anchor` is not supported");
  });

  it("reads draft 4's `id` as an identity in 3.0 only", () => {
    const doc = { openapi: "3.0.3", schema: { type: "string", definitions: { A: { id: "a" } } } };
    expect(errorOf(() => inline(doc, "draft-04")).pointer).toBe("/schema/definitions/A/id");
    expect(inline(doc, "2020-12").value).toEqual({ type: "string" });
  });
});

describe("a $id that is only a fragment", () => {
  it("is read and left out (the base URI stays, every $ref is still a JSON pointer); any other $id is refused", () => {
    const { value } = inline({
      openapi: "3.1.0",
      schema: {
        $id: "#/schema",
        type: "object",
        properties: {
          a: { $ref: "#/schema/$defs/A" },
          b: { $ref: "#/schema/$defs/A" },
        },
        $defs: { A: { $id: "#/definitions/A", type: "string" }, B: { $id: "#b" } },
      },
    });
    expect(value).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
    });
    const doc = { openapi: "3.0.3", schema: { type: "string", definitions: { A: { id: "#a" } } } };
    expect(inline(doc, "draft-04").value).toEqual({ type: "string" });
    const error = errorOf(() =>
      inline({
        openapi: "3.1.0",
        schema: { type: "string", $defs: { A: { $id: "https://example.com/a.json" } } },
      }),
    );
    expect(error.pointer).toBe("/schema/$defs/A/$id");
  });
});

describe('$ref: "#"', () => {
  it("is refused: the whole OpenAPI document is not a schema", () => {
    const error = errorOf(() =>
      inline({ openapi: "3.1.0", schema: { type: "object", properties: { a: { $ref: "#" } } } }),
    );
    expect(error.file).toBe("openapi.json");
    expect(error.pointer).toBe("/schema/properties/a");
    expect(error.detail).toMatch("points at the whole OpenAPI document, which is not a schema");
  });
});

describe("a nested $schema", () => {
  it("is read where it restates the definition's dialect, refused at its pointer otherwise", () => {
    const restated = {
      openapi: "3.1.0",
      schema: { $schema: "https://json-schema.org/draft/2020-12/schema#", type: "string" },
    };
    expect(inline(restated).value).toEqual(restated.schema);
    const draft4 = {
      openapi: "3.0.3",
      schema: { $schema: "http://json-schema.org/draft-04/schema#" },
    };
    expect(inline(draft4, "draft-04").value).toEqual(draft4.schema);
    const error = errorOf(() =>
      inline({
        openapi: "3.1.0",
        schema: { properties: { a: { $schema: "http://json-schema.org/draft-07/schema#" } } },
      }),
    );
    expect(error.pointer).toBe("/schema/properties/a/$schema");
    expect(error.detail).toMatch("names another dialect than the definition's");
  });
});
