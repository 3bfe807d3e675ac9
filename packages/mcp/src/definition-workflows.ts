// The workflows of one environment's downloaded definition
// (shared/design/definition-format.md), as the tools describe them.

import { JsonPointerError, parseFragmentPointer, resolveJsonPointer } from "@wfr/definition-reader";
import { CODE } from "@wfr/protocol";
import { BackendError, type WorkflowSchema, type WorkflowState } from "./backend.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Follows local `#/...` references, with a depth bound against cycles. */
function resolve(document: Json, value: unknown, depth = 0): unknown {
  if (depth > 64)
    throw new BackendError(CODE.DEFINITION_INVALID, "reference chain too deep (a cycle?)");
  if (Array.isArray(value)) return value.map((item) => resolve(document, item, depth + 1));
  if (!isObject(value)) return value;
  if (typeof value.$ref === "string" && value.$ref.startsWith("#/")) {
    let target: unknown;
    try {
      // RFC 6901 section 6: the fragment is percent-decoded, then read as a pointer.
      target = resolveJsonPointer(document, parseFragmentPointer(value.$ref.slice(1)));
    } catch (error) {
      if (!(error instanceof JsonPointerError)) throw error;
      throw new BackendError(CODE.DEFINITION_INVALID, `reference ${value.$ref}: ${error.message}`);
    }
    if (target === undefined)
      throw new BackendError(CODE.DEFINITION_INVALID, `unresolved reference ${value.$ref}`);
    const { $ref: _ignored, ...siblings } = value;
    return resolve(document, { ...(target as Json), ...siblings }, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, resolve(document, v, depth + 1)]),
  );
}

export function workflowsFromDefinition(definition: unknown): WorkflowSchema[] {
  if (!isObject(definition) || !isObject(definition.paths)) {
    throw new BackendError(CODE.DEFINITION_INVALID, "not an OpenAPI definition (no paths)");
  }
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
    const body = resolve(definition, json.schema) as Json | undefined;
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
      inputs: properties.inputs ?? {},
      outputs: resolve(definition, meta.outputs) ?? {},
      examples,
      models: Array.isArray(model?.enum) ? model.enum.map(String) : [],
    });
  }
  return workflows;
}
