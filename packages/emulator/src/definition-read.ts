// Twin mode: read a per-environment definition (definition-format.md; OpenAPI 3.1 or 3.0.x,
// JSON or YAML) back into workflows the emulator serves.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  DRAFT4_UNSUPPORTED_KEYWORDS,
  JsonPointerError,
  nullableAsJsonSchema,
  parseFragmentPointer,
  resolveJsonPointer,
  UNSUPPORTED_KEYWORDS,
} from "@wfr/definition-reader";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { parse as parseYaml } from "yaml";
import { isObject } from "./json-text.js";
import type { EnvironmentDef, JsonSchema, WorkflowDef, WorkflowState } from "./types.js";
import { FILE_OUTPUT_REF, FILE_REFERENCE_REF, type SchemaDialect } from "./validate-inputs.js";

export class DefinitionError extends Error {}

function pointer(doc: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith("#/")) throw new DefinitionError(`unsupported external $ref ${ref}`);
  let tokens: string[];
  try {
    // RFC 6901 section 6: the fragment is percent-decoded, then read as a pointer.
    tokens = parseFragmentPointer(ref.slice(1));
  } catch (error) {
    if (error instanceof JsonPointerError)
      throw new DefinitionError(`$ref ${ref}: ${error.message}`);
    throw error;
  }
  const target = resolveJsonPointer(doc, tokens);
  if (target === undefined) throw new DefinitionError(`$ref ${ref} points at nothing`);
  return target;
}

/** How a definition's schemas are read: OpenAPI 3.1 is JSON Schema 2020-12, 3.0 is draft 4 plus `nullable`. */
export interface SchemaReading {
  readonly dialect: SchemaDialect;
}

/**
 * Inline local $refs (FileReference / FileOutput stay references) and 3.0
 * `nullable`. Keywords beside a `$ref` hold together with its target in
 * 3.1 (JSON Schema 2020-12); OpenAPI 3.0 says they are ignored. A `$ref`
 * that reaches itself is refused (a recursive input has no finite reading
 * here, and the generator refuses it too).
 */
export function normalizeSchema(
  doc: JsonSchema,
  schema: JsonSchema,
  seen: string[] = [],
  reading: SchemaReading = { dialect: "2020-12" },
): JsonSchema {
  if (Array.isArray(schema)) return schema.map((s) => normalizeSchema(doc, s, seen, reading));
  if (!isObject<JsonSchema>(schema)) return schema;
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const target = pointer(doc, ref);
    if (
      ref === FILE_REFERENCE_REF ||
      (isObject<JsonSchema>(target) && target["x-input-type"] === "file")
    ) {
      return { $ref: FILE_REFERENCE_REF };
    }
    if (
      ref === FILE_OUTPUT_REF ||
      (isObject<JsonSchema>(target) && target["x-output-type"] === "file")
    ) {
      return { $ref: FILE_OUTPUT_REF };
    }
    if (seen.includes(ref))
      throw new DefinitionError(
        `recursive $ref ${ref}: a schema that contains itself is not supported`,
      );
    const resolved = normalizeSchema(doc, target, [...seen, ref], reading);
    const { $ref: _ref, ...siblings } = schema;
    if (reading.dialect === "draft-04" || Object.keys(siblings).length === 0) return resolved;
    // `{$ref: X, ...rest}` is `{...rest, allOf: [X]}` in 2020-12: the siblings stay at their level.
    const rest = normalizeSchema(doc, siblings, seen, reading) as Record<string, JsonSchema>;
    return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), resolved] };
  }
  const out: Record<string, JsonSchema> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties" && isObject<JsonSchema>(v)) {
      const props: Record<string, JsonSchema> = {};
      for (const [pk, pv] of Object.entries(v)) {
        Object.defineProperty(props, pk, {
          value: normalizeSchema(doc, pv, seen, reading),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      out[k] = props;
    } else if (
      k === "example" ||
      k === "examples" ||
      k === "default" ||
      k === "enum" ||
      k === "const"
    ) {
      out[k] = v;
    } else {
      out[k] = normalizeSchema(doc, v, seen, reading);
    }
  }
  return nullableAsJsonSchema(out);
}

const SUBSCHEMA_MAPS = new Set(["properties", "$defs", "definitions"]);
const SUBSCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf"]);
const VALUE_KEYWORDS = new Set(["const", "enum", "default", "example", "examples"]);

/** Throws naming the first unsupported keyword in a (normalized) schema, with its path. */
function refuseUnsupported(
  schema: JsonSchema,
  where: string,
  keywords: readonly string[] = UNSUPPORTED_KEYWORDS,
): void {
  if (!isObject<JsonSchema>(schema)) return;
  for (const keyword of keywords)
    if (Object.hasOwn(schema, keyword))
      throw new DefinitionError(`${where}: \`${keyword}\` is not supported`);
  if (Array.isArray(schema.items))
    throw new DefinitionError(`${where}/items: \`items\` as a list (tuples) is not supported`);
  for (const [k, v] of Object.entries(schema)) {
    if (VALUE_KEYWORDS.has(k)) continue;
    if (SUBSCHEMA_MAPS.has(k) && isObject<JsonSchema>(v))
      for (const [name, s] of Object.entries(v))
        refuseUnsupported(s, `${where}/${k}/${name}`, keywords);
    else if (SUBSCHEMA_LISTS.has(k) && Array.isArray(v))
      for (const [i, s] of v.entries()) refuseUnsupported(s, `${where}/${k}/${i}`, keywords);
    else if (k === "items" || k === "additionalProperties")
      refuseUnsupported(v, `${where}/${k}`, keywords);
  }
}

