// The workflows of one environment's downloaded definition
// (docs/definition-format.md), as the tools describe them.

import {
  child,
  DefinitionError,
  inlineRefs,
  type Located,
  RefResolver,
} from "@wfr/definition-reader";
import { CODE } from "@wfr/protocol";
import { BackendError, type WorkflowSchema, type WorkflowState } from "./backend.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Where the definition is read from when the caller names no file (references stay in it). */
const IN_MEMORY_DEFINITION = "/definition/openapi.json";

/**
 * The schema at `at` with its references inlined by the shared reader
 * (2020-12 in 3.1 documents: keywords beside a `$ref` hold too; 3.0:
 * they are ignored), as the tools hand it to an agent.
 */
function inlined(resolver: RefResolver, at: Located, dialect: "2020-12" | "draft-04"): unknown {
  try {
    return inlineRefs(resolver, at, { dialect });
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    throw new BackendError(CODE.DEFINITION_INVALID, error.message);
  }
}

/**
 * The inputs schema cut out of the inlined launch body, with the body's
 * `$defs` (`definitions` in 3.0): where the shared reader keeps a schema
 * that contains itself, which the inputs refer to as `#/$defs/<name>`.
 */
function withDefs(inputs: unknown, body: Json | undefined): unknown {
  if (!isObject(inputs) || body === undefined) return inputs;
  const defs = isObject(body.$defs) ? "$defs" : isObject(body.definitions) ? "definitions" : "";
  return defs === "" ? inputs : { ...inputs, [defs]: body[defs] };
}

export function workflowsFromDefinition(
  definition: unknown,
  file = IN_MEMORY_DEFINITION,
): WorkflowSchema[] {
  if (!isObject(definition) || !isObject(definition.paths)) {
    throw new BackendError(CODE.DEFINITION_INVALID, "not an OpenAPI definition (no paths)");
  }
  const resolver = new RefResolver();
  resolver.seed(file, definition);
  const root: Located = { node: definition, file, pointer: "" };
  const dialect =
    typeof definition.openapi === "string" && definition.openapi.startsWith("3.0.")
      ? "draft-04"
      : "2020-12";
  const workflows: WorkflowSchema[] = [];
  for (const [path, item] of Object.entries(definition.paths)) {
    if (!path.startsWith("/automations/") || !isObject(item) || !isObject(item.post)) continue;
    const operation = item.post;
    const meta = operation["x-workflow"];
    if (!isObject(meta)) continue;
    const content =
      isObject(operation.requestBody) && isObject(operation.requestBody.content)
        ? operation.requestBody.content
        : {};
    const json = isObject(content["application/json"]) ? content["application/json"] : {};
    const body = inlined(
      resolver,
      child(root, "paths", path, "post", "requestBody", "content", "application/json", "schema"),
      dialect,
    ) as Json | undefined;
    const properties = isObject(body?.properties) ? body.properties : {};
    const model = isObject(properties.model) ? properties.model : undefined;
    const examples = isObject(json.examples)
      ? Object.values(json.examples).map((example) => (isObject(example) ? example.value : example))
      : [];
    workflows.push({
      id: String(meta.id),
      name: String(meta.name),
      state: String(meta.state) as WorkflowState,
      revision: Number(meta.revision),
      description: typeof operation.description === "string" ? operation.description : "",
      inputs: withDefs(properties.inputs ?? {}, body),
      outputs:
        inlined(resolver, child(root, "paths", path, "post", "x-workflow", "outputs"), dialect) ??
        {},
      examples,
      models: Array.isArray(model?.enum) ? model.enum.map(String) : [],
    });
  }
  return workflows;
}
