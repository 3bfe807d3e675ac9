// The portal's live view of a run: GET /{env}/portal/runs/{runId}/live. docs/service-rules.md#authentication:
// only for a signed-in portal user; an API key is not a portal session. Or for a browser
// presenting a browser-access grant of that run, from one of the grant's exact origins
// (browser-access-grants.ts). Both are checked by the `portalUser` middleware (middleware.ts)
// before `liveView` runs.

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE } from "@wfr/protocol";
import { GRANT_TOKEN_PREFIX, GrantError } from "../access/browser-access-grants.js";
import { HttpError } from "../http/http-kit.js";
import { LIVE_VIEW_HEADERS } from "../http/page-headers.js";
import type { EnvView, LiveViewState, PortalSession } from "../state/emulator-state.js";

/**
 * The session a browser-access grant in the Authorization header stands for (never one in the
 * URL), with the CORS headers for its origin; undefined when the request presents no grant.
 */
export function grantSession(
  st: Pick<LiveViewState, "clock" | "grants">,
  req: IncomingMessage,
  res: ServerResponse,
  env: EnvView,
  runId: string,
): PortalSession | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
  if (!bearer?.startsWith(GRANT_TOKEN_PREFIX)) return undefined;
  const origin = req.headers.origin;
  try {
    const g = st.grants.authorize(bearer, origin, env.def.name, runId, st.clock.now());
    res.setHeader("Access-Control-Allow-Origin", origin as string);
    res.setHeader("Vary", "Origin");
    return { environment: g.environment, workspace: g.workspace };
  } catch (e) {
    if (e instanceof GrantError) throw new HttpError(e.status, e.code, e.message);
    throw e;
  }
}

/** The page, for `session` (a portal user of `env`, or a grant of this run). */
export function liveView(
  st: Pick<LiveViewState, "engine">,
  res: ServerResponse,
  env: EnvView,
  session: PortalSession,
  runId: string,
): void {
  const run = st.engine.find(runId);
  if (
    !run ||
    run.environment !== env.def.name ||
    (run.workspace !== session.workspace && !session.everywhere)
  ) {
    throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
  }
  st.engine.process(run);
  const esc = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><meta charset="utf-8"><title>Live view ${esc(run.run_id)}</title><h1>Run ${esc(run.run_id)}</h1><p>Workflow ${esc(run.workflow_id)}: <strong>${esc(run.status)}</strong></p><p>Session ${esc(run.session_id ?? "not started")}</p>`;
  res.writeHead(200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(html),
    ...LIVE_VIEW_HEADERS,
  });
  res.end(html);
}
