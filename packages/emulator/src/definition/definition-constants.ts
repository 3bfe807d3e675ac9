// Fixed parts of the per-environment definition (docs/definition-format.md#shared-components).
// Written in the exact shape of shared/examples/schemas; the responses of every operation are
// derived from the codes each can answer (definition-answers.ts).

import { INPUT_REASON } from "@wfr/protocol";
export const RUN_PATHS = {
  "/runs/{runId}": {
    get: {
      operationId: "getRun",
      summary: "Read a run envelope",
      tags: ["Runs"],
      parameters: [{ name: "runId", in: "path", required: true, schema: { type: "string" } }],
    },
  },
  "/runs/{runId}/result": {
    get: {
      operationId: "getRunResult",
      summary: "Read outputs, or pending status",
      tags: ["Runs"],
      parameters: [{ name: "runId", in: "path", required: true, schema: { type: "string" } }],
    },
  },
  "/runs/{runId}/events": {
    get: {
      operationId: "getRunEvents",
      summary: "Read a JSON snapshot of run events",
      tags: ["Runs"],
      parameters: [{ name: "runId", in: "path", required: true, schema: { type: "string" } }],
    },
  },
  "/runs/{runId}/recording": {
    get: {
      operationId: "getRunRecording",
      summary: "Download the session video",
      tags: ["Runs"],
      parameters: [{ name: "runId", in: "path", required: true, schema: { type: "string" } }],
    },
  },
  "/runs/{runId}/human-input": {
    post: {
      operationId: "answerHumanInput",
      summary: "Answer a human checkpoint",
      tags: ["Runs"],
      parameters: [{ name: "runId", in: "path", required: true, schema: { type: "string" } }],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["response"],
              additionalProperties: true,
              properties: { checkpoint_id: { type: "string" }, response: {} },
            },
          },
        },
      },
    },
  },
} as const;

export const SHARED_SCHEMAS = {
  FileReference: {
    type: "object",
    "x-input-type": "file",
    description: "Reference to an attachment sent in input_context.attachments.",
    required: ["attachment_id"],
    additionalProperties: false,
    properties: { attachment_id: { type: "string" } },
  },
  FileOutput: {
    type: "object",
    "x-output-type": "file",
    description: "Download reference for a file output. Use download_url as given.",
    required: ["download_url", "filename"],
    additionalProperties: true,
    properties: {
      download_url: { type: "string", format: "uri" },
      filename: { type: "string" },
      mime_type: { type: "string" },
      size_bytes: { type: "integer" },
      expires_at: { type: ["string", "null"], format: "date-time" },
    },
  },
  Attachment: {
    type: "object",
    required: ["id", "filename", "mimeType", "base64"],
    additionalProperties: false,
    properties: {
      id: { type: "string" },
      filename: { type: "string" },
      mimeType: { type: "string" },
      base64: { type: "string", contentEncoding: "base64" },
    },
  },
  InputContext: {
    type: "object",
    additionalProperties: true,
    properties: {
      attachments: { type: "array", items: { $ref: "#/components/schemas/Attachment" } },
    },
  },
  RunStatus: {
    type: "string",
    description:
      "Run status. Named values include waiting_for_human_live, failed, error, cancelled, terminated, dead_letter, human_wait_expired; others may appear.",
  },
  RunError: {
    type: ["object", "null"],
    required: ["message"],
    additionalProperties: true,
    properties: { code: { type: "string" }, message: { type: "string" } },
  },
  HumanAction: {
    type: "object",
    additionalProperties: true,
    properties: {
      checkpoint_id: { type: "string" },
      kind: { type: "string" },
      reason: { type: "string" },
      stuck: { type: "boolean" },
      response_accepted: { type: "boolean" },
      instructions: { type: ["string", "null"] },
      stop_condition: { type: ["string", "null"] },
      live_url: { type: ["string", "null"], format: "uri" },
      live_view_url: { type: ["string", "null"], format: "uri" },
      expires_at: { type: ["string", "null"], format: "date-time" },
      resume_url: { type: ["string", "null"], format: "uri" },
    },
  },
  RunEnvelope: {
    type: "object",
    required: ["run_id", "workflow_id", "status", "timestamps", "error", "metadata"],
    additionalProperties: true,
    properties: {
      run_id: { type: "string" },
      workflow_id: { type: "string" },
      status: { $ref: "#/components/schemas/RunStatus" },
      timestamps: {
        type: "object",
        additionalProperties: true,
        properties: {
          created_at: { type: "string", format: "date-time" },
          updated_at: { type: "string", format: "date-time" },
          started_at: { type: ["string", "null"], format: "date-time" },
          finished_at: { type: ["string", "null"], format: "date-time" },
        },
      },
      error: { $ref: "#/components/schemas/RunError" },
      status_url: { type: ["string", "null"], format: "uri" },
      result_url: { type: ["string", "null"], format: "uri" },
      events_url: { type: ["string", "null"], format: "uri" },
      recording_url: { type: ["string", "null"], format: "uri" },
      metadata: { type: "object", additionalProperties: true },
      model: { type: ["string", "null"] },
      session_id: { type: ["string", "null"] },
      live_view_url: { type: ["string", "null"], format: "uri" },
      human_action: { anyOf: [{ $ref: "#/components/schemas/HumanAction" }, { type: "null" }] },
    },
  },
  ResultResponse: {
    type: "object",
    required: ["status", "error", "metadata"],
    additionalProperties: true,
    properties: {
      run_id: { type: "string" },
      status: { $ref: "#/components/schemas/RunStatus" },
      error: { $ref: "#/components/schemas/RunError" },
      metadata: { type: "object", additionalProperties: true },
      outputs: { type: ["object", "null"], additionalProperties: true },
    },
  },
  // Every field the emulator sends, each on the codes named; open, as the specification's error
  // bodies carry "extra fields where applicable" (docs/service-rules.md#errors).
  Error: {
    type: "object",
    required: ["error", "code"],
    additionalProperties: true,
    properties: {
      error: { type: "string" },
      code: { type: "string" },
      field: {
        type: "string",
        description: "The request member at fault (INVALID_METADATA, INVALID_CALLBACK_URL, ...).",
      },
      attachment_id: {
        type: "string",
        description: "The attachment at fault (INVALID_ATTACHMENTS, ATTACHMENT_TOO_LARGE).",
      },
      required_scope: {
        type: "string",
        enum: ["workflows:run", "runs:read"],
        description: "The scope the key lacks (INSUFFICIENT_SCOPE).",
      },
      state: {
        type: "string",
        description: "The workflow's state (WORKFLOW_NOT_ENABLED): draft or disabled.",
      },
      details: {
        type: "array",
        description: "Each input at fault (INVALID_INPUTS).",
        items: {
          type: "object",
          required: ["field", "reason"],
          additionalProperties: true,
          properties: {
            field: { type: "string" },
            reason: {
              type: "string",
              enum: [INPUT_REASON.INVALID_TYPE, INPUT_REASON.REQUIRED, INPUT_REASON.UNKNOWN_INPUT],
            },
            message: { type: "string" },
          },
        },
      },
    },
  },
} as const;

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key of the environment. Its scopes (workflows:run, runs:read) are named in each operation's security requirement.",
  },
} as const;
