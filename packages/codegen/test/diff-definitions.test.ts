// Changes inside allOf, oneOf, anyOf and type lists are classified, not
// invisible: two definition files on disk, read the way
// `wfr-codegen diff` reads them.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffDefinitions } from "../src/diff-definitions.js";
import { cleanupTempDirs, definition, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

const Base = {
  type: "object",
  required: ["street"],
  properties: { street: { type: "string", maxLength: 40 } },
};

async function changesOf(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  side: "inputs" | "outputs" = "inputs",
  components: { before?: Record<string, unknown>; after?: Record<string, unknown> } = {},
) {
  const dir = tempDir();
  const write = (name: string, field: Record<string, unknown>, extra?: Record<string, unknown>) => {
    const schema = { type: "object", properties: { f: field }, required: ["f"] };
    writeJson(
      join(dir, name, "openapi.json"),
      definition(
        [
          {
            id: "wf_1",
            name: "One",
            ...(side === "inputs"
              ? { inputs: { ...schema, additionalProperties: false } }
              : { outputs: schema }),
          },
        ],
        { environment: "e", components: { Base, ...extra } },
      ),
    );
  };
  write("old", before, components.before);
  write("new", after, components.after);
  const report = await diffDefinitions(
    join(dir, "old", "openapi.json"),
    join(dir, "new", "openapi.json"),
    {
      cwd: dir,
    },
  );
  return report.changes.map((c) => ({ severity: c.severity, kind: c.kind, path: c.path }));
}

describe("diff of combinators", () => {
  it("a raised minProperties narrows inputs", async () => {
    expect(
      await changesOf({ type: "object", minProperties: 1 }, { type: "object", minProperties: 2 }),
    ).toEqual([{ severity: "breaking", kind: "input-min-properties-narrowed", path: "inputs.f" }]);
  });

  it("a constraint tightened inside a part that must hold beside `type` (kind all) breaks inputs", async () => {
    const field = (max: number) => ({
      type: "string",
      anyOf: [{ maxLength: max }, { minLength: 4 }],
    });
    expect(await changesOf(field(3), field(2))).toEqual([
      {
        severity: "breaking",
        kind: "input-max-length-narrowed",
        // The alternative `{maxLength: 2}` has no type: every JSON type, its rule on text.
        path: "inputs.f(all of 2)(one of one of (text | number | boolean | object | array))(one of text)",
      },
    ]);
  });

  it("a constraint tightened inside an allOf branch breaks inputs", async () => {
    const before = { allOf: [{ $ref: "#/components/schemas/Base" }, { type: "object" }] };
    expect(
      await changesOf(before, before, "inputs", {
        after: { Base: { ...Base, properties: { street: { type: "string", maxLength: 20 } } } },
      }),
    ).toEqual([
      { severity: "breaking", kind: "input-max-length-narrowed", path: "inputs.f.street" },
    ]);
  });

  it("a property required by a new allOf branch breaks inputs", async () => {
    expect(
      await changesOf(
        { allOf: [{ $ref: "#/components/schemas/Base" }] },
        {
          allOf: [
            { $ref: "#/components/schemas/Base" },
            { type: "object", required: ["zip"], properties: { zip: { type: "string" } } },
          ],
        },
      ),
    ).toEqual([{ severity: "breaking", kind: "input-added-required", path: "inputs.f.zip" }]);
  });

  it("oneOf: an alternative removed breaks inputs, one added does not; for outputs the reverse", async () => {
    const two = { oneOf: [{ type: "string" }, { type: "number" }] };
    const three = { oneOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }] };
    expect(await changesOf(three, two)).toEqual([
      { severity: "breaking", kind: "input-alternative-removed", path: "inputs.f" },
    ]);
    expect(await changesOf(two, three)).toEqual([
      { severity: "non-breaking", kind: "input-alternative-added", path: "inputs.f" },
    ]);
    expect(await changesOf(two, three, "outputs")).toEqual([
      { severity: "breaking", kind: "output-alternative-added", path: "outputs.f" },
    ]);
  });

  it("a constraint inside an alternative is compared with every rule", async () => {
    expect(
      await changesOf(
        { anyOf: [{ type: "string", maxLength: 10 }, { type: "number" }] },
        { anyOf: [{ type: "string", maxLength: 5 }, { type: "number" }] },
      ),
    ).toEqual([
      { severity: "breaking", kind: "input-max-length-narrowed", path: "inputs.f(one of text)" },
    ]);
  });

  it("anyOf becoming oneOf breaks inputs; a single type becoming a type list widens them", async () => {
    const alternatives = [{ type: "string" }, { type: "number" }];
    expect(await changesOf({ anyOf: alternatives }, { oneOf: alternatives })).toEqual([
      { severity: "breaking", kind: "input-alternatives-made-exclusive", path: "inputs.f" },
    ]);
    expect(await changesOf({ type: "string" }, { type: ["string", "number"] })).toEqual([
      { severity: "non-breaking", kind: "input-type-widened", path: "inputs.f" },
    ]);
    expect(await changesOf({ type: ["string", "number"] }, { type: "string" })).toEqual([
      expect.objectContaining({ severity: "breaking", path: "inputs.f" }),
    ]);
  });

  it("const and object enum values are compared as JSON", async () => {
    expect(await changesOf({ const: { a: 1 } }, { enum: [{ a: 1 }, { a: 2 }] })).toEqual([
      { severity: "non-breaking", kind: "input-enum-value-added", path: "inputs.f" },
    ]);
    expect(await changesOf({ const: { a: 1 } }, { const: { a: 1 } })).toEqual([]);
  });
});
