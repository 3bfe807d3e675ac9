import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../src/cli.js";
import { DefinitionError } from "../src/definition-error.js";
import type { FieldModel } from "../src/model.js";
import { readDefinition, readSchemas } from "../src/read-definition.js";
import { listFiles } from "../src/write-output.js";
import {
  cleanupTempDirs,
  definition,
  EXAMPLE_SCHEMAS,
  REPO,
  tempDir,
  writeJson,
} from "./helpers.js";

afterAll(cleanupTempDirs);

const field = (fields: readonly FieldModel[], name: string): FieldModel => {
  const f = fields.find((x) => x.name === name);
  if (!f) throw new Error(`no field ${name}`);
  return f;
};

function errorOf(fn: () => unknown): DefinitionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError");
}

describe("reader: the example schemas", () => {
  it("reads both environments into the model", () => {
    const models = readSchemas(EXAMPLE_SCHEMAS);
    expect(models.map((m) => m.name)).toEqual(["sample", "sample-staging"]);
    const prod = models[0];
    if (!prod) throw new Error("no sample");
    expect(prod.workspace).toBe("ws_acme_ap");
    expect(prod.baseUrl).toBe("https://api.workflows.example.com/api/v1");
    expect(prod.sourceFile).toBe("sample/openapi.json");
    expect(prod.sourceHash).toBe(
      createHash("sha256")
        .update(readFileSync(join(EXAMPLE_SCHEMAS, "sample", "openapi.json")))
        .digest("hex"),
    );
    const invoice = prod.workflows.find((w) => w.id === "wf_P7Qd2Lx9");
    expect(invoice?.identifier).toBe("invoiceIntake");
    expect(invoice?.modelExposed).toBe(true);
    const inputs = invoice?.inputs ?? [];
    expect(field(inputs, "invoice_pdf")).toMatchObject({ kind: "file", required: true });
    expect(field(inputs, "supporting_docs")).toMatchObject({ kind: "files", required: false });
    expect(field(inputs, "line_items")).toMatchObject({ kind: "json" });
    expect(field(inputs, "currency")).toMatchObject({
      kind: "enum",
      enumValues: ["USD", "EUR", "GBP"],
      hasDefault: true,
      required: false,
      default: "USD",
    });
    expect(field(inputs, "due_date")).toMatchObject({ kind: "text", format: "date" });
    expect(field(invoice?.outputs ?? [], "receipt")).toMatchObject({
      kind: "file",
      required: false,
    });
    const draft = prod.workflows.find((w) => w.id === "wf_P1dRaft0");
    expect(draft?.state).toBe("draft");
    const reply = prod.workflows.find((w) => w.id === "wf_P0ZrTt55");
    expect(field(reply?.inputs ?? [], "context")).toMatchObject({
      kind: "json",
      nullable: true,
      required: false,
    });
  });
});

