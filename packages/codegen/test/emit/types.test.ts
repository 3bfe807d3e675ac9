// The cases where openapi-typescript goes wrong: an input named
// hasOwnProperty, a `type: [object, array]` JSON input, a defaulted input.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import {
  cleanupTempDirs,
  definition,
  lineOf,
  projectDir,
  typeCheck,
  writeJson,
} from "../helpers.js";

afterAll(cleanupTempDirs);

const TYPE_CHECK_TIMEOUT = 120_000;

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

  it(
    "model is typed by the names each environment allows, and refused at run time otherwise",
    async () => {
      const dir = projectDir();
      const inputs = { type: "object", additionalProperties: false, properties: {} };
      for (const [env, models] of [
        ["prod", ["flash", "lite"]],
        ["stage", ["pro", "flash", "lite", "max", "next"]],
      ] as const)
        writeJson(
          join(dir, "schemas", env, "openapi.json"),
          definition(
            [
              { id: "wf_m", name: "Summarize", inputs, model: models },
              { id: "wf_n", name: "Plain", inputs },
            ],
            { environment: env },
          ),
        );
      generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
      const app = [
        `import type { WorkflowRunClient } from "@wfr/runtime";`,
        `import { workflows as prod } from "./gen/prod.js";`,
        `import { workflows as stage } from "./gen/stage.js";`,
        "export async function go(wfr: WorkflowRunClient) {",
        `  await wfr.launch(prod.summarize, { inputs: {}, model: "flash" });`,
        `  await wfr.launch(prod.summarize, { inputs: {}, model: "pro" }); // NOT_IN_PROD`,
        `  await wfr.launch(stage.summarize, { inputs: {}, model: "next" });`,
        `  await wfr.launch(prod.plain, { inputs: {}, model: "flash" }); // NOT_EXPOSED`,
        `  await wfr.launch(prod.plain, { inputs: {} });`,
        "}",
      ].join("\n");
      writeFileSync(join(dir, "app.ts"), app);
      const diagnostics = typeCheck(dir, ["app.ts"]);
      expect(diagnostics.filter((d) => d.file !== "app.ts")).toEqual([]);
      expect([...new Set(diagnostics.map((d) => d.line))].sort()).toEqual(
        [lineOf(app, "NOT_IN_PROD"), lineOf(app, "NOT_EXPOSED")].sort(),
      );

      const prodModule = (await import(pathToFileURL(join(dir, "gen", "prod.js")).href)) as {
        workflows: Record<string, { models: readonly string[]; modelExposed: boolean }>;
      };
      expect(prodModule.workflows.summarize?.models).toEqual(["flash", "lite"]);
      expect(prodModule.workflows.plain).toMatchObject({ models: [], modelExposed: false });
      // A JavaScript caller (no types) gets the same answer before any request is sent.
      const { createClient } = await import("@wfr/runtime");
      const client = createClient({
        baseUrl: "http://127.0.0.1:9/api/v1",
        apiKey: "k",
        fetch: () => Promise.reject(new Error("no request may be sent")),
      });
      await expect(
        client.launch(
          prodModule.workflows.summarize as never,
          { inputs: {}, model: "pro" } as never,
        ),
      ).rejects.toMatchObject({ code: "MODEL_NOT_ALLOWED" });
    },
    TYPE_CHECK_TIMEOUT,
  );

  it("JSDoc marks integers and says what a caller passes for a file, in definition order", () => {
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "t", "openapi.json"),
      definition(
        [
          {
            id: "wf_d",
            name: "Docs",
            inputs: {
              type: "object",
              additionalProperties: false,
              required: ["scan", "copies"],
              properties: {
                scan: { $ref: "#/components/schemas/FileReference" },
                copies: { type: "integer", minimum: 1, "x-input-type": "number" },
                attachments: {
                  type: "array",
                  items: { $ref: "#/components/schemas/FileReference" },
                },
              },
            },
          },
        ],
        {
          environment: "t",
          components: {
            FileReference: {
              type: "object",
              "x-input-type": "file",
              description: "Reference to an attachment sent in input_context.attachments.",
              required: ["attachment_id"],
              additionalProperties: false,
              properties: { attachment_id: { type: "string" } },
            },
          },
        },
      ),
    );
    generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    const types = readFileSync(join(dir, "gen", "t", "docs.types.d.ts"), "utf8");
    const docOf = (member: string) => {
      const at = types.indexOf(`  ${member}`);
      return types.slice(types.lastIndexOf("/**", at), at);
    };
    expect(docOf("copies:")).toContain("An integer");
    expect(docOf("copies:")).toContain("@minimum 1");
    expect(docOf("scan:")).toContain("file(bytes, { filename, mimeType })");
    expect(docOf("scan:")).not.toContain("attachment");
    expect(docOf("attachments?:")).toContain("a list of `file(");
    // Definition order: scan, copies, attachments (alphabetical would put attachments first).
    expect(types.indexOf("  scan:")).toBeLessThan(types.indexOf("  copies:"));
    expect(types.indexOf("  copies:")).toBeLessThan(types.indexOf("  attachments?:"));
  });
});
