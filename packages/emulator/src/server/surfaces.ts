// Who handles what: the edge middleware, then one route table of surfaces, each mounted under
// its prefix with its own table or handler (the README's "Route table" is generated from these
// rows: `routeTables()`). The web application (web-app/web-app.ts), the admin API
// (admin-routes.ts) and the public API (api-routes.ts) each keep their own table.

import type { IncomingMessage, ServerResponse } from "node:http";
import { yamlLibrary } from "@wfr/definition-reader";
import { CODE, DEFINITION_FILE } from "@wfr/protocol";
import type { PersonalAccessToken } from "../access/credentials.js";
import { ADMIN_LIMIT, adminRows, handleAdmin } from "../admin/admin-routes.js";
import {
  OAUTH_BODY_LIMIT,
  registerClient,
  revocationEndpoint,
  sendAuthorizationServerMetadata,
  sendProtectedResourceMetadata,
  tokenEndpoint,
} from "../agent/oauth/oauth-routes.js";
import type { ApiHandler } from "../api/api-handlers.js";
import { API_ROUTES } from "../api/api-routes.js";
import { BODY_LIMIT } from "../api/launch-body.js";
import { emitDefinition } from "../definition/definition-emit.js";
import { liveView } from "../edge/live-view.js";
import {
  type ApiFaultFiring,
  adminGuard,
  apiFaults,
  apiKey,
  type BodyContext,
  bodyWithin,
  corsHeaders,
  type EnvContext,
  hostCheck,
  type McpContext,
  mcpBodyWithin,
  mcpCaller,
  noKeyInQuery,
  type PortalContext,
  portalUser,
  requestIdAndLog,
  sameSite,
} from "../edge/middleware.js";
import { markerBytes } from "../engine/file-markers.js";
import { attachmentDisposition, failResponse, HttpError, sendJson } from "../http/http-kit.js";
import {
  compose,
  type Handler,
  honoPath,
  type Middleware,
  type RequestContext,
  type RouteRow,
  RouteTable,
  requestContext,
} from "../http/router.js";
import type {
  ApiState,
  AuthState,
  CorsState,
  EmulatorState,
  EngineView,
  EnvironmentsView,
  PortalSession,
  ServerConfig,
} from "../state/emulator-state.js";
import type { WebAppHost } from "../web-app/host.js";
import { handleWebApp, webAppRows } from "../web-app/web-app.js";
import { fileBytes, scenarioFile } from "./engine-hooks.js";

/** What the surfaces need besides the shared state. */
export interface SurfaceHost extends EmulatorState {
  readonly webApp: WebAppHost;
  /** Host names a request may carry (request-guard.ts). */
  hostNames(): ReadonlySet<string>;
}

const notFound = (): HttpError => new HttpError(404, CODE.NOT_FOUND, "no such route");

const EMPTY = Buffer.alloc(0);

/** Bodies of the portal's actions (enable a draft): small JSON, the emulator's choice. */
export const PORTAL_LIMIT = 65_536;

/** The environment named by the first segment; 404 when there is none. */
function withEnv(st: EnvironmentsView, handler: Handler<EnvContext>): Handler {
  return (ctx) => {
    const env = st.envs.get(ctx.params.env as string);
    if (!env) throw notFound();
    return handler(Object.assign(ctx, { env }));
  };
}

/** What the public API's table uses: its handlers' view, and its middleware's (key, faults). */
export type ApiTableState = ApiState & AuthState & ApiFaultFiring;

/** The public API under /{env}/api/v1, in the order of docs/service-rules.md#endpoints. */
function apiTable(st: ApiTableState): RouteTable<EnvContext> {
  const table = new RouteTable<EnvContext>();
  for (const route of API_ROUTES) {
    const handler: ApiHandler = route.handler;
    table.add(
      route.method,
      honoPath(route.path),
      route.purpose,
      compose<EnvContext>(
        [
          apiKey(st, route),
          apiFaults(st),
          ...(route.bodyLimit === undefined ? [] : [bodyWithin<EnvContext>(route.bodyLimit)]),
        ],
        (ctx) =>
          handler({
            st,
            req: ctx.req,
            res: ctx.res,
            env: ctx.env,
            key: ctx.key as NonNullable<EnvContext["key"]>,
            param: Object.values(ctx.params)[0] as string,
            body: ctx.body ?? EMPTY,
            links: st.links(ctx.env.def.name),
          }),
      ),
    );
  }
  return table;
}

