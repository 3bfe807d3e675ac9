#!/usr/bin/env node
// The generator on the SchemaStore schemas that ship test documents: every
// `src/schemas/json/<name>.json` with a `src/test/<name>/` folder becomes the
// input `doc` of a workflow (schema-corpus.mjs says how), its test documents
// must be accepted and its `src/negative_test/<name>/` documents refused, as
// Ajv decides. Prints the refusal table by keyword, the Ajv disagreements
// and the false type errors (valid documents the generated `Inputs` refuses).
// A `$ref` to another SchemaStore schema (its json.schemastore.org URL or a
// relative name) is bundled: the file is placed beside the definition and
// the reference points at it, as a team would vendor it (the reader itself
// never reads a URL: docs/definition-format.md).
//
// Usage (after `pnpm build`):
//   node packages/codegen/scripts/schemastore-corpus.mjs <schemastore checkout> [--list] [--keep]
// --list prints every disagreement and type error; --keep leaves the generated project.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { runCorpus } from "./schema-corpus.mjs";

const args = process.argv.slice(2);
const root = args.find((a) => !a.startsWith("--"));
if (root === undefined) {
  console.error("usage: schemastore-corpus.mjs <path to a SchemaStore checkout> [--list] [--keep]");
  process.exit(2);
}
const schemasDir = join(root, "src", "schemas", "json");
if (!existsSync(schemasDir)) {
  console.error(`${schemasDir} does not exist: is ${root} a SchemaStore checkout?`);
  process.exit(2);
}

/** The documents of one test folder: JSON and YAML (TOML and others are counted, not read). */
function documentsIn(folder, skipped) {
  if (!existsSync(folder)) return [];
  const out = [];
  for (const file of readdirSync(folder).sort()) {
    const path = join(folder, file);
    const text = readFileSync(path, "utf8");
    try {
      if (/\.json$/i.test(file)) out.push({ file, doc: JSON.parse(text) });
      else if (/\.ya?ml$/i.test(file)) out.push({ file, doc: parseYaml(text) });
      else skipped.push(`${folder}/${file}`);
    } catch (error) {
      skipped.push(`${folder}/${file} (${error.message})`);
    }
  }
  return out;
}

/**
 * The SchemaStore file a cross-file `$ref` names, when the checkout has it:
 * `https://json.schemastore.org/<name>.json` (or www.schemastore.org, with or
 * without `.json`) and a relative `base.json` / `feed-1` are the file
 * `src/schemas/json/<name>.json` (the `$id`s of SchemaStore schemas are those
 * URLs). Any other URL is left as it is, for the reader to refuse.
 */
function storeFile(ref) {
  const hash = ref.indexOf("#");
  const target = hash === -1 ? ref : ref.slice(0, hash);
  if (target === "") return undefined;
  const named =
    /^https?:\/\/(?:json|www)\.schemastore\.org\/([^/?#]+)$/.exec(target)?.[1] ??
    (/^(?:\.\/)?([^/:?#]+)$/.test(target) ? target.replace(/^\.\//, "") : undefined);
  if (named === undefined) return undefined;
  const file = named.endsWith(".json") ? named : `${named}.json`;
  return existsSync(join(schemasDir, file))
    ? { file, fragment: hash === -1 ? "" : ref.slice(hash) }
    : undefined;
}

/** The JSON values under data keywords are never references. */
const DATA = new Set(["enum", "const", "default", "examples"]);

/**
 * The schema with its cross-file `$ref`s to SchemaStore files written as
 * `<name>.json#...` (files beside the definition, which the reader reads
 * offline), and the files it reaches, each rewritten the same way: a bundle.
 */
function bundle(schema) {
  const files = new Map();
  const rewrite = (node) => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (DATA.has(key)) return [key, value];
        if (key !== "$ref" || typeof value !== "string") return [key, rewrite(value)];
        const found = storeFile(value);
        if (found === undefined) return [key, value];
        if (!files.has(found.file)) {
          files.set(found.file, null);
          try {
            files.set(
              found.file,
              rewrite(JSON.parse(readFileSync(join(schemasDir, found.file), "utf8"))),
            );
          } catch {
            files.delete(found.file);
            return [key, value];
          }
        }
        return [key, `${found.file}${found.fragment}`];
      }),
    );
  };
  const main = rewrite(schema);
  return { schema: main, files: Object.fromEntries(files) };
}

const skipped = [];
const entries = [];
for (const file of readdirSync(schemasDir).sort()) {
  if (!file.endsWith(".json")) continue;
  const name = file.slice(0, -".json".length);
  const tests = join(root, "src", "test", name);
  if (!existsSync(tests)) continue;
  let schema;
  try {
    schema = JSON.parse(readFileSync(join(schemasDir, file), "utf8"));
  } catch (error) {
    skipped.push(`${file}: not JSON (${error.message})`);
    continue;
  }
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    skipped.push(`${file}: not a schema object`);
    continue;
  }
  const bundled = bundle(schema);
  entries.push({
    name,
    schema: bundled.schema,
    files: bundled.files,
    valid: documentsIn(tests, skipped),
    invalid: documentsIn(join(root, "src", "negative_test", name), skipped),
  });
}

const started = Date.now();
const result = await runCorpus(entries, { keep: args.includes("--keep") });
const list = args.includes("--list");
const rows = [...result.refused].sort((a, b) => b[1].length - a[1].length);
console.log(`schemas with test documents: ${result.schemas}`);
console.log(
  `generated: ${result.generated} (${((100 * result.generated) / Math.max(1, result.schemas)).toFixed(1)}%), refused: ${result.schemas - result.generated}`,
);
console.log("\n| refused by | schemas |\n|---|--:|");
for (const [keyword, names] of rows) console.log(`| ${keyword} | ${names.length} |`);
console.log(
  `\ndocuments checked: ${result.documents} (skipped, not JSON/YAML or unreadable: ${skipped.length})`,
);
console.log(`Ajv disagreements outside documented choices: ${result.disagreements.length}`);
console.log(
  `Ajv disagreements a documented choice explains (a required field with a saved default is optional, docs/definition-format.md): ${result.choices.length}`,
);
console.log(`false type errors (valid documents tsc refuses): ${result.typeErrors.length}`);
console.log(`crashes (anything but a DefinitionError): ${result.crashes.length}`);
if (result.dir) console.log(`generated project kept in ${result.dir}`);
const show = (title, lines) => {
  if (lines.length === 0) return;
  console.log(`\n${title}:`);
  for (const line of list ? lines : lines.slice(0, 10)) console.log(`  ${line}`);
  if (!list && lines.length > 10) console.log(`  ... ${lines.length - 10} more (--list)`);
};
show("disagreements", result.disagreements);
show("documented choices", result.choices);
show("type errors", result.typeErrors);
show("crashes", result.crashes);
show("documents Ajv judges otherwise than their folder says", result.badDocuments);
if (list)
  show(
    "refused",
    rows.map(([k, names]) => `${k}: ${names.join(", ")}`),
  );
console.log(`\n${((Date.now() - started) / 1000).toFixed(1)} s`);
