// The portal's live view of a run: GET /{env}/portal/runs/{runId}/live. docs/service-rules.md#authentication:
// only for a signed-in portal user (auth.ts portalSession); an API key is not a portal session.
// docs/service-rules.md#authentication: or for a browser presenting a browser-access grant of that run, from
// one of the grant's exact origins (browser-access-grants.ts).

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE } from "@wfr/protocol";
import { portalSession } from "./auth.js";
import { GRANT_TOKEN_PREFIX, GrantError } from "./browser-access-grants.js";
import type { EnvState, LiveViewState } from "./emulator-state.js";
import { HttpError } from "./http-kit.js";

export function liveView(
  st: LiveViewState,
  req: IncomingMessage,
  res: ServerResponse,
  env: EnvState,
  runId: string,
): void {
  let session = portalSession(st, req);
  // The grant comes in the Authorization header only, never in the URL.
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
  if (!session && bearer?.startsWith(GRANT_TOKEN_PREFIX)) {
    const origin = req.headers.origin;
    try {
      const g = st.grants.authorize(bearer, origin, env.def.name, runId, st.clock.now());
      session = { environment: g.environment, workspace: g.workspace };
    } catch (e) {
      if (e instanceof GrantError) throw new HttpError(e.status, e.code, e.message);
      throw e;
    }
    res.setHeader("Access-Control-Allow-Origin", origin as string);
    res.setHeader("Vary", "Origin");
  }
  if (!session || (session.environment !== env.def.name && !session.everywhere)) {
    throw new HttpError(
      401,
      CODE.PORTAL_SESSION_REQUIRED,
      "the live view opens only for a signed-in portal user; an API key is not a portal session",
    );
  }
  const run = st.engine.runs.get(runId);
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
    "Cache-Control": "no-store",
  });
  res.end(html);
}