describe("reader: OpenAPI 3.0 and 3.1, JSON and YAML", () => {
  const inputs31 = {
    type: "object",
    additionalProperties: false,
    required: ["title", "doc", "payload"],
    properties: {
      title: { type: ["string", "null"], "x-input-type": "text" },
      note: {
        anyOf: [{ type: "string", maxLength: 20 }, { type: "null" }],
        "x-input-type": "text",
      },
      payload: { type: ["object", "array"], "x-input-type": "json" },
      doc: { $ref: "common.yaml#/FileRef", description: "The document" },
      count: { type: "integer", default: 3, "x-input-type": "number" },
      nested: {
        type: "object",
        additionalProperties: false,
        required: ["a"],
        properties: {
          a: { type: "number" },
          tags: { type: "array", items: { type: "string", enum: ["x", "y"] } },
        },
      },
    },
  };

  it("reads 3.1 with sibling-file $ref, $ref with siblings and type-array nullability", () => {
    const dir = tempDir();
    writeJson(
      join(dir, "e31", "openapi.json"),
      definition([{ id: "wf_1", name: "One", inputs: inputs31 }], { environment: "e31" }),
    );
    writeFileSync(
      join(dir, "e31", "common.yaml"),
      stringify({
        FileRef: {
          type: "object",
          "x-input-type": "file",
          properties: { attachment_id: { type: "string" } },
        },
      }),
    );
    const [env] = readSchemas(dir);
    const wf = env?.workflows[0];
    const f = wf?.inputs ?? [];
    expect(field(f, "title")).toMatchObject({ kind: "text", nullable: true, required: true });
    expect(field(f, "note")).toMatchObject({
      kind: "text",
      nullable: true,
      required: false,
      maxLength: 20,
    });
    expect(field(f, "payload")).toMatchObject({ kind: "json", nullable: false });
    expect(field(f, "doc")).toMatchObject({
      kind: "file",
      required: true,
      description: "The document",
    });
    expect(field(f, "count")).toMatchObject({
      kind: "integer",
      hasDefault: true,
      required: false,
      default: 3,
    });
    const nested = field(f, "nested");
    expect(nested.kind).toBe("object");
    expect(nested.additionalProperties).toBe(false);
    expect(field(nested.fields ?? [], "a")).toMatchObject({ kind: "number", required: true });
    expect(field(nested.fields ?? [], "tags").items).toMatchObject({
      kind: "enum",
      enumValues: ["x", "y"],
    });
  });

  it("reads 3.0 YAML with nullable: true and oneOf object/array json", () => {
    const dir = tempDir();
    const doc = definition(
      [
        {
          id: "wf_2",
          name: "Two",
          inputs: {
            type: "object",
            additionalProperties: false,
            required: ["when", "data"],
            properties: {
              when: { type: "string", format: "date-time", nullable: true },
              data: {
                oneOf: [{ type: "object" }, { type: "array", items: {} }],
                "x-input-type": "json",
              },
              files: {
                type: "array",
                items: { $ref: "#/components/schemas/FileReference" },
                "x-input-type": "files",
              },
              mode: { type: "string", enum: ["a", "b"], default: "a" },
            },
          },
          outputs: {
            type: "object",
            properties: { report: { $ref: "#/components/schemas/FileOutput" }, any: {} },
          },
        },
      ],
      { openapi: "3.0.3", environment: "yamlenv" },
    );
    writeFileSync(join(dir, "x.yaml"), "");
    writeFileSync(join(dir, "placeholder"), "");
    const envDir = join(dir, "yamlenv");
    writeJson(join(envDir, "unused.json"), {});
    writeFileSync(join(envDir, "openapi.yaml"), stringify(doc));
    const [env] = readSchemas(dir);
    expect(env?.sourceFile).toBe("yamlenv/openapi.yaml");
    const f = env?.workflows[0]?.inputs ?? [];
    expect(field(f, "when")).toMatchObject({
      kind: "text",
      nullable: true,
      format: "date-time",
      required: true,
    });
    expect(field(f, "data")).toMatchObject({ kind: "json", required: true });
    expect(field(f, "files")).toMatchObject({ kind: "files", required: false });
    expect(field(f, "mode")).toMatchObject({ kind: "enum", hasDefault: true, required: false });
    const o = env?.workflows[0]?.outputs ?? [];
    expect(field(o, "report")).toMatchObject({ kind: "file" });
    expect(field(o, "any")).toMatchObject({ kind: "unknown" });
  });

  it("resolves $ref siblings written in another file than the $ref target", () => {
    const dir = tempDir();
    const doc = definition([
      {
        id: "wf_1",
        name: "One",
        inputs: {
          type: "object",
          additionalProperties: false,
          properties: {
            list: { $ref: "shared/types.json#/List", items: { $ref: "#/components/schemas/Item" } },
            ["__proto__"]: { $ref: "shared/types.json#/Text" },
          },
        },
      },
    ]);
    (doc.components.schemas as Record<string, unknown>).Item = { type: "integer" };
    const text = JSON.stringify(doc).replace(
      '"__proto__":{',
      '"__proto__":{"description":"proto field",',
    );
    writeFileSync(join(dir, "openapi.json.tmp"), "");
    const envDir = join(dir, "env");
    writeJson(join(envDir, "shared", "types.json"), {
      List: { type: "array", description: "a list" },
      Text: { type: "string" },
    });
    writeFileSync(join(envDir, "openapi.json"), text);
    const f = readSchemas(dir)[0]?.workflows[0]?.inputs ?? [];
    expect(field(f, "list")).toMatchObject({
      kind: "array",
      description: "a list",
      items: { kind: "integer" },
    });
    expect(field(f, "__proto__")).toMatchObject({ kind: "text", description: "proto field" });
  });

  it("uses the folder name when info.x-environment is missing", () => {
    const dir = tempDir();
    const doc = definition([{ id: "wf_1", name: "One" }]);
    (doc.info as Record<string, unknown>)["x-environment"] = undefined;
    writeJson(join(dir, "qa", "openapi.json"), doc);
    expect(readSchemas(dir)[0]?.name).toBe("qa");
  });
});

