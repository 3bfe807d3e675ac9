// The MCP tools read `$ref`s with the one pointer decoding of
// @wfr/definition-reader (RFC 6901 section 6: percent-decode, then `~1`/`~0`).
import { describe, expect, it } from "vitest";
import { workflowsFromDefinition } from "../src/definition-workflows.js";

function definition(ref: string, schemas: Record<string, unknown>) {
  return {
    openapi: "3.1.0",
    paths: {
      "/automations/wf_a/runs": {
        post: {
          "x-workflow": { id: "wf_a", name: "A", state: "enabled", revision: 1 },
          requestBody: {
            content: {
              "application/json": {
                schema: { type: "object", properties: { inputs: { $ref: ref } } },
              },
            },
          },
        },
      },
    },
    components: { schemas },
  };
}

describe("workflowsFromDefinition: $ref pointers", () => {
  it("reads #/a%7E1b as the key a/b (percent-decoded before ~ escapes)", () => {
    const [wf] = workflowsFromDefinition(
      definition("#/components/schemas/a%7E1b", {
        "a/b": { type: "object", title: "slash" },
        "a~1b": { type: "object", title: "tilde-one" },
      }),
    );
    expect(wf?.inputs).toMatchObject({ title: "slash" });
  });

  it("reads ~0 and ~1 escapes and percent-encoded characters", () => {
    const [wf] = workflowsFromDefinition(
      definition("#/components/schemas/m~0n%20x~1y", { "m~n x/y": { title: "found" } }),
    );
    expect(wf?.inputs).toMatchObject({ title: "found" });
  });
});

describe("workflowsFromDefinition: keywords beside a $ref (the shared reader)", () => {
  it("3.1: a sibling holds together with the target instead of replacing it", () => {
    const doc = definition("#/components/schemas/Inputs", {
      Inputs: {
        type: "object",
        properties: { n: { $ref: "#/components/schemas/Max10", maximum: 20 } },
      },
      Max10: { type: "integer", maximum: 10 },
    });
    const [wf] = workflowsFromDefinition(doc);
    const inputs = wf?.inputs as { properties: Record<string, unknown> } | undefined;
    expect(inputs?.properties.n).toEqual({
      maximum: 20,
      allOf: [{ type: "integer", maximum: 10 }],
    });
  });

  it("keeps a schema that contains itself as a local $ref into $defs, for an agent to read", () => {
    const doc = definition("#/components/schemas/Node", {
      Node: { type: "object", properties: { next: { $ref: "#/components/schemas/Node" } } },
    });
    const [wf] = workflowsFromDefinition(doc);
    expect(wf?.inputs).toEqual({
      $ref: "#/$defs/Node",
      $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } },
    });
  });

  it("a $ref that comes back without going into a property is a DEFINITION_INVALID naming the pointer", () => {
    const doc = definition("#/components/schemas/Loop", {
      Loop: { anyOf: [{ type: "string" }, { $ref: "#/components/schemas/Loop" }] },
    });
    expect(() => workflowsFromDefinition(doc)).toThrow(/components\/schemas\/Loop\/anyOf\/1/);
  });
});
