// Reads one launch operation (`POST /automations/{id}/runs`) into a workflow
// of the model: its `x-workflow` (id, name, state, revision), its launch body
// (`inputs`, `model`) and its `x-workflow.outputs`.
import { child, DefinitionError, isRecord, type Located } from "@wfr/definition-reader";
import type { FieldModel, WorkflowModel } from "../model.js";
import type { FieldReader } from "./field-reader.js";

const STATES = new Set(["enabled", "draft", "disabled"]);

export function readWorkflow(
  reader: FieldReader,
  op: Located,
  pathId: string,
): Omit<WorkflowModel, "identifier"> {
  const r = reader.resolver;
  const file = r.display(op.file);
  const opNode = op.node as Record<string, unknown>;
  const xw = r.deref(child(op, "x-workflow"));
  if (!isRecord(xw.node)) {
    throw new DefinitionError(file, op.pointer, "launch operation without `x-workflow`");
  }
  const x = xw.node;
  if (typeof x.id !== "string" || x.id !== pathId) {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/id`,
      `x-workflow.id ${JSON.stringify(x.id)} does not match the path's workflow id ${JSON.stringify(pathId)}`,
    );
  }
  if (typeof x.name !== "string") {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/name`,
      "x-workflow.name is missing or not a string",
    );
  }
  const state = x.state ?? "enabled";
  if (typeof state !== "string" || !STATES.has(state)) {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/state`,
      `x-workflow.state ${JSON.stringify(state)} is not enabled, draft or disabled`,
    );
  }
  const revision = x.revision ?? 0;
  if (typeof revision !== "number" || !Number.isInteger(revision)) {
    throw new DefinitionError(
      r.display(xw.file),
      `${xw.pointer}/revision`,
      "x-workflow.revision is not an integer",
    );
  }
  const body = r.deref(
    child(
      r.deref(child(r.deref(child(op, "requestBody")), "content", "application/json")),
      "schema",
    ),
  );
  if (!isRecord(body.node)) {
    throw new DefinitionError(
      file,
      `${op.pointer}/requestBody`,
      "no application/json launch body schema",
    );
  }
  const inputs = r.deref(child(body, "properties", "inputs"));
  const inputsNode = inputs.node;
  if (
    !isRecord(inputsNode) ||
    (inputsNode.type !== undefined && inputsNode.type !== "object") ||
    Array.isArray(inputsNode.enum)
  ) {
    throw new DefinitionError(
      r.display(inputs.file),
      inputs.pointer,
      "the inputs schema is not an object schema",
    );
  }
  const modelExposed =
    isRecord(body.node.properties) && Object.hasOwn(body.node.properties, "model");
  const modelValues = modelExposed
    ? reader.modelValues(child(body, "properties", "model"))
    : undefined;
  const inputFields = reader.readSide(() => reader.objectFields(inputs, "input", []));

  let outputFields: FieldModel[] = [];
  let outputsClosed = false;
  const outputs = r.deref(child(xw, "outputs"));
  if (outputs.node !== undefined) {
    if (
      !isRecord(outputs.node) ||
      (outputs.node.type !== undefined && outputs.node.type !== "object")
    ) {
      throw new DefinitionError(
        r.display(outputs.file),
        outputs.pointer,
        "the outputs schema is not an object schema",
      );
    }
    outputFields = reader.readSide(() => reader.objectFields(outputs, "output", []));
    outputsClosed = outputs.node.additionalProperties === false;
  }
  const recursiveTypes = reader.takeRecursiveTypes();
  const description =
    typeof opNode.description === "string"
      ? opNode.description
      : typeof x.description === "string"
        ? x.description
        : undefined;
  return {
    id: x.id,
    name: x.name,
    state: state as WorkflowModel["state"],
    revision,
    modelExposed,
    ...(modelValues !== undefined ? { modelValues } : {}),
    ...(description !== undefined ? { description } : {}),
    inputs: inputFields,
    outputs: outputFields,
    outputsClosed,
    ...(recursiveTypes.length > 0 ? { recursiveTypes } : {}),
    pointer: op.pointer,
  };
}