describe("reader: bad input names the file and the JSON pointer", () => {
  function write(doc: unknown): string {
    const dir = tempDir();
    writeJson(join(dir, "env", "openapi.json"), doc);
    return dir;
  }

  it("rejects a document that is not OpenAPI", () => {
    const e = errorOf(() => readSchemas(write({ swagger: "2.0" })));
    expect(e.file).toBe("env/openapi.json");
    expect(e.pointer).toBe("");
    expect(e.message).toMatch(/not an OpenAPI definition/);
  });

  it("rejects a launch operation without x-workflow", () => {
    const doc = definition([{ id: "wf_1", name: "One" }]);
    const op = (doc.paths["/automations/wf_1/runs"] as { post: Record<string, unknown> }).post;
    op["x-workflow"] = undefined;
    const e = errorOf(() => readSchemas(write(JSON.parse(JSON.stringify(doc)))));
    expect(e.pointer).toBe("/paths/~1automations~1wf_1~1runs/post");
    expect(e.message).toMatch(/without `x-workflow`/);
  });

  it("rejects a broken local $ref and a missing sibling file", () => {
    const doc = definition([
      {
        id: "wf_1",
        name: "One",
        inputs: { type: "object", properties: { a: { $ref: "#/components/schemas/Nope" } } },
      },
    ]);
    const e = errorOf(() => readSchemas(write(doc)));
    expect(e.file).toBe("env/openapi.json");
    expect(e.pointer).toBe("/components/schemas/Workflow_wf_1_Inputs/properties/a");
    expect(e.message).toMatch(/broken \$ref/);
    const doc2 = definition([
      {
        id: "wf_1",
        name: "One",
        inputs: { type: "object", properties: { a: { $ref: "missing.json#/A" } } },
      },
    ]);
    expect(errorOf(() => readSchemas(write(doc2))).message).toMatch(
      /broken \$ref: cannot read env\/missing\.json/,
    );
  });

  it("reads a $id that is only a fragment (as schema generators write them) and refuses any other", () => {
    const inputs = (id: string) => ({
      type: "object",
      properties: { a: { $id: id, type: "string" } },
    });
    const ok = definition([{ id: "wf_1", name: "One", inputs: inputs("#/properties/a") }]);
    expect(readSchemas(write(ok))[0]?.workflows[0]?.inputs[0]).toMatchObject({ kind: "text" });
    const other = definition([{ id: "wf_1", name: "One", inputs: inputs("https://x.test/a") }]);
    expect(errorOf(() => readSchemas(write(other))).message).toMatch(/`\$id` is not supported/);
  });

  it("detects $ref cycles", () => {
    const doc = definition([
      {
        id: "wf_1",
        name: "One",
        inputs: { type: "object", properties: { a: { $ref: "#/components/schemas/Node" } } },
      },
    ]);
    (doc.components.schemas as Record<string, unknown>).Node = {
      type: "object",
      properties: { child: { $ref: "#/components/schemas/Node" } },
    };
    (doc.components.schemas as Record<string, unknown>).Loop = {
      $ref: "#/components/schemas/Loop",
    };
    // A schema that contains itself is a named recursive type (test/emit/recursive.test.ts);
    // a `$ref` that only refers to itself names no schema at all.
    expect(readSchemas(write(doc))[0]?.workflows[0]?.recursiveTypes?.[0]?.name).toBe("NodeInput");
    const doc2 = definition([
      { id: "wf_1", name: "One", inputs: { $ref: "#/components/schemas/Loop" } },
    ]);
    (doc2.components.schemas as Record<string, unknown>).Loop = {
      $ref: "#/components/schemas/Loop",
    };
    expect(errorOf(() => readSchemas(write(doc2))).message).toMatch(/cyclic \$ref/);
  });

  it("rejects an inputs schema that is not an object", () => {
    const doc = definition([{ id: "wf_1", name: "One", inputs: { type: "string" } }]);
    const e = errorOf(() => readSchemas(write(doc)));
    expect(e.pointer).toBe("/components/schemas/Workflow_wf_1_Inputs");
    expect(e.message).toMatch(/inputs schema is not an object/);
  });

  it("rejects an x-workflow.id that does not match the path", () => {
    const doc = definition([{ id: "wf_1", name: "One" }]);
    const op = (doc.paths["/automations/wf_1/runs"] as { post: { "x-workflow": { id: string } } })
      .post;
    op["x-workflow"].id = "wf_2";
    const e = errorOf(() => readSchemas(write(doc)));
    expect(e.pointer).toBe("/paths/~1automations~1wf_1~1runs/post/x-workflow/id");
  });

  it("reads a single file for the diff (readDefinition)", () => {
    const dir = write(definition([{ id: "wf_1", name: "One" }]));
    expect(readDefinition(join(dir, "env", "openapi.json")).workflows.map((w) => w.id)).toEqual([
      "wf_1",
    ]);
  });

  it("CLI: exit 1 with file and pointer, and packages/generated/src left exactly as it was", async () => {
    const out = join(REPO, "packages", "generated", "src");
    const snapshot = () => listFiles(out).map((f) => [f, readFileSync(join(out, f), "utf8")]);
    const before = snapshot();
    const parent = readdirSync(join(REPO, "packages", "generated")).filter((f) =>
      f.startsWith(".src"),
    );
    const doc = definition([{ id: "wf_1", name: "One", inputs: { type: "string" } }]);
    const dir = write(doc);
    let stderr = "";
    const code = await main(["generate", "--schemas", dir, "--out", out], {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
    });
    expect(code).toBe(1);
    expect(stderr).toContain("env/openapi.json#/components/schemas/Workflow_wf_1_Inputs");
    expect(snapshot()).toEqual(before);
    expect(
      readdirSync(join(REPO, "packages", "generated")).filter((f) => f.startsWith(".src")),
    ).toEqual(parent);
  });
});

