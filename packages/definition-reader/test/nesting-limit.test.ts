// One nesting limit for every reader (docs/definition-format.md#schema-nesting): inlining
// (what the emulator and the MCP tools hand on) and `$ref` chains stop at MAX_SCHEMA_NESTING
// with a DefinitionError at the schema's pointer, however deep the definition goes.
import { describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { inlineRefs } from "../src/inline-refs.js";
import { MAX_SCHEMA_NESTING } from "../src/nesting-limit.js";
import { RefResolver } from "../src/ref-resolver.js";

const FILE = "/definitions/openapi.json";

function resolverFor(doc: unknown): RefResolver {
  const resolver = new RefResolver((file) => file.slice("/definitions/".length));
  resolver.seed(FILE, doc);
  return resolver;
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

/** `{items: {items: ... {type: string}}}`, built as text (JSON.stringify overflows on deep values). */
function nestedItems(depth: number): unknown {
  return JSON.parse(`${'{"items":'.repeat(depth)}{"type":"string"}${"}".repeat(depth)}`);
}

/** `#/$defs/S0 -> S1 -> ... -> S<length>`, the last a string schema. */
function refChain(length: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { [`S${length}`]: { type: "string" } };
  for (let i = 0; i < length; i++) defs[`S${i}`] = { $ref: `#/$defs/S${i + 1}` };
  return { $defs: defs, schema: { $ref: "#/$defs/S0" } };
}

describe("inlineRefs under the nesting limit", () => {
  for (const depth of [10 * MAX_SCHEMA_NESTING, 5_000])
    it(`refuses items nested ${depth} deep at the schema past the limit`, () => {
      const doc = { schema: nestedItems(depth) };
      const resolver = resolverFor(doc);
      const error = errorOf(() =>
        inlineRefs(
          resolver,
          { node: doc.schema, file: FILE, pointer: "/schema" },
          {
            dialect: "2020-12",
          },
        ),
      );
      expect(error.file).toBe("openapi.json");
      expect(error.pointer).toBe(`/schema${"/items".repeat(MAX_SCHEMA_NESTING + 1)}`);
      expect(error.detail).toMatch(`nests more than ${MAX_SCHEMA_NESTING} schemas deep`);
    });

  it("inlines a schema nested just under the limit", () => {
    const doc = { schema: nestedItems(MAX_SCHEMA_NESTING - 1) };
    const inlined = inlineRefs(
      resolverFor(doc),
      { node: doc.schema, file: FILE, pointer: "/schema" },
      { dialect: "2020-12" },
    );
    expect(JSON.stringify(inlined)).toBe(JSON.stringify(doc.schema));
  });

  it("refuses a chain of 5,000 $refs", () => {
    const doc = refChain(5_000);
    const error = errorOf(() =>
      inlineRefs(
        resolverFor(doc),
        { node: doc.schema, file: FILE, pointer: "/schema" },
        {
          dialect: "2020-12",
        },
      ),
    );
    expect(error.detail).toMatch(`nests more than ${MAX_SCHEMA_NESTING} schemas deep`);
  });
});

describe("RefResolver.deref under the nesting limit", () => {
  it("follows a chain just under the limit and refuses one of 5,000 $refs at the $ref past it", () => {
    const short = refChain(MAX_SCHEMA_NESTING - 1);
    expect(
      resolverFor(short).deref({ node: short.schema, file: FILE, pointer: "/schema" }).node,
    ).toEqual({ type: "string" });
    const long = refChain(5_000);
    const error = errorOf(() =>
      resolverFor(long).deref({ node: long.schema, file: FILE, pointer: "/schema" }),
    );
    expect(error.pointer).toBe(`/$defs/S${MAX_SCHEMA_NESTING - 1}`);
    expect(error.detail).toMatch(`nests more than ${MAX_SCHEMA_NESTING} schemas deep`);
  });
});
