// The admin API under /_emulator (not part of the spec): a route table like api-routes.ts, with
// its handlers. The Host, Origin and admin-token checks and the body limit run before, as
// middleware (surfaces.ts, middleware.ts). Handlers see the narrow `AdminState`: they change
// state only by `commit` (state-changes.ts) or the state's actions.

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE, SCOPES, type Scope } from "@wfr/protocol";
import { iso } from "../engine/clock.js";
import { hasBrowserRecording, recordingBytes, recordingState } from "../engine/recording.js";
import type { Fault } from "../engine/run-engine.js";
import { envelope } from "../engine/run-views.js";
import { defaultScenario, parseScenario, parseStep } from "../engine/scenario.js";
import type { DeliveryFaultKind } from "../faults/delivery-faults.js";
import { HttpError, parseJsonBody, sendJson } from "../http/http-kit.js";
import { honoPath, type RequestContext, RouteTable } from "../http/router.js";
import { isObject } from "../model/json-text.js";
import type { RunRecord, Scenario, WorkflowDef, WorkflowState } from "../model/types.js";
import {
  type AdminState,
  adminEnv,
  armApiFault,
  armDeliveryFault,
  createKey,
  type EnvView,
  removeApiFault,
  setWorkflowState,
} from "../state/emulator-state.js";
import { advanceClockRoute, readClock } from "./clock-routes.js";

/** Admin bodies (scenarios, faults): read by middleware before the admin table (surfaces.ts). */
export const ADMIN_LIMIT = 8_388_608;
const EMPTY = Buffer.alloc(0);

/** One admin call: the matched path parameters by name (`{env}` gives `params.env`). */
interface AdminCall {
  st: AdminState;
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  /** The body, read within ADMIN_LIMIT by middleware (surfaces.ts); empty for GET and HEAD. */
  body: Buffer;
}

interface AdminRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under /_emulator. */
  path: string;
  handler: (call: AdminCall) => Promise<void> | void;
}

/** The admin body as a JSON object (depth, UTF-8 and syntax checked by parseJsonBody). */
function adminJson(body: Buffer): Record<string, unknown> {
  const json = parseJsonBody(body);
  if (!isObject(json)) throw new HttpError(400, CODE.INVALID_BODY, "body must be a JSON object");
  return json;
}

/** A row arming a callback delivery fault (delivery-faults.ts) on a run with a callback_url. */
function deliveryFaultRoute(kind: DeliveryFaultKind): AdminRoute {
  return {
    method: "POST",
    path: `/environments/{env}/runs/{runId}/faults/${kind}`,
    handler: async ({ st, res, params, body }) => {
      const run = envRun(st, adminEnv(st, params.env), params.runId);
      const plan = armDeliveryFault(st, run, kind, adminJson(body));
      return sendJson(res, 200, { run_id: run.run_id, delivery_faults: plan });
    },
  };
}

/** Body of POST .../runs/{id}/faults/{kind}; errors name the field. */
export function parseFault(kind: string, body: Record<string, unknown>): Fault {
  try {
    switch (kind) {
      case "checkpoint": {
        const s = parseStep({ human: { kind: "approval", reason: "injected", ...body } }, 0);
        if ("human" in s) return { kind: "checkpoint", human: s.human };
        break;
      }
      case "expire":
        return { kind: "expire" };
      case "fail": {
        const s = parseStep({ fail: body }, 0);
        if ("fail" in s) return { kind: "fail", status: s.fail.status, error: s.fail.error };
        break;
      }
      case "succeed": {
        const s = parseStep({ succeed: body }, 0);
        if ("succeed" in s)
          return {
            kind: "succeed",
            ...(s.succeed.outputs ? { outputs: s.succeed.outputs } : {}),
          };
        break;
      }
    }
  } catch (e) {
    throw new HttpError(400, CODE.INVALID_FAULT, (e as Error).message);
  }
  throw new HttpError(
    404,
    CODE.NOT_FOUND,
    "faults are checkpoint, expire, fail, succeed, callback-twice, callback-late and callback-fail",
  );
}

