// Runs the generator on schemas nobody here wrote, each placed as the one
// input `doc` of a workflow in its own OpenAPI 3.1 definition, and measures
// it against Ajv: which schemas are refused (by keyword), where the
// generated input validator disagrees with Ajv on a document, and which
// documents Ajv accepts but the generated `Inputs` type refuses (one tsc
// program for all of them). Used by schemastore-corpus.mjs (a SchemaStore
// checkout); needs `pnpm build` first.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DefinitionError, generate, readDefinition } from "../dist/index.js";

const CODEGEN = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(CODEGEN, "package.json"));
// The compiler teams get by default (the workspace root's TypeScript 7): its native `tsc`, one
// process for every document. The TypeScript 5 API in this process cost the in-suite corpus
// about 15 more CPU-seconds, for a verdict users do not see.
const TSC = join(
  dirname(
    createRequire(join(CODEGEN, "..", "..", "package.json")).resolve("typescript/package.json"),
  ),
  "bin",
  "tsc",
);

/** Where the Ajv copies of a bundle live: relative `$ref`s (`base.json#/...`) resolve between them. */
const AJV_BASE = "https://corpus.invalid/";

/**
 * The Ajv class of a schema's draft (`$schema`), with wfr's four asserted
 * formats checked as wfr checks them and the files of its bundle (`files`,
 * by name) added at their names under AJV_BASE, read in the schema's draft.
 */
async function ajvFor(schema, checkFormat, files = {}) {
  const draft = typeof schema.$schema === "string" ? schema.$schema : "";
  let Ajv;
  if (draft.includes("2020-12")) Ajv = require("ajv/dist/2020.js").Ajv2020;
  else if (draft.includes("2019-09")) Ajv = require("ajv/dist/2019.js").Ajv2019;
  else if (/draft-0[34]/.test(draft)) {
    // The emulator's draft-4 Ajv, where it is installed beside this package.
    const emulator = createRequire(join(CODEGEN, "..", "emulator", "package.json"));
    Ajv = emulator("ajv-draft-04");
    Ajv = Ajv.default ?? Ajv;
  } else Ajv = require("ajv").Ajv;
  // `code.optimize: false`: Ajv's pass over the code it generated only simplifies that code (the
  // same verdicts); on Biome's configuration schema it was half of the corpus's Ajv time (5 CPU-s
  // to compile, 2.5 without it).
  const ajv = new Ajv({
    strict: false,
    logger: false,
    allowUnionTypes: true,
    code: { optimize: false },
  });
  // Formats are annotations (JSON Schema's default) except the four wfr asserts, documented.
  for (const format of ["date", "date-time", "email", "uri"])
    ajv.addFormat(format, (value) => checkFormat(format, value));
  const idKey = /draft-0[34]/.test(draft) ? "id" : "$id";
  for (const [name, file] of Object.entries(files)) {
    const { $schema: _s, $id: _i, id: _d, ...rest } = file;
    ajv.addSchema({ ...rest, [idKey]: `${AJV_BASE}${name}` });
  }
  return { ajv, idKey };
}

/**
 * The schema as the 3.1 (2020-12) definition holds it: its root identity dropped, its local
 * `$ref`s rebased under `base` (a JSON pointer), and, for drafts 4 to 7, their own spelling
 * translated: a tuple (`items` as a list, the rest in `additionalItems`) becomes `prefixItems`
 * and `items`; a nested `$schema` that restates the document's own draft goes with the root's.
 * The keywords beside a `$ref` stay: those drafts ignore them, but Ajv, the reference here (as
 * in SchemaStore's own tests), applies them, and so does 2020-12.
 */
function placed(schema, base) {
  const dialect = (uri) => String(uri ?? "").replace(/#$/, "");
  const olderDraft = /draft-0[3-7]/.test(String(schema.$schema ?? ""));
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    // A nested `$schema` that restates the document's draft is translated with the rest of it.
    let entries = Object.entries(node).filter(
      ([key, value]) => key !== "$schema" || dialect(value) !== dialect(schema.$schema),
    );
    if (olderDraft && Array.isArray(node.items))
      entries = entries.flatMap(([key, value]) =>
        key === "items"
          ? [["prefixItems", value]]
          : key === "additionalItems"
            ? [["items", value]]
            : [[key, value]],
      );
    else if (olderDraft) entries = entries.filter(([key]) => key !== "additionalItems");
    return Object.fromEntries(
      entries.map(([key, value]) =>
        key === "$ref" && typeof value === "string" && value.startsWith("#")
          ? [key, `#${base}${translatedPointer(value.slice(1))}`]
          : [key, walk(value)],
      ),
    );
  };
  // A pointer through a tuple of an older draft follows its new spelling (`items/0` is `prefixItems/0`).
  const translatedPointer = (pointer) => {
    if (!olderDraft || !pointer.startsWith("/")) return pointer;
    let node = schema;
    return pointer
      .split("/")
      .map((raw, i) => {
        if (i === 0) return raw;
        const token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
        const tuple = node !== null && typeof node === "object" && Array.isArray(node.items);
        node = node !== null && typeof node === "object" ? node[token] : undefined;
        if (tuple && token === "items") return "prefixItems";
        if (tuple && token === "additionalItems") return "items";
        return raw;
      })
      .join("/");
  };
  const { $schema: _schema, $id: _id, id: _draft4Id, ...rest } = schema;
  return walk(rest);
}

