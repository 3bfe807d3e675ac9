// The cases where openapi-typescript goes wrong: an input named
// hasOwnProperty, a `type: [object, array]` JSON input, a defaulted input.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../src/generate.js";
import {
  cleanupTempDirs,
  definition,
  lineOf,
  projectDir,
  typeCheck,
  writeJson,
} from "./helpers.js";

afterAll(cleanupTempDirs);

describe("generated types", () => {
  it("hasOwnProperty input, JSON object/array input, defaulted input", () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        [
          {
            id: "wf_t",
            name: "Contact sync",
            inputs: {
              type: "object",
              additionalProperties: false,
              required: ["hasOwnProperty", "contacts"],
              properties: {
                hasOwnProperty: { type: "string", "x-input-type": "text" },
                contacts: { type: ["object", "array"], "x-input-type": "json" },
                dry_run: { type: "boolean", default: true, "x-input-type": "boolean" },
                toString: { type: "integer", "x-input-type": "number" },
              },
            },
          },
        ],
        { environment: "t" },
      ),
    );
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const app = [
      `import type { Inputs } from "./gen/t/contactSync.js";`,
      `export const a: Inputs = { hasOwnProperty: "x", contacts: { id: 1, tags: ["a"], nested: { ok: true } } };`,
      `export const b: Inputs = { hasOwnProperty: "x", contacts: [{ id: 1 }, 2, "three", null] };`,
      `export const c: Inputs = { hasOwnProperty: "x", contacts: {}, dry_run: false, toString: 3 };`,
      `export const d: Inputs = { hasOwnProperty: "x", contacts: "{}" }; // BAD_STRING`,
      `export const e: Inputs = { contacts: {} }; // BAD_MISSING`,
      `export const f: Inputs = { hasOwnProperty: 1, contacts: {} }; // BAD_TYPE`,
    ].join("\n");
    writeFileSync(join(dir, "app.ts"), app);
    const diagnostics = typeCheck(dir, ["app.ts"]);
    expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
    expect(diagnostics.map((d) => d.line).sort()).toEqual(
      [lineOf(app, "BAD_STRING"), lineOf(app, "BAD_MISSING"), lineOf(app, "BAD_TYPE")].sort(),
    );
  });
});