function runHistory(st: AdminState, run: RunRecord): Record<string, unknown> {
  const links = st.links(run.environment);
  const rec = run.scenario.recording ?? { mode: "ready" };
  return {
    run_id: run.run_id,
    workflow_id: run.workflow_id,
    revision: run.revision,
    environment: run.environment,
    workspace: run.workspace,
    status: run.status,
    source: run.source ?? "api",
    inputs: run.inputs,
    metadata: run.metadata,
    model: run.model,
    attachments: run.attachments,
    callback_url: run.callback_url,
    idempotency_key: run.idempotency_key,
    error: run.error,
    outputs: run.outputs,
    created_at: iso(run.created_at),
    finished_at: run.finished_at === null ? null : iso(run.finished_at),
    events: run.events,
    checkpoints: run.checkpoints.map((c) => ({
      checkpoint_id: c.checkpoint_id,
      kind: c.kind,
      reason: c.reason,
      expires_at: iso(c.expires_at),
      answered: c.answer !== undefined,
      answer: c.answer === undefined ? null : JSON.parse(c.answer),
      acknowledged: c.acknowledged === true,
      expired: c.expired === true,
    })),
    recording: {
      mode: rec.mode,
      session: run.scenario.session ?? "browser",
      state: recordingState(run, st.clock.now()).kind,
      url: hasBrowserRecording(run) ? `${links.apiBase}/runs/${run.run_id}/recording` : null,
      size_bytes: rec.size_bytes ?? recordingBytes().length,
    },
    envelope: envelope(run, links),
  };
}

/** The run `{runId}` of environment `{env}`, brought up to date; 404 otherwise. */
function envRun(st: AdminState, env: EnvView, runId: string | undefined): RunRecord {
  const run = runId === undefined ? undefined : st.engine.find(runId);
  if (!run || run.environment !== env.def.name)
    throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
  return run;
}

function envWorkflow(env: EnvView, workflowId: string | undefined): WorkflowDef {
  const wf = workflowId === undefined ? undefined : env.def.workflows.get(workflowId);
  if (!wf) throw new HttpError(404, CODE.WORKFLOW_NOT_FOUND, "workflow not found");
  return wf;
}

function badEnvironment(name: unknown): HttpError {
  return new HttpError(
    400,
    CODE.INVALID_ENVIRONMENT,
    `unknown environment ${JSON.stringify(name)}`,
  );
}

