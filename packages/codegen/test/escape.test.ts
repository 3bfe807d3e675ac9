// Hostile names, descriptions, enum values and defaults: the generated code
// must type-check, round-trip every string exactly, and execute nothing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { commentLines, stringLiteral } from "../src/escape.js";
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

const EVIL =
  "*/ $\u007bglobalThis.__pwned = 1} `$\u007bprocess.exit(1)}` \" ' \\ \u2028 \u2029 \n// x\r\n/* </script> $\u007b";

const hostile = definition(
  [
    {
      id: "wf_evil",
      name: EVIL,
      description: `desc ${EVIL}`,
      inputs: {
        type: "object",
        additionalProperties: false,
        required: ["mode", "hasOwnProperty", "payload"],
        properties: {
          mode: {
            type: "string",
            enum: [EVIL, "*/", "`", "$\u007bx}"],
            description: EVIL,
            "x-input-type": "text",
          },
          hasOwnProperty: { type: "string", "x-input-type": "text" },
          constructor: { type: "number", "x-input-type": "number" },
          __proto__: { type: "string", "x-input-type": "text" },
          "with space": { type: "boolean", "x-input-type": "boolean" },
          "1st": { type: "string", "x-input-type": "text" },
          [EVIL]: { type: "string", default: EVIL, "x-input-type": "text" },
          payload: { type: ["object", "array"], "x-input-type": "json" },
          tone: { type: "string", default: "friendly", "x-input-type": "text" },
        },
      },
      outputs: {
        type: "object",
        required: [EVIL],
        properties: { [EVIL]: { type: "string", description: EVIL } },
      },
    },
    { id: "wf_del", name: "delete" },
    { id: "wf_ctor", name: "constructor" },
    { id: "wf_proto", name: "__proto__" },
    { id: "wf_ts", name: "toString" },
    { id: "wf_hop", name: "hasOwnProperty" },
    { id: "wf_i1", name: "Invoice intake" },
    { id: "wf_i2", name: "invoice-intake" },
    { id: "wf_i3", name: "Invoice Intake!" },
    { id: "wf_u", name: "Ünïcödé 請求書" },
    { id: "wf_d", name: "2024 report" },
    { id: "wf_e", name: "" },
  ],
  { environment: "evil" },
);
// JSON.parse keeps "__proto__" as an own key (an object literal would not).
const doc = JSON.parse(
  JSON.stringify(hostile).replace(
    '"hasOwnProperty":{',
    '"__proto__":{"type":"string","x-input-type":"text"},"hasOwnProperty":{',
  ),
);

describe("escaping", () => {
  it("string literals and comments cannot be broken out of", () => {
    // biome-ignore lint/security/noGlobalEval: evaluating the emitted literal is the test
    expect(eval(stringLiteral(EVIL))).toBe(EVIL);
    const comment = `/**\n${commentLines(EVIL)
      .map((l) => ` * ${l}`)
      .join("\n")}\n */ 1`;
    // biome-ignore lint/security/noGlobalEval: evaluating the emitted comment is the test
    expect(eval(comment)).toBe(1);
  });

  it("hostile definitions generate code that type-checks, executes nothing and round-trips every string", async () => {
    const dir = projectDir();
    writeJson(join(dir, "schemas", "evil", "openapi.json"), doc);
    const { models } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const ids = models[0]?.workflows.map((w) => w.identifier) ?? [];
    expect(new Set(ids).size).toBe(ids.length);
    const evilId = models[0]?.workflows.find((w) => w.id === "wf_evil")?.identifier as string;

    const app = [
      `import { workflows, environment } from "./gen/evil/index.js";`,
      `import type { Inputs } from "./gen/evil/${evilId}.js";`,
      'const ok: Inputs = { mode: "*/", hasOwnProperty: "h", payload: { a: [1, { b: null }] } };',
      'const arr: Inputs = { mode: "`", hasOwnProperty: "h", payload: [1, "x"] };',
      'const bad: Inputs = { mode: "*/", hasOwnProperty: "h", payload: "{}" }; // BAD_JSON',
      'const badEnum: Inputs = { mode: "nope", hasOwnProperty: "h", payload: {} }; // BAD_ENUM',
      "export const all = [ok, arr, bad, badEnum, workflows, environment];",
    ].join("\n");
    writeFileSync(join(dir, "app.ts"), app);
    const diagnostics = typeCheck(dir, ["app.ts"]);
    if (process.env.DEBUG_TC) console.log(diagnostics);
    const appErrors = diagnostics
      .filter((d) => d.file === "app.ts")
      .map((d) => d.line)
      .sort();
    expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
    expect(appErrors).toEqual([lineOf(app, "BAD_JSON"), lineOf(app, "BAD_ENUM")]);

    const g = globalThis as { __pwned?: unknown };
    const mod = (await import(pathToFileURL(join(dir, "gen", "evil", "index.js")).href)) as {
      workflows: Record<
        string,
        { name: string; validateInputs(i: unknown): { field: string; reason: string }[] }
      >;
    };
    expect(g.__pwned).toBeUndefined();
    const evil = mod.workflows[evilId];
    expect(evil?.name).toBe(EVIL);
    expect(mod.workflows.deleteWorkflow?.name).toBe("delete");
    expect(Object.getPrototypeOf(mod.workflows)).toBe(Object.prototype);
    expect(evil?.validateInputs({ mode: EVIL, hasOwnProperty: "h", payload: {} })).toEqual([]);
    expect(evil?.validateInputs({ mode: EVIL, hasOwnProperty: "h", payload: "{}" })).toEqual([
      expect.objectContaining({ field: "payload", reason: "INVALID_TYPE" }),
    ]);
    // Issues come in definition order (mode is declared before hasOwnProperty).
    expect(evil?.validateInputs({ mode: "x", payload: [], extra: 1 })).toEqual([
      expect.objectContaining({ field: "mode", reason: "INVALID_TYPE" }),
      expect.objectContaining({ field: "hasOwnProperty", reason: "REQUIRED" }),
      expect.objectContaining({ field: "extra", reason: "UNKNOWN_INPUT" }),
    ]);
    expect(g.__pwned).toBeUndefined();
  });
});