function definition(st: Pick<EmulatorState, "links">, ctx: EnvContext): void {
  const doc = emitDefinition(ctx.env.def, st.links(ctx.env.def.name).apiBase);
  const file = ctx.params.file;
  if (file === DEFINITION_FILE.json) {
    sendJson(ctx.res, 200, doc);
    return;
  }
  if (file === DEFINITION_FILE.yaml || file === DEFINITION_FILE.yml) {
    const text = yamlLibrary().stringify(doc, { aliasDuplicateObjects: false });
    ctx.res.writeHead(200, {
      "Content-Type": "application/yaml; charset=utf-8",
      "Content-Length": Buffer.byteLength(text),
    });
    ctx.res.end(text);
    return;
  }
  throw notFound();
}

/** The `expires_at` the run's outputs announce for the file at `link`, if any. */
function announcedExpiry(outputs: unknown, link: string): string | undefined {
  if (outputs === null || typeof outputs !== "object") return undefined;
  const o = outputs as Record<string, unknown>;
  if (o.download_url === link && typeof o.expires_at === "string") return o.expires_at;
  for (const value of Object.values(o)) {
    const found = announcedExpiry(value, link);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A synthesized file output, only at a link the run's outputs hold, until the `expires_at` they
 * announce for it; sent as an attachment that no browser sniffs into something else.
 */
function files(
  st: Pick<EmulatorState, "links" | "clock"> & { readonly engine: EngineView },
  ctx: EnvContext,
): void {
  const { runId = "", n = "", filename = "" } = ctx.params;
  const run = st.engine.find(runId);
  const link = `${st.links(ctx.env.def.name).envBase}/_files/${encodeURIComponent(runId)}/${n}/${filename}`;
  if (
    !run ||
    run.environment !== ctx.env.def.name ||
    !JSON.stringify(run.outputs ?? {}).includes(JSON.stringify(link))
  )
    throw notFound();
  const expiresAt = announcedExpiry(run.outputs, link);
  if (expiresAt !== undefined && Date.parse(expiresAt) <= st.clock.now())
    throw new HttpError(404, CODE.NOT_FOUND, `this file link expired at ${expiresAt}`);
  const given = scenarioFile(run, Number(n), filename);
  const bytes = given ? markerBytes(given) : fileBytes(run.run_id, Number(n), filename);
  ctx.res.writeHead(200, {
    "Content-Type": given?.mime_type ?? "application/pdf",
    "Content-Length": bytes.length,
    "Content-Disposition": attachmentDisposition(filename),
    "X-Content-Type-Options": "nosniff",
  });
  ctx.res.end(bytes);
}

/** The surfaces, by prefix. */
function surfaceTable(host: SurfaceHost): RouteTable {
  const api = apiTable(host);
  const webApp: Handler = (ctx) => handleWebApp(host.webApp, ctx);
  const admin = compose<BodyContext>([adminGuard(host), bodyWithin(ADMIN_LIMIT)], (ctx) =>
    handleAdmin(host, ctx),
  );
  // launch_run carries files as base64, so the launch body limit applies to it (and only to it);
  // read after the caller.
  const mcp = compose<McpContext>([mcpCaller(host.agents), mcpBodyWithin(BODY_LIMIT)], (ctx) =>
    host.agents.mcp(ctx.req, ctx.res, ctx.person as PersonalAccessToken, ctx.mcpBody),
  );
  return new RouteTable()
    .add("ALL", "/", "web application: run history", webApp)
    .add("ALL", "/_app", "web application", webApp)
    .add("ALL", "/_app/*", "web application: pages, forms, assets, sign-in (web-app.ts)", webApp)
    .add("ALL", "/mcp", "agent (MCP) endpoint (mcp-endpoint/endpoint.ts)", mcp)
    .add(
      "GET",
      "/.well-known/oauth-protected-resource",
      "the MCP endpoint's protected resource metadata (RFC 9728)",
      (ctx) => sendProtectedResourceMetadata(ctx.res, host.origin),
    )
    .add(
      "GET",
      "/.well-known/oauth-protected-resource/mcp",
      "the same, at the path RFC 9728 derives from /mcp",
      (ctx) => sendProtectedResourceMetadata(ctx.res, host.origin),
    )
    .add(
      "GET",
      "/.well-known/oauth-authorization-server",
      "authorization server metadata (RFC 8414; oauth/authorization-server.ts)",
      (ctx) => sendAuthorizationServerMetadata(ctx.res, host.origin),
    )
    .add(
      "POST",
      "/oauth/register",
      "dynamic client registration of a connector (RFC 7591)",
      compose<BodyContext>([bodyWithin(OAUTH_BODY_LIMIT)], (ctx) =>
        registerClient(host.agents.oauth, ctx.res, ctx.body),
      ),
    )
    .add(
      "POST",
      "/oauth/token",
      "the token endpoint: authorization code with PKCE, refresh (OAuth 2.1)",
      compose<BodyContext>([bodyWithin(OAUTH_BODY_LIMIT)], (ctx) =>
        tokenEndpoint(host.agents.oauth, ctx.res, ctx.req.headers["content-type"], ctx.body),
      ),
    )
    .add(
      "POST",
      "/oauth/revoke",
      "token revocation (RFC 7009): the grant ends",
      compose<BodyContext>([bodyWithin(OAUTH_BODY_LIMIT)], (ctx) =>
        revocationEndpoint(host.agents.oauth, ctx.res, ctx.req.headers["content-type"], ctx.body),
      ),
    )
    .add("ALL", "/_emulator", "admin API", admin)
    .add("ALL", "/_emulator/*", "admin API (admin-routes.ts)", admin)
    .add(
      "ALL",
      "/:env/api/v1/*",
      "public API (api-routes.ts)",
      withEnv(host, async (ctx) => {
        const sub = `/${ctx.path.split("/").slice(4).join("/")}`;
        if (!(await api.dispatch(ctx, sub))) throw notFound();
      }),
    )
    .add(
      "GET",
      "/:env/api-docs/:file",
      "the environment's definition, JSON or YAML",
      withEnv(host, (ctx) => definition(host, ctx)),
    )
    .add(
      "ALL",
      "/:env/portal/runs/:runId/live",
      "live view (portal session or browser-access grant)",
      withEnv(
        host,
        compose<PortalContext>([portalUser(host, { grant: true })], (ctx) =>
          liveView(
            host,
            ctx.res,
            ctx.env,
            ctx.session as PortalSession,
            ctx.params.runId as string,
          ),
        ),
      ),
    )
    .add(
      "POST",
      "/:env/portal/workflows/:workflowId/enable",
      "a person enables a draft (portal session)",
      withEnv(
        host,
        compose<PortalContext>(
          [sameSite(host), portalUser(host), bodyWithin(PORTAL_LIMIT)],
          (ctx) =>
            host.agents.enableRoute(
              ctx.res,
              ctx.env.def,
              ctx.session as PortalSession,
              ctx.params.workflowId as string,
            ),
        ),
      ),
    )
    .add(
      "GET",
      "/:env/portal/authoring/:sessionId/live",
      "live view of an agent's authoring session",
      withEnv(
        host,
        compose<PortalContext>([portalUser(host)], (ctx) =>
          host.agents.authoringLiveRoute(
            ctx.res,
            ctx.env.def,
            ctx.session as PortalSession,
            ctx.params.sessionId as string,
          ),
        ),
      ),
    )
    .add(
      "GET",
      "/:env/_files/:runId/:n/:filename",
      "synthesized file outputs",
      withEnv(host, (ctx) => files(host, ctx)),
    );
}

/** What the edge middleware reads: the log format, Host names, CORS origins and grants, keys. */
export type EdgeState = Pick<SurfaceHost, "hostNames"> &
  CorsState &
  Pick<AuthState, "keys"> & {
    readonly cfg: Pick<ServerConfig, "requestLog" | "corsOrigins">;
  };

/** The edge middleware, in order (the README's "Middleware order"). */
function edgeMiddleware(host: EdgeState): Middleware[] {
  return [
    requestIdAndLog(host.cfg.requestLog ?? "off"),
    hostCheck(() => host.hostNames()),
    corsHeaders(host),
    noKeyInQuery(host),
  ];
}

/** The request listener: context, edge middleware, the surface table; errors answered here. */
export function requestListener(
  host: SurfaceHost,
): (req: IncomingMessage, res: ServerResponse) => void {
  const surfaces = surfaceTable(host);
  const handle = compose(edgeMiddleware(host), async (ctx: RequestContext) => {
    if (!(await surfaces.dispatch(ctx))) throw notFound();
  });
  return (req, res) => {
    Promise.resolve()
      .then(() => handle(requestContext(req, res)))
      .catch((e) => failResponse(res, e));
  };
}

/** Every route table's rows, for the README and its test. */
export function routeTables(host: SurfaceHost): Record<string, readonly RouteRow[]> {
  return {
    surfaces: surfaceTable(host).rows,
    api: apiTable(host).rows,
    admin: adminRows(),
    "web application": webAppRows(),
  };
}
