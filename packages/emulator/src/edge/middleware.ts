// The emulator's middleware, each one concern, in the order surfaces.ts runs them (the README's
// "Middleware order"): request id and log, the Host check, CORS, no key in the query; then per
// surface the admin guard, the API's key, scope and API faults, the agent endpoint's caller,
// the portal's same-site check and session, and the body limit. Each throws an HttpError
// (answered by the edge) or calls next().

import { CODE } from "@wfr/protocol";
import type { ApiKey, PersonalAccessToken } from "../access/credentials.js";
import type { AgentSurface } from "../agent/agent-surface.js";
import { type McpBody, readMcpBody } from "../agent/mcp-endpoint/mcp-body.js";
import type { ApiRoute } from "../api/api-routes.js";
import { type ApiFaults, applyApiFault, faultLabel } from "../faults/api-faults.js";
import { HttpError, readBodyWithin } from "../http/http-kit.js";
import { logRequest, noteRequest, type RequestLogFormat } from "../http/request-log.js";
import type { Middleware, RequestContext } from "../http/router.js";
import { newId } from "../model/ids.js";
import type {
  AuthState,
  CorsState,
  EmulatorState,
  EnvView,
  LiveViewState,
  PortalSession,
  ServerConfig,
} from "../state/emulator-state.js";
import { authenticate, portalSession, refuseKeyInQuery, requireScope } from "./auth.js";
import { cors } from "./cors.js";
import { grantSession } from "./live-view.js";
import { checkAdminRequest, checkHost } from "./request-guard.js";

/** A request on an environment's routes: its environment, and on the API its key. */
export interface EnvContext extends RequestContext {
  env: EnvView;
  key?: ApiKey;
  body?: Buffer;
}

/**
 * One id per request on every answer, as a real API gateway sends it (clients quote it in
 * support requests); the request log's line once the answer is finished.
 */
export function requestIdAndLog(format: RequestLogFormat): Middleware {
  return (ctx, next) => {
    ctx.res.setHeader("X-Request-Id", newId("req"));
    logRequest(format, ctx.req, ctx.res);
    return next();
  };
}

/** DNS rebinding: the Host header must name this emulator; exactly one Host header. */
export function hostCheck(allowed: () => ReadonlySet<string>): Middleware {
  return (ctx, next) => {
    const bad = checkHost(ctx.req.headers, allowed(), ctx.req.rawHeaders);
    if (bad) throw new HttpError(bad.status, bad.code, bad.message);
    return next();
  };
}

/** CORS headers for permitted origins; a preflight is answered here. */
export function corsHeaders(st: CorsState): Middleware {
  return (ctx, next) => (cors(st, ctx.req, ctx.res) ? undefined : next());
}

/** An API key (or anything named like one) in the query is refused on every route. */
export function noKeyInQuery(st: Pick<AuthState, "keys">): Middleware {
  return (ctx, next) => {
    refuseKeyInQuery(st, ctx.query);
    return next();
  };
}

/** What the admin guard reads: whether the admin API is on, its token, the emulator's origins. */
export type AdminGuardState = Pick<EmulatorState, "sameOrigins"> & {
  readonly cfg: Pick<ServerConfig, "admin" | "adminToken">;
};

/** The admin API: off (404), cross-site browser requests, non-JSON bodies, the admin token. */
export function adminGuard(st: AdminGuardState): Middleware {
  return (ctx, next) => {
    if (!st.cfg.admin) throw new HttpError(404, CODE.NOT_FOUND, "no such route");
    const bad = checkAdminRequest(ctx.method, ctx.req.headers, st.sameOrigins(), st.cfg.adminToken);
    if (bad) throw new HttpError(bad.status, bad.code, bad.message);
    return next();
  };
}

/** A request whose body a `bodyWithin` middleware read. */
export interface BodyContext extends RequestContext {
  body?: Buffer;
}

/**
 * The route's body limit (docs/service-rules.md#limits: refused before parsing): a declared Content-Length
 * over it is refused unread, a streamed body is read up to it; then `413 BODY_TOO_LARGE`, and
 * the rest of the body is read and discarded so that a client still uploading reads the answer
 * (http/http-kit.ts). The body is kept for the handler (which parses it: http-kit.ts,
 * depth and UTF-8, in the order the route documents).
 */
export function bodyWithin<C extends BodyContext>(limit: number): Middleware<C> {
  return async (ctx, next) => {
    // GET and HEAD carry no body the emulator reads.
    if (ctx.method !== "GET" && ctx.method !== "HEAD")
      ctx.body = await readBodyWithin(ctx.req, limit);
    return next();
  };
}

