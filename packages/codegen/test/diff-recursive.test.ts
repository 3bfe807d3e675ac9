// The diff on a schema that contains itself (a recursive `$ref`): it ends,
// reports a change inside the recursive type once, where the type is first
// met, and reports nothing between two copies of the same definition.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffEnvironments } from "../src/diff.js";
import type { EnvironmentModel } from "../src/model.js";
import { readSchemas } from "../src/read-definition.js";
import { cleanupTempDirs, definition, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

function model(valueType: string): EnvironmentModel {
  const dir = tempDir();
  const tree = {
    type: "object",
    required: ["value"],
    properties: {
      value: { type: valueType },
      children: { type: "array", items: { $ref: "#/components/schemas/Tree" } },
    },
  };
  writeJson(
    join(dir, "env", "openapi.json"),
    definition(
      [
        {
          id: "wf_1",
          name: "Trees",
          inputs: {
            type: "object",
            required: ["tree"],
            properties: { tree: { $ref: "#/components/schemas/Tree" } },
          },
          outputs: { type: "object", properties: { tree: { $ref: "#/components/schemas/Tree" } } },
        },
      ],
      { components: { Tree: tree } },
    ),
  );
  return readSchemas(dir)[0] as EnvironmentModel;
}

describe("diff of recursive schemas", () => {
  it("ends, and names a change inside the recursive type at the path it is first met", () => {
    expect(diffEnvironments(model("integer"), model("integer")).changes).toEqual([]);
    const changes = diffEnvironments(model("integer"), model("string")).changes;
    expect(changes.map((c) => [c.severity, c.path])).toEqual([
      ["breaking", "inputs.tree.value"],
      ["breaking", "outputs.tree.value"],
    ]);
  });
});