/**
 * The schema as wfr reads a saved default (docs/definition-format.md: a field
 * with a `default` is optional for the caller, the default applies): each
 * `required` list without the names whose property schema (a local `$ref`
 * followed) has a `default`. A disagreement that this schema explains is
 * that documented choice, counted apart.
 */
function defaultsOptional(schema) {
  const at = (pointer) => {
    let node = schema;
    for (const raw of pointer.split("/").slice(1)) {
      const token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      node = node !== null && typeof node === "object" ? node[token] : undefined;
    }
    return node;
  };
  const target = (node) => {
    for (let hops = 0; hops < 20; hops++) {
      if (node === null || typeof node !== "object" || typeof node.$ref !== "string") return node;
      if (!node.$ref.startsWith("#/")) return node;
      if (Object.hasOwn(node, "default")) return node;
      node = at(node.$ref.slice(1));
    }
    return node;
  };
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const out = Object.fromEntries(
      Object.entries(node).map(([k, v]) =>
        ["enum", "const", "default", "examples"].includes(k) ? [k, v] : [k, walk(v)],
      ),
    );
    const props = node.properties;
    if (Array.isArray(node.required) && props !== null && typeof props === "object") {
      out.required = node.required.filter((name) => {
        const property = Object.hasOwn(props, name) ? target(props[name]) : undefined;
        return !(
          property !== null &&
          typeof property === "object" &&
          Object.hasOwn(property, "default")
        );
      });
      // Draft 4 wants a non-empty list.
      if (out.required.length === 0) delete out.required;
    }
    return out;
  };
  return walk(schema);
}

/** A compiled Ajv validator of a bundle (the schema and the files it refers to by name). */
async function compiled(entry, checkFormat, transform = (x) => x) {
  const files = Object.fromEntries(
    Object.entries(entry.files ?? {}).map(([name, file]) => [name, transform(file)]),
  );
  const schema = transform(entry.schema);
  const { ajv, idKey } = await ajvFor(schema, checkFormat, files);
  const { $id: _i, id: _d, ...own } = schema;
  if (Object.keys(files).length > 0)
    return ajv.compile({ ...own, [idKey]: `${AJV_BASE}${entry.name}.main.json` });
  try {
    return ajv.compile(schema);
  } catch (error) {
    // A meta-schema under the `$id` of the one Ajv holds already (draft-07's own): compiled without it.
    if (!/already exists/.test(String(error?.message))) throw error;
    return ajv.compile(own);
  }
}