const STATES: WorkflowState[] = ["enabled", "draft", "disabled"];

export function readDefinition(doc: unknown, fallbackEnv: string): EnvironmentDef {
  if (
    !isObject<JsonSchema>(doc) ||
    typeof doc.openapi !== "string" ||
    !/^3\.[01]\./.test(doc.openapi)
  ) {
    throw new DefinitionError("not an OpenAPI 3.0.x or 3.1.x document (missing `openapi`)");
  }
  const info = isObject<JsonSchema>(doc.info) ? doc.info : {};
  const name = typeof info["x-environment"] === "string" ? info["x-environment"] : fallbackEnv;
  const workspace = typeof info["x-workspace"] === "string" ? info["x-workspace"] : "ws_default";
  const reading: SchemaReading = {
    dialect: doc.openapi.startsWith("3.0.") ? "draft-04" : "2020-12",
  };
  const workflows = new Map<string, WorkflowDef>();
  const paths = isObject<JsonSchema>(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    const m = /^\/automations\/([^/]+)\/runs$/.exec(path);
    if (!m?.[1] || !isObject<JsonSchema>(item) || !isObject<JsonSchema>(item.post)) continue;
    const op = item.post;
    const where = `paths["${path}"].post`;
    const xw = isObject<JsonSchema>(op["x-workflow"]) ? op["x-workflow"] : {};
    const id = typeof xw.id === "string" ? xw.id : decodeURIComponent(m[1]);
    const bodySchemaRaw = op.requestBody?.content?.["application/json"]?.schema;
    if (!bodySchemaRaw)
      throw new DefinitionError(`${where}: no application/json requestBody schema`);
    const launch =
      isObject<JsonSchema>(bodySchemaRaw) && bodySchemaRaw.$ref
        ? pointer(doc, bodySchemaRaw.$ref)
        : bodySchemaRaw;
    const inputsRaw = launch?.properties?.inputs;
    if (!inputsRaw)
      throw new DefinitionError(`${where}: launch body schema has no \`inputs\` property`);
    const inputs = normalizeSchema(doc, inputsRaw, [], reading);
    refuseUnsupported(
      inputs,
      `${where}: inputs`,
      reading.dialect === "draft-04" ? DRAFT4_UNSUPPORTED_KEYWORDS : UNSUPPORTED_KEYWORDS,
    );
    const outputs = xw.outputs
      ? normalizeSchema(doc, xw.outputs, [], reading)
      : { type: "object", properties: {} };
    const examples = op.requestBody?.content?.["application/json"]?.examples;
    let example: Record<string, unknown> | undefined;
    if (isObject<JsonSchema>(examples)) {
      const first = examples.default ?? Object.values(examples)[0];
      if (isObject<JsonSchema>(first) && isObject<JsonSchema>(first.value)) example = first.value;
    }
    const state = STATES.includes(xw.state) ? (xw.state as WorkflowState) : "enabled";
    const summary = typeof op.summary === "string" ? op.summary.replace(/^Launch /, "") : id;
    workflows.set(id, {
      id,
      name: typeof xw.name === "string" ? xw.name : summary,
      description: typeof op.description === "string" ? op.description : "",
      state,
      revision: Number.isInteger(xw.revision) ? xw.revision : 1,
      model: Boolean(launch?.properties?.model),
      inputs,
      ...(reading.dialect === "draft-04" ? { inputsDialect: reading.dialect } : {}),
      outputs,
      ...(example ? { example } : {}),
    });
  }
  return { name, workspace, workflows, vault: {} };
}

export function parseDocument(text: string, file: string): unknown {
  try {
    return file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new DefinitionError(`${file}: cannot parse: ${(e as Error).message}`);
  }
}

/** Twin mode: each folder `<dir>/<env>/` holding openapi.json|yaml|yml becomes one environment. */
export function readSchemasDir(dir: string): EnvironmentDef[] {
  const envs: EnvironmentDef[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const folder = join(dir, entry);
    if (!statSync(folder).isDirectory()) continue;
    const file = DEFINITION_FILE_NAMES.map((f) => join(folder, f)).find((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    });
    if (!file) continue;
    try {
      envs.push(readDefinition(parseDocument(readFileSync(file, "utf8"), file), entry));
    } catch (e) {
      throw new DefinitionError(`${file}: ${(e as Error).message}`);
    }
  }
  if (envs.length === 0) throw new DefinitionError(`${dir}: no <env>/openapi.(json|yaml) found`);
  return envs;
}
