// Authoring through the agent endpoint (docs/service-rules.md#agent-endpoint): an agent opens a cloud-browser authoring
// session (a record with a live view link for the person, which expires) and saves a workflow as
// a *draft*. A draft is in the environment's catalog and its definition (`x-workflow.state:
// draft`, docs/definition-format.md) but cannot be launched (docs/service-rules.md#launchable-workflows: only an enabled
// workflow can be launched); enabling it is a person's action (the portal route). Drafts and
// sessions are journalled, so a restart keeps them.

import { randomBytes } from "node:crypto";
import { CODE } from "@wfr/protocol";
import { FILE_OUTPUT_REF, FILE_REFERENCE_REF } from "../definition/validate-inputs.js";
import { parseScenario } from "../engine/scenario.js";
import type { JournalRecord } from "../journal/journal-records.js";
import { isObject } from "../model/json-text.js";
import type {
  AuthoringSession,
  EnvironmentDef,
  JsonSchema,
  Scenario,
  WorkflowDef,
} from "../model/types.js";
import { draftBudgetProblem } from "./draft-budget.js";

/** A field in the definition format's vocabulary (`x-input-type`). */
type FieldType = "text" | "number" | "integer" | "boolean" | "json" | "file" | "files";

export interface DraftField {
  name: string;
  type: FieldType;
  required?: boolean | undefined;
  description?: string | undefined;
  enum?: readonly string[] | undefined;
}

export interface DraftRequest {
  name: string;
  description?: string | undefined;
  inputs: readonly DraftField[];
  outputs: readonly DraftField[];
  scenario?: unknown;
}

/** A draft the emulator refuses, naming the field (a JSON pointer into the request). */
export class AuthoringError extends Error {
  constructor(
    readonly code:
      | typeof CODE.INVALID_WORKFLOW
      | typeof CODE.INVALID_SCENARIO
      | typeof CODE.DRAFT_TOO_LARGE,
    readonly pointer: string,
    message: string,
  ) {
    super(`${pointer}: ${message}`);
  }
}

/** How long an authoring session's live view stays open (clock time). */
const AUTHORING_SESSION_MS = 30 * 60_000;

const FIELD_TYPES: readonly FieldType[] = [
  "text",
  "number",
  "integer",
  "boolean",
  "json",
  "file",
  "files",
];

/** One input field's schema, exactly as docs/definition-format.md#inputs writes it. */
function inputSchema(f: DraftField): JsonSchema {
  const doc = f.description ? { description: f.description } : {};
  switch (f.type) {
    case "text":
      return {
        type: "string",
        "x-input-type": "text",
        ...(f.enum ? { enum: [...f.enum] } : {}),
        ...doc,
      };
    case "number":
      return { type: "number", "x-input-type": "number", ...doc };
    case "integer":
      return { type: "integer", "x-input-type": "number", ...doc };
    case "boolean":
      return { type: "boolean", "x-input-type": "boolean", ...doc };
    case "json":
      return { type: ["object", "array"], "x-input-type": "json", ...doc };
    case "file":
      return { $ref: FILE_REFERENCE_REF, ...doc };
    case "files":
      return {
        type: "array",
        items: { $ref: FILE_REFERENCE_REF },
        "x-input-type": "files",
        ...doc,
      };
  }
}

/** One output field's schema (docs/definition-format.md#outputs-and-results). */
function outputSchema(f: DraftField): JsonSchema {
  const doc = f.description ? { description: f.description } : {};
  switch (f.type) {
    case "text":
      return { type: "string", ...(f.enum ? { enum: [...f.enum] } : {}), ...doc };
    case "number":
    case "integer":
    case "boolean":
      return { type: f.type, ...doc };
    case "json":
      return { type: ["object", "array"], ...doc };
    case "file":
      return { $ref: FILE_OUTPUT_REF, ...doc };
    case "files":
      return { type: "array", items: { $ref: FILE_OUTPUT_REF }, ...doc };
  }
}

