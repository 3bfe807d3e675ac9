// The public API's handlers, one per row of docs/service-rules.md#endpoints (api-routes.ts names
// them): launch, status, result, events, recording, human-input, and the browser-access grants.
// Authentication and the scope check happen before a handler runs (http-server.ts, auth.ts).

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE, LIMITS } from "@wfr/protocol";
import { GrantError, grantView, parseGrantRequest } from "../access/browser-access-grants.js";
import type { ApiKey } from "../access/credentials.js";
import { declaresFileInput, validateInputs } from "../definition/validate-inputs.js";
import { iso } from "../engine/clock.js";
import { idempotencyScope, requestFingerprint } from "../engine/idempotency.js";
import { recordingBytes, recordingState } from "../engine/recording.js";
import { envelope, eventsView, type Links, resultView } from "../engine/run-views.js";
import { defaultScenario } from "../engine/scenario.js";
import { HttpError, parseJsonBody, sendJson } from "../http/http-kit.js";
import { noteRequest } from "../http/request-log.js";
import { isObject, metadataMembers } from "../model/json-text.js";
import { isTerminal, type RunRecord } from "../model/types.js";
import type { ApiState, EnvView } from "../state/emulator-state.js";
import {
  checkAttachments,
  checkCallback,
  checkMetadata,
  checkModel,
  checkTopLevel,
  idempotencyKeyOf,
  METADATA_MEMBER_LIMIT,
  problemError,
} from "./launch-body.js";

/** One authenticated, scope-checked call of the public API. */
export interface ApiCall {
  st: ApiState;
  req: IncomingMessage;
  res: ServerResponse;
  env: EnvView;
  key: ApiKey;
  /** The route's one path parameter: workflowId for launch, runId otherwise. */
  param: string;
  /** The body, read within the route's limit by middleware (empty for routes without one). */
  body: Buffer;
  links: Links;
}

export type ApiHandler = (call: ApiCall) => Promise<void> | void;

function findRun(st: ApiState, key: ApiKey, runId: string): RunRecord {
  const run = st.engine.find(runId);
  // docs/service-rules.md#authentication: 404 for a run outside the workspace or environment, no leak.
  if (!run || run.workspace !== key.workspace || run.environment !== key.environment) {
    throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
  }
  st.engine.process(run);
  return run;
}

