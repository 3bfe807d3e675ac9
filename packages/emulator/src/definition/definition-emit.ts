// The per-environment OpenAPI definition served at /<env>/api-docs/openapi.(json|yaml),
// in the exact shape of docs/definition-format.md (same structure as shared/examples/schemas).

import { isObject } from "../model/json-text.js";
import type { EnvironmentDefView, JsonSchema, WorkflowDef } from "../model/types.js";
import {
  OPERATION_SCOPE,
  type OperationKind,
  operationResponses,
  RESPONSE_HEADERS,
} from "./definition-answers.js";
import { RUN_PATHS, SECURITY_SCHEMES, SHARED_SCHEMAS } from "./definition-constants.js";
import { isFileSchema, setOwn } from "./validate-inputs.js";

const clone = <T>(v: T): T => structuredClone(v) as T;

/**
 * A workflow's schema placed at `at` in the emitted definition: the `$ref`s
 * to its own `$defs` / `definitions` (where the shared reader keeps a schema
 * that contains itself, `inlineRefs`) are written from the document's root,
 * which is what a `$ref` in an OpenAPI document is read against.
 */
/** Keywords whose values are data, never schemas (a `$ref` key there is not a reference). */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);

function placedSchema(schema: JsonSchema, at: string): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node))
      setOwn(
        out,
        k,
        k === "$ref" && typeof v === "string" && /^#\/(\$defs|definitions)\//.test(v)
          ? `${at}${v.slice(1)}`
          : DATA_KEYWORDS.has(k)
            ? v
            : walk(v),
      );
    return out;
  };
  return walk(clone(schema)) as JsonSchema;
}

/** An example value for one input schema, used when the catalog gives no example body. */
function exampleValue(s: JsonSchema, files: string[]): unknown {
  if (typeof s !== "object" || s === null) return null;
  if (s.default !== undefined) return s.default;
  if (isFileSchema(s)) {
    const id = `att_${files.length + 1}`;
    files.push(id);
    return { attachment_id: id };
  }
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const b = branches.find((x: JsonSchema) => x?.type !== "null") ?? branches[0];
    return exampleValue(b, files);
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "string":
      if (s.format === "uri") return "https://example.com";
      if (s.format === "date") return "2026-01-01";
      if (s.format === "date-time") return "2026-01-01T00:00:00Z";
      if (s.format === "email") return "user@example.com";
      return "example";
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return s.items ? [exampleValue(s.items, files)] : [];
    default: {
      const out: Record<string, unknown> = {};
      const req: string[] = Array.isArray(s.required) ? s.required : [];
      for (const k of req) {
        const p = s.properties?.[k];
        if (p) setOwn(out, k, exampleValue(p, files));
      }
      return out;
    }
  }
}

function exampleBody(wf: WorkflowDef): Record<string, unknown> {
  if (wf.example) return clone(wf.example);
  const files: string[] = [];
  const inputs = exampleValue({ ...wf.inputs, default: undefined }, files);
  const body: Record<string, unknown> = { inputs, metadata: { order_id: "ord_123" } };
  if (files.length > 0) {
    body.input_context = {
      attachments: files.map((id) => ({
        id,
        filename: "doc.pdf",
        mimeType: "application/pdf",
        base64: "JVBERi0xLjQK",
      })),
    };
  }
  return body;
}

function launchBodySchema(wf: WorkflowDef): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    inputs: { $ref: `#/components/schemas/Workflow_${wf.id}_Inputs` },
    callback_url: {
      type: "string",
      format: "uri",
      description: "Public HTTPS receiver of run notifications.",
    },
    metadata: {
      type: "object",
      additionalProperties: true,
      default: {},
      description: "Caller correlation data, echoed back.",
    },
    idempotency_key: { type: "string", maxLength: 200 },
    input_context: { $ref: "#/components/schemas/InputContext" },
  };
  // docs/definition-format.md: `model` only where this environment exposes it for this workflow.
  if (wf.model) properties.model = { type: "string", enum: ["pro", "flash", "lite", "max"] };
  return { type: "object", required: ["inputs"], properties, additionalProperties: false };
}

function launchOperation(wf: WorkflowDef): JsonSchema {
  const p = `#/components/schemas/Workflow_${wf.id}`;
  return {
    operationId: `launch_${wf.id}`,
    summary: `Launch ${wf.name}`,
    description: wf.description,
    tags: ["Workflows"],
    "x-workflow": {
      id: wf.id,
      name: wf.name,
      state: wf.state,
      revision: wf.revision,
      outputs: { $ref: `${p}_Outputs` },
      result: { $ref: `${p}_Result` },
    },
    parameters: [
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        schema: { type: "string", maxLength: 200 },
      },
    ],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: { $ref: `${p}_LaunchBody` },
          examples: { default: { value: exampleBody(wf) } },
        },
      },
    },
    security: securityOf("launch"),
    responses: operationResponses("launch"),
    callbacks: {
      runNotification: {
        "{$request.body#/callback_url}": {
          post: {
            summary: `Run notification for ${wf.name}`,
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["event_id", "type", "run"],
                    additionalProperties: true,
                    properties: {
                      event_id: { type: "string" },
                      type: {
                        type: "string",
                        enum: ["workflow.run.requires_action", "workflow.run.completed"],
                      },
                      run: { $ref: "#/components/schemas/RunEnvelope" },
                      result: { $ref: `${p}_Result` },
                    },
                  },
                },
              },
            },
            responses: { "200": { description: "Receipt acknowledged" } },
          },
        },
      },
    },
  };
}

/** The operation's security requirement: a key of the environment with the scope it needs. */
function securityOf(kind: OperationKind): JsonSchema[] {
  return [{ bearerAuth: [OPERATION_SCOPE[kind]] }];
}

/** Emit the environment's definition with servers[0].url = `baseUrl` (ends in /api/v1). */
export function emitDefinition(env: EnvironmentDefView, baseUrl: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = clone(SHARED_SCHEMAS) as Record<string, unknown>;
  for (const wf of env.workflows.values()) {
    paths[`/automations/${wf.id}/runs`] = { post: launchOperation(wf) };
    const p = `Workflow_${wf.id}`;
    schemas[`${p}_Inputs`] = placedSchema(wf.inputs, `#/components/schemas/${p}_Inputs`);
    schemas[`${p}_Outputs`] = placedSchema(wf.outputs, `#/components/schemas/${p}_Outputs`);
    schemas[`${p}_LaunchBody`] = launchBodySchema(wf);
    schemas[`${p}_Result`] = {
      allOf: [
        { $ref: "#/components/schemas/ResultResponse" },
        {
          type: "object",
          properties: {
            outputs: { anyOf: [{ $ref: `#/components/schemas/${p}_Outputs` }, { type: "null" }] },
          },
        },
      ],
    };
  }
  for (const [path, item] of Object.entries(clone(RUN_PATHS))) {
    for (const operation of Object.values(item) as JsonSchema[]) {
      const kind = operation.operationId as OperationKind;
      operation.security = securityOf(kind);
      operation.responses = operationResponses(kind);
    }
    paths[path] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: `Workflow Run API (${env.name})`,
      version: "1",
      "x-environment": env.name,
      "x-workspace": env.workspace,
    },
    servers: [{ url: baseUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas,
      headers: clone(RESPONSE_HEADERS),
      securitySchemes: clone(SECURITY_SCHEMES),
    },
  };
}
