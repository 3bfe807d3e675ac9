// CORS for the configured origins (docs/service-rules.md#authentication), and for the exact origins of a
// live browser-access grant on that run's live view. Returns true when it answered a preflight.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CorsState } from "../state/emulator-state.js";

export function cors(st: CorsState, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  const allowed =
    typeof origin === "string" &&
    (st.cfg.corsOrigins.includes(origin) || grantPreflight(st, req, origin));
  if (allowed) {
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Expose-Headers", "Retry-After, X-Should-Retry, X-Request-Id");
  }
  if (req.method === "OPTIONS") {
    if (allowed) {
      // docs/service-rules.md#authentication: preflights from permitted origins allow Idempotency-Key.
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key");
      res.setHeader("Access-Control-Max-Age", "600");
    }
    res.writeHead(204, { "Content-Length": "0" });
    res.end();
    return true;
  }
  return false;
}

/**
 * A preflight for the live view from an origin a live grant of that run names (a preflight
 * carries no token, so the origin is all there is to check; the GET itself checks the grant).
 */
function grantPreflight(st: CorsState, req: IncomingMessage, origin: string): boolean {
  if (req.method !== "OPTIONS") return false;
  const m = /^\/([^/?]+)\/portal\/runs\/([^/?]+)\/live(?:\?|$)/.exec(req.url ?? "");
  if (!m) return false;
  try {
    return st.grants.permitsOrigin(
      decodeURIComponent(m[1] as string),
      decodeURIComponent(m[2] as string),
      origin,
      st.clock.now(),
    );
  } catch {
    return false; // a malformed escape names no run
  }
}