function objectSchema(
  fields: readonly DraftField[],
  where: "inputs" | "outputs",
  schemaOf: (f: DraftField) => JsonSchema,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  fields.forEach((f, i) => {
    const at = `/${where}/${i}`;
    if (!isObject(f) || typeof f.name !== "string" || f.name === "" || f.name.length > 200) {
      throw new AuthoringError(
        CODE.INVALID_WORKFLOW,
        `${at}/name`,
        "a non-empty name of at most 200 characters is required",
      );
    }
    if (!FIELD_TYPES.includes(f.type)) {
      throw new AuthoringError(
        CODE.INVALID_WORKFLOW,
        `${at}/type`,
        `must be one of ${FIELD_TYPES.join(", ")}`,
      );
    }
    if (
      f.enum !== undefined &&
      (f.type !== "text" || !f.enum.every((v) => typeof v === "string"))
    ) {
      throw new AuthoringError(
        CODE.INVALID_WORKFLOW,
        `${at}/enum`,
        "enum is a list of strings, for text fields only",
      );
    }
    if (Object.hasOwn(properties, f.name)) {
      throw new AuthoringError(
        CODE.INVALID_WORKFLOW,
        `${at}/name`,
        `duplicate field ${JSON.stringify(f.name)}`,
      );
    }
    // Field names are used on the wire as they are (any Unicode, even `__proto__`): own keys only.
    Object.defineProperty(properties, f.name, {
      value: schemaOf(f),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (f.required === true) required.push(f.name);
  });
  return {
    type: "object",
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties,
  };
}

/** The catalog entry of a new draft; throws AuthoringError naming the offending field. */
export function draftWorkflow(request: DraftRequest, id: string): WorkflowDef {
  if (typeof request.name !== "string" || request.name.trim() === "" || request.name.length > 200) {
    throw new AuthoringError(
      CODE.INVALID_WORKFLOW,
      "/name",
      "a non-empty name of at most 200 characters is required",
    );
  }
  let scenario: Scenario | undefined;
  if (request.scenario !== undefined) {
    try {
      scenario = parseScenario(request.scenario);
    } catch (e) {
      throw new AuthoringError(CODE.INVALID_SCENARIO, "/scenario", (e as Error).message);
    }
  }
  return {
    id,
    name: request.name,
    description: request.description ?? "",
    state: "draft",
    revision: 1,
    model: false,
    inputs: objectSchema(request.inputs, "inputs", inputSchema),
    outputs: objectSchema(request.outputs, "outputs", outputSchema),
    ...(scenario ? { scenario } : {}),
  };
}

/** Sessions and drafts of the agent endpoint, journalled through `record`. */
export class AuthoringStore {
  private readonly sessions = new Map<string, AuthoringSession>();
  /** Ids of workflows saved through authoring, by environment (the catalog holds the rest). */
  private readonly authored = new Map<string, Set<string>>();

  constructor(
    private readonly envs: (name: string) => EnvironmentDef | undefined,
    private readonly record: (rec: JournalRecord) => void,
    private readonly now: () => number,
  ) {}

  startSession(environment: string, workspace: string, purpose: string): AuthoringSession {
    const at = this.now();
    const session: AuthoringSession = {
      session_id: `as_${randomBytes(12).toString("base64url")}`,
      environment,
      workspace,
      purpose,
      created_at: at,
      expires_at: at + AUTHORING_SESSION_MS,
    };
    this.commit({ t: "authoring_session", session });
    return session;
  }

  /** The session, also when expired (the caller decides); undefined when unknown. */
  session(id: string): AuthoringSession | undefined {
    return this.sessions.get(id);
  }

  /** Saves a draft into the environment's catalog; throws AuthoringError. */
  saveDraft(environment: string, request: DraftRequest): WorkflowDef {
    const env = this.envs(environment);
    if (!env)
      throw new AuthoringError(CODE.INVALID_WORKFLOW, "/environment", "unknown environment");
    let id: string;
    do
      id = `wf_${randomBytes(6)
        .toString("base64url")
        .replace(/[^A-Za-z0-9]/g, "x")}`;
    while (env.workflows.has(id));
    // Before anything is built, stored or journalled (draft-budget.ts says why and how much).
    const overBudget = draftBudgetProblem(request);
    if (overBudget)
      throw new AuthoringError(CODE.DRAFT_TOO_LARGE, overBudget.pointer, overBudget.message);
    const workflow = draftWorkflow(request, id);
    this.commit({ t: "workflow", env: environment, workflow });
    return workflow;
  }

  /** Journal the change, then make it with `apply`, the function replay uses. */
  private commit(rec: JournalRecord): void {
    this.record(rec);
    this.apply(rec);
  }

  apply(rec: JournalRecord): boolean {
    if (rec.t === "authoring_session") {
      const s = rec.session as AuthoringSession;
      this.sessions.set(s.session_id, s);
      return true;
    }
    if (rec.t === "workflow") {
      this.put(rec.env as string, rec.workflow as WorkflowDef);
      return true;
    }
    return false;
  }

  /** Drafts as saved (their later state changes are the emulator's own `state` records). */
  *snapshot(): Generator<JournalRecord> {
    for (const [environment, ids] of this.authored) {
      const env = this.envs(environment);
      for (const id of ids) {
        const workflow = env?.workflows.get(id);
        if (workflow) yield { t: "workflow", env: environment, workflow };
      }
    }
    const now = this.now();
    for (const session of this.sessions.values())
      if (session.expires_at > now) yield { t: "authoring_session", session };
  }

  get size(): number {
    let n = this.sessions.size;
    for (const ids of this.authored.values()) n += ids.size;
    return n;
  }

  private put(environment: string, workflow: WorkflowDef): void {
    const env = this.envs(environment);
    if (!env) return;
    env.workflows.set(workflow.id, workflow);
    const ids = this.authored.get(environment) ?? new Set<string>();
    ids.add(workflow.id);
    this.authored.set(environment, ids);
  }
}