/** The keyword a refusal names, for the table (`recursive $ref`, `remote $ref`, ...). */
function refusalKeyword(detail) {
  if (/recursive \$ref|cyclic \$ref/.test(detail)) return "recursive $ref";
  if (/without going into a property or an item/.test(detail))
    return "$ref back to its own schema, not below a property or an item";
  if (/`\$ref` to .* (URL|URN|`\$anchor`)/.test(detail)) return "remote or $anchor $ref";
  if (/nests more than/.test(detail)) return "nesting limit";
  if (/`items` as a list/.test(detail)) return "items as a list";
  const named = /`([^`]+)`(?: as a list)? is not supported/.exec(detail);
  if (named) return named[1];
  return `other: ${detail.slice(0, 80)}`;
}

function definitionOf(name, env, schema) {
  const base = "/components/schemas/Doc";
  return {
    openapi: "3.1.0",
    info: { title: name, version: "1", "x-environment": env },
    servers: [{ url: "https://corpus.example/api/v1" }],
    paths: {
      "/automations/wf_doc/runs": {
        post: {
          "x-workflow": {
            id: "wf_doc",
            name: "Doc",
            outputs: { type: "object", properties: { doc: { $ref: `#${base}` } } },
          },
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["inputs"],
                  properties: {
                    inputs: {
                      type: "object",
                      additionalProperties: false,
                      required: ["doc"],
                      properties: { doc: { $ref: `#${base}` } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: { schemas: { Doc: placed(schema, base) } },
  };
}

/** A folder where generated code resolves `@wfr/runtime` and `zod` as a generated package does. */
function projectFolder() {
  const dir = mkdtempSync(join(tmpdir(), "wfr-corpus-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  mkdirSync(join(dir, "node_modules", "@wfr"), { recursive: true });
  symlinkSync(join(CODEGEN, "..", "runtime"), join(dir, "node_modules", "@wfr", "runtime"), "dir");
  symlinkSync(
    realpathSync(join(CODEGEN, "node_modules", "zod")),
    join(dir, "node_modules", "zod"),
    "dir",
  );
  return dir;
}

/**
 * @param {{ name: string, schema: object, files?: Record<string, object>, valid: {file: string, doc: unknown}[], invalid: {file: string, doc: unknown}[] }[]} entries
 *   `files`: other schemas the schema refers to by name (`base.json#/...`), placed beside the definition
 * @returns the figures and the details behind them
 */
export async function runCorpus(entries, { keep = false } = {}) {
  const dir = projectFolder();
  const refused = new Map();
  const accepted = [];
  const crashes = [];
  entries.forEach((entry, i) => {
    const env = `s${i}`;
    const file = join(dir, "schemas", env, "openapi.json");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(definitionOf(entry.name, env, entry.schema)));
    // The bundle's other files beside the definition, each in the definition's dialect.
    for (const [name, other] of Object.entries(entry.files ?? {}))
      writeFileSync(join(dirname(file), name), JSON.stringify(placed(other, "")));
    try {
      readDefinition(file);
      accepted.push({ ...entry, env });
    } catch (error) {
      if (error instanceof DefinitionError) {
        const keyword = refusalKeyword(error.detail);
        refused.set(keyword, [...(refused.get(keyword) ?? []), entry.name]);
      } else crashes.push(`${entry.name}: ${error?.stack ?? error}`);
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });
  generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
  const { checkFormat } = await import(
    pathToFileURL(join(dir, "gen", "_shared", "formats.js")).href
  );

  const disagreements = [];
  // Disagreements a documented choice explains (defaultsOptional).
  const choices = [];
  const badDocuments = [];
  const app = [];
  const typed = new Map();
  let documents = 0;
  for (const entry of accepted) {
    const index = await import(pathToFileURL(join(dir, "gen", entry.env, "index.js")).href);
    const workflow = Object.values(index.workflows)[0];
    let validate;
    let asWfrReadsDefaults;
    try {
      validate = await compiled(entry, checkFormat);
    } catch (error) {
      disagreements.push(`${entry.name}: Ajv cannot compile the schema (${error.message})`);
      continue;
    }
    app.push(`import type { Inputs as I_${entry.env} } from "./gen/${entry.env}/doc.js";`);
    for (const [doc, label] of [
      ...entry.valid.map((d) => [d, "valid"]),
      ...entry.invalid.map((d) => [d, "invalid"]),
    ]) {
      documents++;
      const reference = validate(doc.doc) === true;
      let ours;
      try {
        ours = workflow.validateInputs({ doc: doc.doc }).length === 0;
      } catch (error) {
        crashes.push(`${entry.name} ${doc.file}: validateInputs threw ${error?.stack ?? error}`);
        continue;
      }
      if (label === "invalid" && reference)
        badDocuments.push(`${entry.name} ${doc.file}: listed as invalid, yet Ajv accepts it`);
      if (label === "valid" && !reference)
        badDocuments.push(`${entry.name} ${doc.file}: listed as valid, yet Ajv rejects it`);
      // The schema as wfr reads defaults is compiled only for a document the two disagree on:
      // compiling the large schemas twice was most of the in-suite corpus's time.
      if (ours !== reference)
        asWfrReadsDefaults ??= await compiled(entry, checkFormat, defaultsOptional);
      if (ours !== reference && ours === (asWfrReadsDefaults(doc.doc) === true))
        choices.push(
          `${entry.name} ${doc.file} (${label}): Ajv ${reference ? "accepts" : "rejects"}, the generated validator ${ours ? "accepts" : "rejects"}: a required field with a saved default is optional`,
        );
      else if (ours !== reference)
        disagreements.push(
          `${entry.name} ${doc.file} (${label}): Ajv ${reference ? "accepts" : "rejects"}, the generated validator ${ours ? "accepts" : "rejects"}`,
        );
      if (reference) {
        app.push(
          `export const d${app.length}: I_${entry.env} = { doc: ${JSON.stringify(doc.doc)} };`,
        );
        typed.set(app.length, `${entry.name} ${doc.file}`);
      }
    }
  }
  writeFileSync(join(dir, "app.ts"), app.join("\n"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        exactOptionalPropertyTypes: true,
      },
      files: ["app.ts"],
    }),
  );
  const tsc = spawnSync(TSC, ["-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const typeErrors = [];
  // `file(line,col): error TSnnnn: message`; a message's continuation lines are indented.
  for (const text of `${tsc.stdout}`.split("\n")) {
    const match = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/.exec(text);
    if (!match) continue;
    const [, file, line, message] = match;
    const where = file.endsWith("app.ts") ? (typed.get(Number(line)) ?? `app.ts:${line}`) : file;
    typeErrors.push(`${where}: ${message.slice(0, 200)}`);
  }
  if (tsc.status !== 0 && typeErrors.length === 0)
    throw new Error(`tsc failed without diagnostics (${tsc.status}): ${tsc.stdout}${tsc.stderr}`);
  if (!keep) rmSync(dir, { recursive: true, force: true });
  return {
    schemas: entries.length,
    generated: accepted.length,
    refused,
    documents,
    disagreements,
    choices,
    badDocuments,
    typeErrors,
    crashes,
    ...(keep ? { dir } : {}),
  };
}
