import { describe, expect, it } from "vitest";
import { emitDefinition } from "../../src/definition/definition-emit.js";
import { DefinitionError, readDefinition } from "../../src/definition/definition-read.js";
import { validateInputs } from "../../src/definition/validate-inputs.js";

function doc(openapi: string, value: unknown, schemas: Record<string, unknown> = {}) {
  return {
    openapi,
    info: { title: "t", version: "1" },
    paths: {
      "/automations/wf_a/runs": {
        post: {
          "x-workflow": { id: "wf_a", name: "A" },
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    inputs: {
                      type: "object",
                      additionalProperties: false,
                      properties: { v: value },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: { schemas },
  };
}

function validator(d: ReturnType<typeof doc>) {
  const wf = readDefinition(d, "env").workflows.get("wf_a");
  if (!wf) throw new Error("no workflow");
  return (v: unknown) => validateInputs(wf.inputs, { v }, wf.inputsDialect).ok;
}

describe("readDefinition: schemas as JSON Schema reads them", () => {
  it("applies keywords beside a $ref together with its target in 3.1", () => {
    const schemas = { Min5: { type: "integer", minimum: 5 }, Int: { type: "integer" } };
    const capped = validator(
      doc("3.1.0", { $ref: "#/components/schemas/Min5", maximum: 8 }, schemas),
    );
    expect(capped(6)).toBe(true);
    expect(capped(4)).toBe(false);
    expect(capped(9)).toBe(false);
    const both = validator(
      doc("3.1.0", { $ref: "#/components/schemas/Int", type: "string" }, schemas),
    );
    expect(both("a")).toBe(false);
    expect(both(1)).toBe(false);
  });

  it("ignores keywords beside a $ref in 3.0, as OpenAPI 3.0 says", () => {
    const schemas = { Min5: { type: "integer", minimum: 5 } };
    const capped = validator(
      doc("3.0.3", { $ref: "#/components/schemas/Min5", maximum: 8 }, schemas),
    );
    expect(capped(9)).toBe(true);
    expect(capped(4)).toBe(false);
  });

  it("follows a $ref to a boolean schema", () => {
    expect(validator(doc("3.1.0", { $ref: "#/components/schemas/No" }, { No: false }))(1)).toBe(
      false,
    );
  });

  it("refuses keywords wfr does not support, naming them", () => {
    for (const keyword of ["additionalItems", "unevaluatedProperties", "unevaluatedItems"])
      expect(() => readDefinition(doc("3.1.0", { [keyword]: false }), "env")).toThrow(
        new RegExp(`\`${keyword}\``),
      );
    // A schema that contains itself is read (below); one that is only its own alternative is not.
    expect(() =>
      readDefinition(
        doc(
          "3.1.0",
          { $ref: "#/components/schemas/T" },
          { T: { allOf: [{ $ref: "#/components/schemas/T" }] } },
        ),
        "env",
      ),
    ).toThrow(DefinitionError);
  });
});

describe("readDefinition: $ref pointers (RFC 6901)", () => {
  it("reads #/a%7E1b as the key a/b, and ~0 / percent escapes", () => {
    const schemas = {
      "a/b": { type: "integer", maximum: 3 },
      "a~1b": { type: "string" },
      "m~n x": { type: "string", maxLength: 1 },
    };
    const slash = validator(doc("3.1.0", { $ref: "#/components/schemas/a%7E1b" }, schemas));
    expect(slash(2)).toBe(true);
    expect(slash("x")).toBe(false);
    const tilde = validator(doc("3.1.0", { $ref: "#/components/schemas/m~0n%20x" }, schemas));
    expect(tilde("ab")).toBe(false);
  });
});

describe("readSchemasDir: the shared reader's $ref resolution", () => {
  it("follows a $ref into a file beside the definition, as the generator does", async () => {
    const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { readSchemasDir } = await import("../../src/definition/definition-read.js");
    const dir = mkdtempSync(join(tmpdir(), "wfr-emu-refs-"));
    try {
      mkdirSync(join(dir, "sample"));
      writeFileSync(join(dir, "sample", "common.yaml"), "Amount:\n  type: number\n  minimum: 5\n");
      writeFileSync(
        join(dir, "sample", "openapi.json"),
        JSON.stringify(doc("3.1.0", { $ref: "common.yaml#/Amount" })),
      );
      const [env] = readSchemasDir(dir);
      const wf = env?.workflows.get("wf_a");
      if (!wf) throw new Error("no workflow");
      expect(validateInputs(wf.inputs, { v: 5 }).ok).toBe(true);
      expect(validateInputs(wf.inputs, { v: 4 }).ok).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unsupported keyword at file#pointer, where it is written", () => {
    let caught: unknown;
    try {
      readDefinition(
        doc(
          "3.1.0",
          { $ref: "#/components/schemas/T" },
          { T: { type: "array", unevaluatedItems: {} } },
        ),
        "env",
        "schemas/env/openapi.json",
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    expect((caught as DefinitionError).message).toBe(
      "schemas/env/openapi.json#/components/schemas/T/unevaluatedItems: `unevaluatedItems` is not supported",
    );
  });
});

describe("readDefinition: a schema that contains itself ($ref back to it)", () => {
  const tree = {
    type: "object",
    required: ["value"],
    properties: {
      value: { type: "integer" },
      children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
    },
  };
  /** `depth` nested trees, the innermost with `leaf` as its value. */
  const deep = (depth: number, leaf: unknown): unknown => {
    let node: unknown = { value: leaf };
    for (let i = 1; i < depth; i++) node = { value: i, children: [node] };
    return node;
  };

  it("validates recursive data in 3.1 and 3.0, deep or not", () => {
    for (const openapi of ["3.1.0", "3.0.3"]) {
      const valid = validator(doc(openapi, { $ref: "#/components/schemas/Tree" }, { Tree: tree }));
      expect(valid({ value: 1, children: [{ value: 2, children: [] }] }), openapi).toBe(true);
      expect(valid({ value: 1, children: [{ value: "2" }] }), openapi).toBe(false);
      expect(valid({ value: 1, children: [{}] }), openapi).toBe(false);
      expect(valid(deep(100, 7)), openapi).toBe(true);
      expect(valid(deep(100, "seven")), openapi).toBe(false);
    }
  });

  it("emits the definition with the recursive schema's $refs resolvable from the document root", () => {
    const d = doc("3.1.0", { $ref: "#/components/schemas/Tree" }, { Tree: tree });
    const emitted = emitDefinition(readDefinition(d, "env"), "https://emulator.test/api/v1");
    const at = (pointer: string): unknown =>
      pointer
        .slice(2)
        .split("/")
        .reduce<unknown>((node, token) => (node as Record<string, unknown>)?.[token], emitted);
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === "object")
        for (const [k, v] of Object.entries(node))
          if (k === "$ref" && typeof v === "string") refs.push(v);
          else walk(v);
    };
    walk(emitted);
    const own = refs.filter((r) => r.includes("/$defs/"));
    expect(own.length).toBeGreaterThan(0);
    for (const ref of own) expect(at(ref), ref).toMatchObject({ type: "object" });
  });

  it("refuses a schema that is its own alternative, at its pointer", () => {
    const loop = { anyOf: [{ type: "string" }, { $ref: "#/components/schemas/Loop" }] };
    expect(() =>
      readDefinition(doc("3.1.0", { $ref: "#/components/schemas/Loop" }, { Loop: loop }), "env"),
    ).toThrow(/without going into a property or an item/);
  });
});