/** POST /automations/{workflowId}/runs */
export async function launch({
  st,
  req,
  res,
  env,
  key,
  param: workflowId,
  body: buf,
}: ApiCall): Promise<void> {
  const wf = env.def.workflows.get(workflowId);
  // Only a saved workflow id is valid; anything else (run or session ids) is not found.
  if (!wf || env.def.workspace !== key.workspace) {
    throw new HttpError(404, CODE.WORKFLOW_NOT_FOUND, "workflow not found");
  }
  if (metadataMembers(buf, METADATA_MEMBER_LIMIT) > METADATA_MEMBER_LIMIT) {
    throw new HttpError(
      400,
      CODE.INVALID_METADATA,
      `metadata holds more than ${METADATA_MEMBER_LIMIT} members (properties and array elements at every level): the emulator's own limit`,
      { field: "metadata" },
    );
  }
  const body = parseJsonBody(buf);
  const top = checkTopLevel(body);
  if (top) throw problemError(top);
  const b = body as Record<string, unknown>;
  const idemKey = idempotencyKeyOf(b, req.headers["idempotency-key"]);
  if ("code" in idemKey) throw problemError(idemKey);
  // Only a keyed launch is ever compared with another, so only it pays for canonical JSON.
  const fingerprint = idemKey.key === null ? "" : requestFingerprint(b);
  const scope =
    idemKey.key === null ? null : idempotencyScope(key.workspace, env.def.name, wf.id, idemKey.key);
  if (scope !== null) {
    const hit = st.idem.check(scope, fingerprint, (id) => st.engine.find(id));
    const prior = hit.kind === "new" ? undefined : st.engine.find(hit.runId);
    if (hit.kind === "replay" && prior) {
      st.engine.process(prior);
      noteRequest(res, { run_id: prior.run_id, idempotency: "replay" });
      return sendJson(res, 202, envelope(prior, st.links(env.def.name)));
    }
    if (hit.kind === "conflict") {
      noteRequest(res, { idempotency: "conflict" });
      throw new HttpError(
        409,
        CODE.IDEMPOTENCY_CONFLICT,
        "this idempotency key was used with a different request for this workflow",
      );
    }
  }
  if (wf.state !== "enabled") {
    throw new HttpError(
      409,
      CODE.WORKFLOW_NOT_ENABLED,
      `workflow is ${wf.state}; only an enabled workflow can be launched`,
      {
        state: wf.state,
      },
    );
  }
  for (const check of [checkMetadata(b), checkModel(b, wf.model)])
    if (check) throw problemError(check);
  const cb = checkCallback(b, st.cfg.allowLocalCallbacks);
  if ("code" in cb) throw problemError(cb);
  const att = checkAttachments(b);
  if ("code" in att) throw problemError(att);
  if (att.meta.length > 0 && !declaresFileInput(wf.inputs)) {
    throw new HttpError(
      400,
      CODE.INVALID_ATTACHMENTS,
      "this workflow declares no file input, so attachments cannot be used",
    );
  }
  const v = validateInputs(wf.inputs, b.inputs, wf.inputsDialect);
  if (!v.ok) {
    throw new HttpError(
      400,
      CODE.INVALID_INPUTS,
      "inputs failed validation against the workflow's input schema",
      {
        details: v.details,
      },
    );
  }
  for (const ref of v.fileRefs) {
    if (!att.ids.has(ref.attachment_id)) {
      throw new HttpError(
        400,
        CODE.INVALID_ATTACHMENTS,
        `input ${ref.field} references attachment ${JSON.stringify(ref.attachment_id)}, which is not in input_context.attachments`,
      );
    }
  }
  const scenario = structuredClone(env.scenarios.get(wf.id) ?? wf.scenario ?? defaultScenario());
  const run = st.engine.create({
    environment: env.def.name,
    workspace: key.workspace,
    workflow_id: wf.id,
    revision: wf.revision,
    inputs: v.value,
    metadata: isObject(b.metadata) ? b.metadata : {},
    model: typeof b.model === "string" ? b.model : null,
    callback_url: cb.url,
    idempotency_key: idemKey.key,
    fingerprint,
    attachments: att.meta,
    scenario,
    source: key.source ?? "api",
  });
  if (scope !== null) st.idem.remember(scope, run.run_id, fingerprint);
  noteRequest(res, { run_id: run.run_id });
  sendJson(res, 202, envelope(run, st.links(env.def.name)));
}

/** GET /runs/{runId} */
export function status({ st, res, key, param, links }: ApiCall): void {
  sendJson(res, 200, envelope(findRun(st, key, param), links));
}

/** GET /runs/{runId}/result */
export function result({ st, res, key, param }: ApiCall): void {
  const run = findRun(st, key, param);
  // docs/service-rules.md#results: 202 until terminal, 200 after (failures included).
  sendJson(res, isTerminal(run.status) ? 200 : 202, resultView(run));
}

/** GET /runs/{runId}/events */
export function events({ st, res, key, param }: ApiCall): void {
  sendJson(res, 200, eventsView(findRun(st, key, param)));
}

/** GET /runs/{runId}/recording */
export function recording({ st, res, key, param: runId }: ApiCall): void {
  const run = findRun(st, key, runId);
  const now = st.clock.now();
  const wait = st.limiter.wait(key.workspace, now);
  // Counted through the journal, so a restart does not refill the hourly budget.
  if (wait === null) st.commit({ t: "recording_download", workspace: key.workspace, at: now });
  if (wait !== null) {
    throw new HttpError(
      429,
      CODE.RECORDING_RATE_LIMITED,
      "more than 10 recording downloads this hour for this workspace",
      {},
      {
        "Retry-After": String(wait),
      },
    );
  }
  const state = recordingState(run, now);
  switch (state.kind) {
    case "not_found":
      throw new HttpError(
        404,
        CODE.RECORDING_NOT_FOUND,
        `no recording is available: ${state.reason}`,
      );
    case "processing":
      sendJson(
        res,
        202,
        { error: "the recording is still being assembled", code: CODE.RECORDING_PROCESSING },
        { "Retry-After": String(LIMITS.recordingProcessingRetryAfterSeconds) },
      );
      return;
    case "too_large":
      throw new HttpError(
        413,
        CODE.RECORDING_TOO_LARGE,
        `the recording is ${state.size} bytes, above the 128 MiB limit`,
      );
    case "ready": {
      const bytes = recordingBytes();
      // Plain GET only: a Range header still gets the whole file with 200.
      res.writeHead(200, {
        "Content-Type": "video/mp4",
        "Content-Length": bytes.length,
        "Content-Disposition": `attachment; filename="${run.run_id}.mp4"`,
        "Accept-Ranges": "none",
        "Cache-Control": "no-store",
      });
      res.end(bytes);
    }
  }
}