/** The API key of the request, for the environment (401), with the route's scope (403). */
export function apiKey(st: AuthState, route: Pick<ApiRoute, "scope">): Middleware<EnvContext> {
  return (ctx, next) => {
    const key = authenticate(st, ctx.req, ctx.env);
    requireScope(key, route.scope);
    ctx.key = key;
    // The log names the run; a grant route's parameter is a grant id, not a run id.
    if (ctx.params.runId !== undefined) noteRequest(ctx.res, { run_id: ctx.params.runId });
    return next();
  };
}

/** What the API fault middleware uses: the rules, and `commit` to count a firing. */
export type ApiFaultFiring = Pick<EmulatorState, "commit"> & {
  readonly apiFaults: Pick<ApiFaults, "firing">;
};

/**
 * Faults on the API itself (api-faults.ts), after the key (a rule may name a workspace): the
 * first rule that fires answers instead of, or around, the route; journalled (before it counts)
 * and logged.
 */
export function apiFaults(st: ApiFaultFiring): Middleware<EnvContext> {
  return (ctx, next) => {
    const fault = st.apiFaults.firing({
      method: ctx.method,
      path: ctx.parts.slice(3),
      environment: ctx.env.def.name,
      workspace: ctx.key?.workspace ?? "",
    });
    if (fault === null) return next();
    st.commit({ t: "api_fault", id: fault.id, rule: fault });
    noteRequest(ctx.res, { fault: `${fault.id}:${faultLabel(fault.action)}` });
    return applyApiFault(fault, ctx.req, ctx.res, next);
  };
}

/** A request on /mcp: the person whose personal access token it carries. */
export interface McpContext extends RequestContext {
  person?: PersonalAccessToken;
  mcpBody?: McpBody;
}

/**
 * The agent endpoint's caller (docs/service-rules.md#authentication: a person's token; an
 * Origin of the emulator itself), before its body is read: a stranger's body is never read.
 */
export function mcpCaller(agents: Pick<AgentSurface, "mcpPerson">): Middleware<McpContext> {
  return (ctx, next) => {
    ctx.person = agents.mcpPerson(ctx.req);
    return next();
  };
}

/**
 * The agent endpoint's body, after its caller: held to the budget of the call it carries as it
 * streams (agent/mcp-endpoint/mcp-body.ts; `launchLimit` for a `launch_run`).
 */
export function mcpBodyWithin(launchLimit: number): Middleware<McpContext> {
  return async (ctx, next) => {
    // GET (the session's event stream) and HEAD carry no body the endpoint reads.
    if (ctx.method !== "GET" && ctx.method !== "HEAD")
      ctx.mcpBody = await readMcpBody(ctx.req, launchLimit);
    return next();
  };
}

/**
 * A cookie-authenticated portal action refuses cross-site browser requests and non-JSON bodies,
 * as the admin API does (request-guard.ts), without the admin token.
 */
export function sameSite(st: Pick<EmulatorState, "sameOrigins">): Middleware {
  return (ctx, next) => {
    const bad = checkAdminRequest(ctx.method, ctx.req.headers, st.sameOrigins(), undefined);
    if (bad) throw new HttpError(bad.status, bad.code, bad.message);
    return next();
  };
}

/** A request on a portal route: the portal user, or a grant's browser, it is for. */
export interface PortalContext extends EnvContext {
  session?: PortalSession;
}

/**
 * docs/service-rules.md#authentication: a portal page is for a signed-in portal user of the
 * environment (the local developer's session is one in every environment); an API key or a
 * personal access token is not a portal session. With `grant`, a browser-access grant of the
 * run in `:runId` stands for one (docs/service-rules.md#portal-sessions-and-browser-access).
 */
export function portalUser(
  st: Pick<LiveViewState, "portalSessions" | "clock" | "grants">,
  opts: { grant?: boolean } = {},
): Middleware<PortalContext> {
  return (ctx, next) => {
    const session =
      portalSession(st, ctx.req) ??
      (opts.grant
        ? grantSession(st, ctx.req, ctx.res, ctx.env, ctx.params.runId as string)
        : undefined);
    if (!session || (session.environment !== ctx.env.def.name && !session.everywhere)) {
      throw new HttpError(
        401,
        CODE.PORTAL_SESSION_REQUIRED,
        "this page is for a signed-in portal user; an API key or a personal access token is not a portal session",
      );
    }
    ctx.session = session;
    return next();
  };
}
