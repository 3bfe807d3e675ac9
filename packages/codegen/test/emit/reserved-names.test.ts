// Reserved names not covered by names.test.ts, through
// the built CLI and the app's type check: a field literally named "[]" (the
// model's name for array items) is an ordinary required field, and an
// environment named `_shared` cannot replace the shared modules.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { wfrCodegen } from "../cli-process.js";
import { cleanupTempDirs, definition, projectDir, typeCheck, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("reserved names through generate and the app's tsc", () => {
  it('a field named "[]" is a required field in the types, the validator and the reader', async () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "prod", "openapi.json"),
      definition(
        [
          {
            id: "wf_1",
            name: "Brackets",
            inputs: {
              type: "object",
              required: ["[]"],
              additionalProperties: false,
              properties: {
                "[]": { type: "string" },
                list: { type: "array", items: { type: "string" } },
              },
            },
            outputs: {
              type: "object",
              required: ["[]"],
              properties: { "[]": { type: "integer" } },
            },
          },
        ],
        { environment: "prod" },
      ),
    );
    const r = wfrCodegen(["generate", "--schemas", "schemas", "--out", "gen"], dir);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);

    writeFileSync(
      join(dir, "app.ts"),
      [
        `import { buildBracketsInputs, readBracketsOutputs, type Inputs } from "./gen/prod/brackets.js";`,
        `export const ok: Inputs = { "[]": "x", list: ["a"] };`,
        "// @ts-expect-error the field named [] is required",
        "export const missing: Inputs = { list: [] };",
        `export const read: number = readBracketsOutputs({ "[]": 1 })["[]"];`,
        "export const built = buildBracketsInputs(ok);",
      ].join("\n"),
    );
    expect(typeCheck(dir, ["app.ts"])).toEqual([]);

    const mod = (await import(pathToFileURL(join(dir, "gen", "prod", "brackets.js")).href)) as {
      buildBracketsInputs(inputs: unknown): unknown;
    };
    expect(mod.buildBracketsInputs({ "[]": "x" })).toEqual({ "[]": "x" });
    expect(() => mod.buildBracketsInputs({ list: [] })).toThrow(/REQUIRED/);
  });

  it("an environment named _shared is refused with file#pointer, exit 1, and the shared modules stay", () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "prod", "openapi.json"),
      definition([{ id: "wf_1", name: "One" }], { environment: "prod" }),
    );
    expect(wfrCodegen(["generate", "--schemas", "schemas", "--out", "gen"], dir).status).toBe(0);
    const shared = readFileSync(join(dir, "gen", "_shared", "support.js"), "utf8");

    const doc = definition([{ id: "wf_2", name: "Two" }], { environment: "prod" });
    (doc.info as Record<string, unknown>)["x-environment"] = undefined;
    writeJson(join(dir, "schemas", "_shared", "openapi.json"), doc);
    const r = wfrCodegen(["generate", "--schemas", "schemas", "--out", "gen"], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'wfr-codegen: _shared/openapi.json#/info/x-environment: environment name "_shared" must start with a letter or digit and hold only letters, digits, "-" and "_" (a leading "_" is kept for the generated shared modules, _shared/)\n',
    );
    expect(readFileSync(join(dir, "gen", "_shared", "support.js"), "utf8")).toBe(shared);
    expect(existsSync(join(dir, "gen", "_shared", "index.js"))).toBe(false);
  });
});
