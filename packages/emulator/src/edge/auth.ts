// Authentication of the public API (docs/service-rules.md#authentication): bearer keys, scopes, and keys never
// in a URL.

import type { IncomingMessage } from "node:http";
import { CODE, type Scope } from "@wfr/protocol";
import type { ApiKey } from "../access/credentials.js";
import { tokenHash } from "../access/credentials.js";
import { livePortalSession } from "../access/portal-sessions.js";
import { HttpError } from "../http/http-kit.js";
import type { AuthState, EnvView } from "../state/emulator-state.js";

const QUERY_KEY_PARAMS = ["api_key", "apikey", "key", "token", "access_token"];

export function authenticate(st: AuthState, req: IncomingMessage, env: EnvView): ApiKey {
  const h = req.headers.authorization;
  const m = typeof h === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  const hash = m?.[1] ? tokenHash(m[1]) : "";
  const key = st.keys.get(hash) ?? st.agents.apiKeyByHash(hash);
  if (!key || key.environment !== env.def.name) {
    throw new HttpError(
      401,
      CODE.UNAUTHENTICATED,
      st.agents.refusalMessage(m?.[1]) ??
        "a valid API key is required: Authorization: Bearer <API_KEY>",
      {},
      {
        "WWW-Authenticate": 'Bearer realm="wfr"',
      },
    );
  }
  return key;
}

export function requireScope(key: ApiKey, scope: Scope): void {
  // docs/service-rules.md#authentication: workflows:run for launch and human-input; runs:read for reads.
  if (!key.scopes.includes(scope)) {
    throw new HttpError(403, CODE.INSUFFICIENT_SCOPE, `this API key lacks the ${scope} scope`, {
      required_scope: scope,
    });
  }
}

/**
 * docs/service-rules.md#authentication: keys never in a URL. Refused on every route: a parameter named like
 * a key, or any parameter whose value is an API key (issued here or shaped like one).
 */
export function refuseKeyInQuery(st: Pick<AuthState, "keys">, params: URLSearchParams): void {
  for (const [name, value] of params) {
    if (
      QUERY_KEY_PARAMS.includes(name.toLowerCase()) ||
      value.startsWith("wfr_") ||
      st.keys.has(tokenHash(value))
    ) {
      throw new HttpError(
        400,
        CODE.API_KEY_IN_QUERY,
        "API keys are accepted only in the Authorization header, never in the URL",
      );
    }
  }
}

/**
 * docs/service-rules.md#authentication: a live view needs an authorized signed-in portal user; an API key
 * is not a portal session. Portal sessions exist only as cookies made by the admin API.
 */
export function portalSession(st: Pick<AuthState, "portalSessions">, req: IncomingMessage) {
  const m = /(?:^|;\s*)wfr_portal_session=([^;\s]+)/.exec(req.headers.cookie ?? "");
  return livePortalSession(st.portalSessions, m?.[1]);
}