/** POST /runs/{runId}/human-input */
export async function humanInput({
  st,
  res,
  key,
  param: runId,
  links,
  body: buf,
}: ApiCall): Promise<void> {
  const run = findRun(st, key, runId);
  const body = parseJsonBody(buf);
  if (!isObject(body) || !Object.hasOwn(body, "response")) {
    throw new HttpError(
      400,
      CODE.INVALID_BODY,
      "body must be an object with `response` (and `checkpoint_id`)",
    );
  }
  if (body.checkpoint_id !== undefined && typeof body.checkpoint_id !== "string") {
    throw new HttpError(400, CODE.INVALID_BODY, "checkpoint_id must be a string");
  }
  const out = st.engine.answer(run, body.checkpoint_id as string | undefined, body.response);
  switch (out.kind) {
    case "accepted":
    case "idempotent":
      return sendJson(res, 202, envelope(run, links));
    case "conflict":
      throw new HttpError(409, CODE.HUMAN_WAIT_CONFLICT, out.message);
    case "not_waiting":
      throw new HttpError(
        409,
        CODE.NOT_WAITING_FOR_HUMAN,
        "the run is not waiting for a human; nothing was stored",
      );
    case "expired":
      throw new HttpError(410, CODE.HUMAN_WAIT_EXPIRED, "the human wait expired");
  }
}

// ---------- browser-access grants (browser-access-grants.ts; shape documented in the README) ----------

/** POST /runs/{runId}/browser-access-grants */
export async function grantCreate({
  st,
  res,
  key,
  param: runId,
  body: buf,
}: ApiCall): Promise<void> {
  const body = parseJsonBody(buf);
  const run = findRun(st, key, runId);
  if (!isObject(body)) throw new HttpError(400, CODE.INVALID_GRANT, "body must be a JSON object");
  let parsed: ReturnType<typeof parseGrantRequest>;
  try {
    parsed = parseGrantRequest(body);
  } catch (e) {
    if (!(e instanceof GrantError)) throw e;
    throw new HttpError(e.status, e.code, e.message, e.field ? { field: e.field } : {});
  }
  if (run.session_id === null) {
    throw new HttpError(
      409,
      CODE.SESSION_NOT_STARTED,
      "the run has no browser session yet; poll the run until session_id is set",
    );
  }
  const now = st.clock.now();
  const { grant, token } = st.grants.mint(
    {
      environment: run.environment,
      workspace: run.workspace,
      run_id: run.run_id,
      session_id: run.session_id,
    },
    parsed,
    now,
  );
  st.commit({ t: "grant", grant });
  sendJson(res, 201, { ...grantView(grant, now, iso), token });
}

function findGrant({ st, key, param: grantId }: ApiCall) {
  const grant = st.grants.find(grantId, key.environment, key.workspace);
  if (!grant) throw new HttpError(404, CODE.GRANT_NOT_FOUND, "browser-access grant not found");
  return grant;
}

/** GET /browser-access-grants/{grantId} */
export function grantRead(call: ApiCall): void {
  sendJson(call.res, 200, grantView(findGrant(call), call.st.clock.now(), iso));
}

/** DELETE /browser-access-grants/{grantId}: the run goes on (docs/service-rules.md#portal-sessions-and-browser-access). */
export function grantDelete(call: ApiCall): void {
  const grant = findGrant(call);
  call.st.commit({ t: "grant_deleted", grant_id: grant.grant_id });
  call.res.writeHead(204, { "Content-Length": "0" });
  call.res.end();
}
