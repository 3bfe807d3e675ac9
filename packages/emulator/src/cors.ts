// CORS for the configured origins (spec "Authentication" 8). Returns true when it answered a
// preflight.
import type { IncomingMessage, ServerResponse } from "node:http";

export function cors(
  req: IncomingMessage,
  res: ServerResponse,
  corsOrigins: readonly string[],
): boolean {
  const origin = req.headers.origin;
  const allowed = typeof origin === "string" && corsOrigins.includes(origin);
  if (allowed) {
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Expose-Headers", "Retry-After, X-Should-Retry, X-Request-Id");
  }
  if (req.method === "OPTIONS") {
    if (allowed) {
      // Spec "Authentication" 8: preflights from permitted origins allow Idempotency-Key.
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key");
      res.setHeader("Access-Control-Max-Age", "600");
    }
    res.writeHead(204, { "Content-Length": "0" });
    res.end();
    return true;
  }
  return false;
}
