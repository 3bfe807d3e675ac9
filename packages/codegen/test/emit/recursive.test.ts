// Recursive `$ref`s (a schema that contains itself): a tree, a nullable linked
// list, any JSON value, two schemas that contain each other, a recursive
// `allOf` and a `$ref` with keywords beside it. Each becomes a named
// recursive type and a lazy zod schema; the input validator gives Ajv's
// verdict on every document (deep ones included), valid ones pass the output
// reader and are assignable to Inputs, and the schema modules agree with the
// types (ajv-agreement.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../../src/definition-error.js";
import { generate } from "../../src/generate.js";
import { cleanupTempDirs, definition, projectDir, writeJson } from "../helpers.js";
import { type AgreementCase, run } from "./ajv-agreement.js";

afterAll(cleanupTempDirs);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const COMPONENTS = {
  Tree: {
    type: "object",
    required: ["value"],
    additionalProperties: false,
    properties: { value: { type: "integer" }, children: { type: "array", items: ref("Tree") } },
  },
  LinkedList: {
    type: "object",
    required: ["head"],
    properties: {
      head: { type: "string" },
      tail: { anyOf: [ref("LinkedList"), { type: "null" }] },
    },
  },
  Json: {
    anyOf: [
      { type: "string" },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
      { type: "array", items: ref("Json") },
      { type: "object", additionalProperties: ref("Json") },
    ],
  },
  Folder: { type: "object", properties: { files: ref("Files"), name: { type: "string" } } },
  Files: { type: "array", items: { anyOf: [{ type: "string" }, ref("Folder")] } },
  Named: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
  Chain: { allOf: [ref("Named")], properties: { next: ref("Chain") } },
  Bounded: {
    type: "object",
    properties: { below: { $ref: "#/components/schemas/Bounded", maxProperties: 1 } },
  },
};

/** `{value: 0, children: [{value: 1, children: [...]}]}`, `depth` levels, the last one's value `leaf`. */
function deepTree(depth: number, leaf: unknown): unknown {
  let node: unknown = { value: leaf };
  for (let i = depth - 1; i > 0; i--) node = { value: i, children: [node] };
  return node;
}

const CASES: Record<string, AgreementCase> = {
  tree: {
    schema: ref("Tree"),
    documents: [
      { value: 1 },
      { value: 1, children: [{ value: 2, children: [] }, { value: 3 }] },
      { value: 1, children: [{ value: "2" }] },
      { value: 1, children: [{}] },
      { value: 1, children: [{ value: 2, extra: true }] },
      deepTree(40, 7),
      deepTree(40, "seven"),
    ],
  },
  list: {
    schema: ref("LinkedList"),
    documents: [
      { head: "a" },
      { head: "a", tail: null },
      { head: "a", tail: { head: "b", tail: { head: "c", tail: null } } },
      { head: "a", tail: { head: 2 } },
      { head: "a", tail: { tail: null } },
    ],
  },
  json: {
    schema: ref("Json"),
    documents: [1, "a", null, [1, [2, { a: null }]], { a: { b: [true, { c: "d" }] } }],
  },
  mutual: {
    schema: ref("Folder"),
    documents: [
      { name: "root", files: ["a", { name: "sub", files: ["b", { files: [] }] }] },
      { files: ["a", { files: [1] }] },
      { files: [{ name: 2 }] },
    ],
  },
  chain: {
    schema: ref("Chain"),
    documents: [
      { id: "a" },
      { id: "a", next: { id: "b", next: { id: "c" } } },
      { id: "a", next: {} },
    ],
  },
  siblings: {
    schema: ref("Bounded"),
    documents: [{}, { below: { below: {} } }, { below: { below: {}, x: 1 } }],
  },
};

describe("recursive $ref", () => {
  it("generates named recursive types and lazy schemas that give Ajv's verdicts", async () => {
    const { verdicts, expected, diagnostics, byId, dir } = await run(CASES, "3.1.0", "r", {
      components: COMPONENTS,
      checkSchemas: true,
    });
    expect(verdicts).toEqual(expected);
    expect(diagnostics).toEqual([]);
    // The named types are exported beside Inputs and Outputs.
    expect(readFileSync(join(dir, "gen", "r", "caseTree.d.ts"), "utf8")).toContain(
      'export type { Inputs, Outputs, TreeInput, TreeOutput } from "./caseTree.types.js";',
    );
    // Past the value nesting limit the validator answers with an issue, never a stack overflow.
    const tree = byId.get("wf_0");
    expect(tree?.validateInputs({ v: deepTree(400, 7) })).toEqual([]);
    expect(tree?.validateInputs({ v: deepTree(3000, 7) })).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/nested more than \d+ levels/) }),
    ]);
  });

  it("reads the same tree in OpenAPI 3.0", async () => {
    const tree = {
      type: "object",
      required: ["value"],
      properties: {
        value: { type: "integer" },
        first: { allOf: [ref("Tree30")], description: "the first child" },
        children: { type: "array", items: ref("Tree30") },
      },
    };
    const { verdicts, expected, diagnostics } = await run(
      {
        tree: {
          schema: ref("Tree30"),
          documents: [
            { value: 1, first: { value: 2 }, children: [{ value: 2 }] },
            { value: 1, children: [{ value: "x" }] },
            { value: 1, first: { value: 2, first: {} } },
          ],
        },
      },
      "3.0.3",
      "o",
      { components: { Tree30: tree }, checkSchemas: true },
    );
    expect(verdicts).toEqual(expected);
    expect(diagnostics).toEqual([]);
  });

  it("refuses a schema that is its own alternative, at its pointer", () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "u", "openapi.json"),
      definition(
        [
          {
            id: "wf_u",
            name: "Unguarded",
            inputs: { type: "object", properties: { v: ref("Loop") } },
          },
        ],
        {
          environment: "u",
          components: { Loop: { anyOf: [{ type: "string" }, ref("Loop")] } },
        },
      ),
    );
    let error: unknown;
    try {
      generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DefinitionError);
    expect((error as DefinitionError).pointer).toBe("/components/schemas/Loop/anyOf/1");
    expect((error as DefinitionError).detail).toMatch(/without going into a property or an item/);
  });
});
