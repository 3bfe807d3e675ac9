// Twin mode: read a per-environment definition (docs/definition-format.md; OpenAPI 3.1 or 3.0.x,
// JSON or YAML) back into workflows the emulator serves.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  child,
  DefinitionError,
  DRAFT4_UNSUPPORTED_KEYWORDS,
  escapePointerToken,
  inlineRefs,
  type Located,
  parseDocument,
  RefResolver,
  UNSUPPORTED_KEYWORDS,
  usesRefusedKeyword,
} from "@wfr/definition-reader";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { isObject } from "../model/json-text.js";
import type { EnvironmentDef, JsonSchema, WorkflowDef, WorkflowState } from "../model/types.js";
import { FILE_OUTPUT_REF, FILE_REFERENCE_REF, type SchemaDialect } from "./validate-inputs.js";

export { DefinitionError } from "@wfr/definition-reader";

/**
 * A schema as Ajv reads it: every `$ref` inlined across files (the shared
 * reader's `inlineRefs`; FileReference / FileOutput stay references, the
 * validator knows them), 3.0 `nullable` spelled as JSON Schema, and a
 * keyword wfr does not support refused at `file#pointer`.
 */
function schemaAt(
  resolver: RefResolver,
  at: Located,
  dialect: SchemaDialect,
  { refuseUnsupported }: { readonly refuseUnsupported: boolean },
): JsonSchema {
  const refused = !refuseUnsupported
    ? []
    : dialect === "draft-04"
      ? DRAFT4_UNSUPPORTED_KEYWORDS
      : UNSUPPORTED_KEYWORDS;
  return inlineRefs(resolver, at, {
    dialect,
    keep: (ref, target) => {
      if (
        ref === FILE_REFERENCE_REF ||
        (isObject<JsonSchema>(target) && target["x-input-type"] === "file")
      )
        return { $ref: FILE_REFERENCE_REF };
      if (
        ref === FILE_OUTPUT_REF ||
        (isObject<JsonSchema>(target) && target["x-output-type"] === "file")
      )
        return { $ref: FILE_OUTPUT_REF };
      return undefined;
    },
    visit: (schema, where) => {
      for (const keyword of refused)
        if (usesRefusedKeyword(schema, keyword))
          throw new DefinitionError(
            resolver.display(where.file),
            `${where.pointer}/${escapePointerToken(keyword)}`,
            `\`${keyword}\` is not supported`,
          );
      if (refuseUnsupported && dialect === "2020-12" && Array.isArray(schema.items))
        throw new DefinitionError(
          resolver.display(where.file),
          `${where.pointer}/items`,
          "`items` as a list (tuples) is not supported",
        );
    },
  });
}

const STATES: WorkflowState[] = ["enabled", "draft", "disabled"];

/**
 * Reads one definition. `file` is where it was read from: references to
 * files beside it resolve against it, and errors name it (`file#pointer`).
 */
export function readDefinition(
  doc: unknown,
  fallbackEnv: string,
  file = "openapi.json",
): EnvironmentDef {
  const absolute = resolve(file);
  const resolver = new RefResolver((f) => (f === absolute ? file : f));
  resolver.seed(absolute, doc);
  const root: Located = { node: doc, file: absolute, pointer: "" };
  if (
    !isObject<JsonSchema>(doc) ||
    typeof doc.openapi !== "string" ||
    !/^3\.[01]\./.test(doc.openapi)
  ) {
    throw new DefinitionError(
      file,
      "",
      "not an OpenAPI 3.0.x or 3.1.x document (missing `openapi`)",
    );
  }
  const info = isObject<JsonSchema>(doc.info) ? doc.info : {};
  const name = typeof info["x-environment"] === "string" ? info["x-environment"] : fallbackEnv;
  const workspace = typeof info["x-workspace"] === "string" ? info["x-workspace"] : "ws_default";
  const dialect: SchemaDialect = doc.openapi.startsWith("3.0.") ? "draft-04" : "2020-12";
  const workflows = new Map<string, WorkflowDef>();
  const paths = isObject<JsonSchema>(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    const m = /^\/automations\/([^/]+)\/runs$/.exec(path);
    if (!m?.[1] || !isObject<JsonSchema>(item) || !isObject<JsonSchema>(item.post)) continue;
    const op = item.post;
    const operation = child(root, "paths", path, "post");
    const xw = isObject<JsonSchema>(op["x-workflow"]) ? op["x-workflow"] : {};
    const id = typeof xw.id === "string" ? xw.id : decodeURIComponent(m[1]);
    const bodyAt = child(operation, "requestBody", "content", "application/json", "schema");
    if (!bodyAt.node)
      throw new DefinitionError(file, operation.pointer, "no application/json requestBody schema");
    const launchAt = resolver.deref(bodyAt);
    const inputsAt = child(launchAt, "properties", "inputs");
    if (inputsAt.node === undefined)
      throw new DefinitionError(
        resolver.display(launchAt.file),
        launchAt.pointer,
        "launch body schema has no `inputs` property",
      );
    const inputs = schemaAt(resolver, inputsAt, dialect, { refuseUnsupported: true });
    const outputsAt = child(operation, "x-workflow", "outputs");
    const outputs = outputsAt.node
      ? schemaAt(resolver, outputsAt, dialect, { refuseUnsupported: false })
      : { type: "object", properties: {} };
    const examples = op.requestBody?.content?.["application/json"]?.examples;
    let example: Record<string, unknown> | undefined;
    if (isObject<JsonSchema>(examples)) {
      const first = examples.default ?? Object.values(examples)[0];
      if (isObject<JsonSchema>(first) && isObject<JsonSchema>(first.value)) example = first.value;
    }
    const state = STATES.includes(xw.state) ? (xw.state as WorkflowState) : "enabled";
    const summary = typeof op.summary === "string" ? op.summary.replace(/^Launch /, "") : id;
    const launch = launchAt.node as JsonSchema;
    workflows.set(id, {
      id,
      name: typeof xw.name === "string" ? xw.name : summary,
      description: typeof op.description === "string" ? op.description : "",
      state,
      revision: Number.isInteger(xw.revision) ? xw.revision : 1,
      model: Boolean(launch?.properties?.model),
      inputs,
      ...(dialect === "draft-04" ? { inputsDialect: dialect } : {}),
      outputs,
      ...(example ? { example } : {}),
    });
  }
  return { name, workspace, workflows, vault: {} };
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
    envs.push(readDefinition(parseDocument(readFileSync(file, "utf8"), file), entry, file));
  }
  if (envs.length === 0)
    throw new DefinitionError(dir, "", "no <env>/openapi.(json|yaml|yml) found");
  return envs;
}