const ADMIN_ROUTES: readonly AdminRoute[] = [
  // Personal access tokens of the agent surface (agent-surface.ts).
  {
    method: "POST",
    path: "/personal-access-tokens",
    handler: ({ st, res, body }) => st.agents.createTokenRoute(body, res),
  },
  {
    method: "GET",
    path: "/personal-access-tokens",
    handler: ({ st, res }) => st.agents.listTokensRoute(res),
  },
  {
    method: "DELETE",
    path: "/personal-access-tokens/{id}",
    handler: ({ st, res, params }) => st.agents.revokeTokenRoute(res, params.id as string),
  },
  {
    method: "POST",
    path: "/keys",
    handler: async ({ st, res, body }) => {
      const b = adminJson(body);
      const env = st.envs.get(b.environment as string);
      if (!env) throw badEnvironment(b.environment);
      const scopes = b.scopes ?? [...SCOPES];
      if (
        !Array.isArray(scopes) ||
        scopes.some((s) => !(SCOPES as readonly string[]).includes(s))
      ) {
        throw new HttpError(
          400,
          CODE.INVALID_SCOPE,
          `scopes must be a list of ${SCOPES.join(", ")}`,
        );
      }
      if (b.workspace !== undefined && (typeof b.workspace !== "string" || b.workspace === "")) {
        throw new HttpError(400, CODE.INVALID_BODY, "workspace must be a non-empty string");
      }
      const { token, key } = createKey(
        st,
        env,
        (b.workspace as string | undefined) ?? env.def.workspace,
        scopes as Scope[],
      );
      return sendJson(res, 201, {
        token,
        environment: key.environment,
        workspace: key.workspace,
        scopes: key.scopes,
      });
    },
  },
  {
    method: "POST",
    path: "/sign-in-links",
    // A fresh one-time link to the web application (the one printed at start-up is used once).
    handler: ({ st, res }) =>
      sendJson(res, 201, { url: st.signIn.create(st.origin, st.clock.now()) }),
  },
  {
    method: "POST",
    path: "/portal-sessions",
    handler: async ({ st, res, body }) => {
      const b = adminJson(body);
      const env = st.envs.get(b.environment as string);
      if (!env) throw badEnvironment(b.environment);
      const workspace = typeof b.workspace === "string" ? b.workspace : env.def.workspace;
      const id = st.openPortalSession({ environment: env.def.name, workspace });
      return sendJson(res, 201, {
        cookie: `wfr_portal_session=${id}`,
        environment: env.def.name,
        workspace,
      });
    },
  },
  {
    method: "POST",
    path: "/clock/advance",
    handler: ({ st, res, body }) => advanceClockRoute(st, res, adminJson(body)),
  },
  {
    method: "POST",
    path: "/journal/compact",
    // Compact the journal now, while serving (background-compaction.ts).
    handler: async ({ st, res, body }) => {
      adminJson(body);
      const done = await st.compactJournal();
      if (!done)
        throw new HttpError(409, CODE.NO_JOURNAL, "no journal to compact (start with --data)");
      return sendJson(res, 200, {
        bytes: done.bytes,
        longest_slice_ms: Math.round(done.longestSliceMs),
        total_ms: Math.round(done.totalMs),
        captured_records: done.capturedRecords,
      });
    },
  },
  {
    method: "GET",
    path: "/clock",
    handler: ({ st, res }) => readClock(st, res),
  },
  {
    method: "GET",
    path: "/environments",
    handler: ({ st, res }) =>
      sendJson(res, 200, {
        environments: [...st.envs.values()].map((e) => ({
          name: e.def.name,
          workspace: e.def.workspace,
          base_url: st.links(e.def.name).apiBase,
          workflows: [...e.def.workflows.values()].map((w) => ({
            id: w.id,
            name: w.name,
            state: w.state,
            revision: w.revision,
          })),
        })),
      }),
  },
  {
    method: "POST",
    path: "/environments/{env}/reset",
    handler: ({ st, res, params }) => {
      const env = adminEnv(st, params.env);
      st.commit({ t: "reset", env: env.def.name });
      return sendJson(res, 200, { environment: env.def.name, reset: true });
    },
  },
  // Faults on the API itself (api-faults.ts).
  {
    method: "POST",
    path: "/api-faults",
    handler: async ({ st, res, body }) => sendJson(res, 201, armApiFault(st, adminJson(body))),
  },
  {
    method: "GET",
    path: "/api-faults",
    handler: ({ st, res }) => sendJson(res, 200, { faults: st.apiFaults.list() }),
  },
  {
    method: "DELETE",
    path: "/api-faults",
    handler: ({ st, res }) => {
      for (const rule of st.apiFaults.list()) removeApiFault(st, rule.id);
      res.writeHead(204).end();
    },
  },
  {
    method: "DELETE",
    path: "/api-faults/{id}",
    handler: ({ st, res, params }) => {
      if (!removeApiFault(st, params.id as string))
        throw new HttpError(404, CODE.NOT_FOUND, "no API fault with this id");
      res.writeHead(204).end();
    },
  },
  // Callback delivery faults: before the run faults' `{kind}` row, which would take them.
  deliveryFaultRoute("callback-twice"),
  deliveryFaultRoute("callback-late"),
  deliveryFaultRoute("callback-fail"),
  {
    method: "POST",
    path: "/environments/{env}/runs/{runId}/faults/{kind}",
    handler: async ({ st, res, params, body }) => {
      const run = envRun(st, adminEnv(st, params.env), params.runId);
      const fault = parseFault(params.kind as string, adminJson(body));
      const refused = st.engine.inject(run, fault);
      if (refused !== null) throw new HttpError(409, CODE.FAULT_NOT_APPLICABLE, refused);
      return sendJson(res, 200, runHistory(st, run));
    },
  },
  {
    method: "POST",
    path: "/environments/{env}/callbacks/{eventId}/resend",
    handler: ({ st, res, params }) => {
      if (!st.resendCallback(adminEnv(st, params.env), params.eventId as string))
        throw new HttpError(404, CODE.EVENT_NOT_FOUND, "no callback with this event_id was sent");
      return sendJson(res, 202, { event_id: params.eventId, resent: true });
    },
  },
  {
    method: "GET",
    path: "/environments/{env}/callbacks",
    handler: ({ st, res, params }) =>
      sendJson(res, 200, { deliveries: adminEnv(st, params.env).deliveries }),
  },
  {
    method: "GET",
    path: "/environments/{env}/runs",
    handler: ({ st, res, params }) => {
      const env = adminEnv(st, params.env);
      const runs = [...st.engine.runs.values()].filter((r) => r.environment === env.def.name);
      for (const r of runs) st.engine.process(r);
      // Finished runs on disk are read back one at a time (an export of everything).
      for (const listed of st.archive?.listings() ?? []) {
        const r = listed.environment === env.def.name ? st.engine.find(listed.run_id) : undefined;
        if (r) runs.push(r);
      }
      runs.sort((a, b) => a.created_at - b.created_at);
      return sendJson(res, 200, { runs: runs.map((r) => runHistory(st, r)) });
    },
  },
  {
    method: "GET",
    path: "/environments/{env}/runs/{runId}",
    handler: ({ st, res, params }) => {
      const run = envRun(st, adminEnv(st, params.env), params.runId);
      st.engine.process(run);
      return sendJson(res, 200, runHistory(st, run));
    },
  },
  {
    method: "PUT",
    path: "/environments/{env}/workflows/{workflowId}/scenario",
    handler: async ({ st, res, params, body }) => {
      const env = adminEnv(st, params.env);
      const wf = envWorkflow(env, params.workflowId);
      const b = adminJson(body);
      let scenario: Scenario;
      try {
        scenario = parseScenario(b);
      } catch (e) {
        throw new HttpError(400, CODE.INVALID_SCENARIO, (e as Error).message);
      }
      st.commit({ t: "scenario", env: env.def.name, workflow: wf.id, scenario });
      return sendJson(res, 200, { workflow_id: wf.id, scenario });
    },
  },
  {
    method: "DELETE",
    path: "/environments/{env}/workflows/{workflowId}/scenario",
    handler: ({ st, res, params }) => {
      const env = adminEnv(st, params.env);
      const wf = envWorkflow(env, params.workflowId);
      st.commit({ t: "scenario", env: env.def.name, workflow: wf.id, scenario: null });
      return sendJson(res, 200, {
        workflow_id: wf.id,
        scenario: wf.scenario ?? defaultScenario(),
      });
    },
  },
  {
    method: "PUT",
    path: "/environments/{env}/workflows/{workflowId}/state",
    handler: async ({ st, res, params, body }) => {
      const env = adminEnv(st, params.env);
      const wf = envWorkflow(env, params.workflowId);
      const b = adminJson(body);
      if (!["enabled", "draft", "disabled"].includes(b.state as string)) {
        throw new HttpError(400, CODE.INVALID_STATE, "state must be enabled, draft or disabled");
      }
      setWorkflowState(st, env, wf, b.state as WorkflowState);
      return sendJson(res, 200, { workflow_id: wf.id, state: wf.state });
    },
  },
];