describe("reader: value constraints", () => {
  const read = (inputs: Record<string, unknown>, openapi?: string) => {
    const dir = tempDir();
    const file = join(dir, "schemas", "test", "openapi.json");
    writeJson(
      file,
      definition(
        [{ id: "wf_c", name: "C", inputs: { type: "object", properties: inputs } }],
        openapi !== undefined ? { openapi } : {},
      ),
    );
    return readDefinition(file);
  };

  it("keeps every constraint in the model, for the kinds it applies to", () => {
    const m = read({
      code: { type: "string", minLength: 2, maxLength: 5, pattern: "^[a-z]+$", format: "email" },
      price: {
        type: "number",
        minimum: 0,
        maximum: 9,
        exclusiveMinimum: 1,
        exclusiveMaximum: 8,
        multipleOf: 0.5,
      },
      tags: {
        type: "array",
        items: { type: "string" },
        minItems: 1,
        maxItems: 3,
        uniqueItems: true,
      },
      flag: { type: "boolean", minimum: 3 },
    });
    const inputs = m.workflows[0]?.inputs ?? [];
    expect(field(inputs, "code")).toMatchObject({
      minLength: 2,
      maxLength: 5,
      pattern: "^[a-z]+$",
      format: "email",
    });
    expect(field(inputs, "price")).toMatchObject({
      minimum: 0,
      maximum: 9,
      exclusiveMinimum: 1,
      exclusiveMaximum: 8,
      multipleOf: 0.5,
    });
    expect(field(inputs, "tags")).toMatchObject({ minItems: 1, maxItems: 3, uniqueItems: true });
    expect(field(inputs, "flag").minimum).toBeUndefined();
  });

  it("normalizes OpenAPI 3.0's boolean exclusive bounds into the numeric form", () => {
    const m = read(
      {
        n: {
          type: "integer",
          minimum: 1,
          exclusiveMinimum: true,
          maximum: 5,
          exclusiveMaximum: false,
        },
      },
      "3.0.3",
    );
    const n = field(m.workflows[0]?.inputs ?? [], "n");
    expect(n).toMatchObject({ exclusiveMinimum: 1, maximum: 5 });
    expect(n.minimum).toBeUndefined();
    expect(n.exclusiveMaximum).toBeUndefined();
  });

  it("rejects an unusable pattern or a bad bound with file#pointer", () => {
    const e = errorOf(() => read({ code: { type: "string", pattern: "([a-z" } }));
    expect(e.message).toMatch(
      /^test\/openapi\.json#\/components\/schemas\/Workflow_wf_c_Inputs\/properties\/code: `pattern` is not a valid regular expression/,
    );
    expect(errorOf(() => read({ n: { type: "number", multipleOf: 0 } })).message).toMatch(
      /properties\/n: `multipleOf` must be greater than 0/,
    );
    expect(errorOf(() => read({ s: { type: "string", maxLength: -1 } })).message).toMatch(
      /properties\/s: `maxLength` must be a non-negative integer/,
    );
  });
});
