// inlineRefs: what the emulator hands Ajv and the MCP tools hand an agent.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { inlineRefs } from "../src/inline-refs.js";
import { type Located, RefResolver } from "../src/ref-resolver.js";

const dir = mkdtempSync(join(tmpdir(), "wfr-inline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function at(doc: unknown, pointer = "", file = join(dir, "openapi.json")): [RefResolver, Located] {
  const resolver = new RefResolver();
  resolver.seed(file, doc);
  let node: unknown = doc;
  for (const token of pointer.split("/").slice(1))
    node = (node as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  return [resolver, { node, file, pointer }];
}

describe("inlineRefs", () => {
  it("inlines a $ref into a file beside the definition, and that file's own local $ref", () => {
    writeFileSync(
      join(dir, "common.yaml"),
      "Amount:\n  type: number\n  minimum: { $ref: '#/Floor' }\nFloor: 5\nMoney:\n  $ref: '#/Amount'\n",
    );
    const [resolver, where] = at({ schema: { $ref: "common.yaml#/Money" } }, "/schema");
    expect(inlineRefs(resolver, where, { dialect: "2020-12" })).toEqual({
      type: "number",
      minimum: { $ref: "#/Floor" },
    });
  });

  it("2020-12: keywords beside a $ref hold together with the target (an allOf), never replace it", () => {
    const doc = {
      $defs: { Max10: { type: "integer", maximum: 10 } },
      schema: { $ref: "#/$defs/Max10", maximum: 20 },
    };
    const [resolver, where] = at(doc, "/schema");
    expect(inlineRefs(resolver, where, { dialect: "2020-12" })).toEqual({
      maximum: 20,
      allOf: [{ type: "integer", maximum: 10 }],
    });
  });

  it("draft-04 (OpenAPI 3.0): keywords beside a $ref are ignored", () => {
    const doc = {
      $defs: { Max10: { type: "integer", maximum: 10 } },
      schema: { $ref: "#/$defs/Max10", maximum: 20 },
    };
    const [resolver, where] = at(doc, "/schema");
    expect(inlineRefs(resolver, where, { dialect: "draft-04" })).toEqual({
      type: "integer",
      maximum: 10,
    });
  });

  it("keeps boolean schemas and a property named __proto__ as an own key", () => {
    const doc = JSON.parse(
      '{"schema":{"type":"object","properties":{"__proto__":{"$ref":"#/$defs/N"},"x":false},"items":true},"$defs":{"N":{"type":"number"}}}',
    );
    const [resolver, where] = at(doc, "/schema");
    const out = inlineRefs(resolver, where, { dialect: "2020-12" }) as {
      properties: Record<string, unknown>;
      items: unknown;
    };
    expect(Object.hasOwn(out.properties, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out.properties, "__proto__")?.value).toEqual({
      type: "number",
    });
    expect(out.properties.x).toBe(false);
    expect(out.items).toBe(true);
  });

  it("leaves values that are not schemas alone: a $ref inside an example or enum is data", () => {
    const doc = { schema: { enum: [{ $ref: "#/nowhere" }], examples: [{ $ref: "#/nowhere" }] } };
    const [resolver, where] = at(doc, "/schema");
    expect(inlineRefs(resolver, where, { dialect: "2020-12" })).toEqual(doc.schema);
  });

  it("spells 3.0 nullable as JSON Schema", () => {
    const [resolver, where] = at({ schema: { type: "string", nullable: true } }, "/schema");
    expect(inlineRefs(resolver, where, { dialect: "draft-04" })).toEqual({
      type: ["string", "null"],
    });
  });

  it("keeps a schema that contains itself as one definition in $defs, referred to locally", () => {
    const node = { type: "object", properties: { next: { $ref: "#/$defs/Node" } } };
    const doc = { $defs: { Node: node }, schema: { $ref: "#/$defs/Node" } };
    const [resolver, where] = at(doc, "/schema");
    const kept = { type: "object", properties: { next: { $ref: "#/$defs/Node" } } };
    expect(inlineRefs(resolver, where, { dialect: "2020-12" })).toEqual({
      $ref: "#/$defs/Node",
      $defs: { Node: kept },
    });
    // Draft 4 ignores what stands beside a `$ref`: the root reference goes in an `allOf`.
    expect(inlineRefs(resolver, where, { dialect: "draft-04" })).toEqual({
      allOf: [{ $ref: "#/definitions/Node" }],
      definitions: {
        Node: { type: "object", properties: { next: { $ref: "#/definitions/Node" } } },
      },
    });
    // Two schemas that contain each other, reached from a property: both named.
    const mutual = {
      $defs: {
        Folder: { type: "object", properties: { files: { $ref: "#/$defs/Files" } } },
        Files: {
          type: "array",
          items: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Folder" }] },
        },
      },
      schema: { type: "object", properties: { root: { $ref: "#/$defs/Folder" } } },
    };
    const [r2, w2] = at(mutual, "/schema");
    expect(inlineRefs(r2, w2, { dialect: "2020-12" })).toEqual({
      type: "object",
      properties: { root: { $ref: "#/$defs/Folder" } },
      $defs: {
        Folder: {
          type: "object",
          properties: {
            files: {
              type: "array",
              items: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Folder" }] },
            },
          },
        },
      },
    });
  });

  it("refuses a $ref that comes back to its schema without going into a property or an item", () => {
    const doc = {
      $defs: { Loop: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Loop" }] } },
    };
    const [resolver, where] = at(doc, "/$defs/Loop");
    expect(() => inlineRefs(resolver, where, { dialect: "2020-12" })).toThrow(
      expect.objectContaining({
        name: "DefinitionError",
        pointer: "/$defs/Loop/anyOf/1",
      }),
    );
  });

  it("lets the caller keep a reference and visit every schema with where it is written", () => {
    const doc = {
      components: { schemas: { FileReference: { type: "object", "x-input-type": "file" } } },
      schema: {
        properties: { f: { $ref: "#/components/schemas/FileReference" }, n: { type: "number" } },
      },
    };
    const [resolver, where] = at(doc, "/schema");
    const visited: string[] = [];
    const out = inlineRefs(resolver, where, {
      dialect: "2020-12",
      keep: (ref) => (ref.endsWith("/FileReference") ? { $ref: "kept" } : undefined),
      visit: (_schema, location) => visited.push(location.pointer),
    });
    expect(out).toEqual({ properties: { f: { $ref: "kept" }, n: { type: "number" } } });
    expect(visited).toEqual(["/schema", "/schema/properties/f", "/schema/properties/n"]);
  });

  it("names a broken reference's file and pointer", () => {
    const [resolver, where] = at({ schema: { $ref: "missing.yaml#/X" } }, "/schema");
    let caught: unknown;
    try {
      inlineRefs(resolver, where, { dialect: "2020-12" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    expect((caught as DefinitionError).pointer).toBe("/schema");
    expect((caught as DefinitionError).message).toMatch(
      /broken \$ref: cannot read .*missing\.yaml/,
    );
  });
});