/** The admin table, matched by Hono's router (router.ts); rows in the order above. */
const ADMIN_TABLE = (() => {
  const table = new RouteTable<RequestContext & { st: AdminState; body?: Buffer }>();
  for (const route of ADMIN_ROUTES)
    table.add(route.method, honoPath(route.path), `admin ${route.path}`, (ctx) =>
      route.handler({
        st: ctx.st,
        req: ctx.req,
        res: ctx.res,
        params: ctx.params,
        body: ctx.body ?? EMPTY,
      }),
    );
  return table;
})();

export const adminRows = () => ADMIN_TABLE.rows;

/** /_emulator/{...}: after the admin guard (middleware.ts). */
export async function handleAdmin(
  st: AdminState,
  ctx: RequestContext & { body?: Buffer },
): Promise<void> {
  const p = ctx.parts.slice(1);
  if (p[0] === "environments" && p.length >= 3) {
    // Under an environment, an unknown environment (then workflow) is named before the route.
    if (!st.clock.virtual) st.engine.tick();
    const env = adminEnv(st, p[1]);
    if (p[2] === "workflows" && p.length === 5) envWorkflow(env, p[3]);
  }
  const sub = `/${ctx.path
    .split("/")
    .filter((s) => s !== "")
    .slice(1)
    .join("/")}`;
  if (!(await ADMIN_TABLE.dispatch(Object.assign(ctx, { st }), sub)))
    throw new HttpError(404, CODE.NOT_FOUND, "no such admin route");
}
