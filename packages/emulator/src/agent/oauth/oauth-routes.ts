// The authorization server's HTTP answers (authorization-server.ts holds the rules): discovery,
// registration, the token endpoint and revocation. OAuth errors are OAuth's own JSON
// (`{error, error_description}`, RFC 6749 5.2), not the API's error body: OAuth clients read those
// fields. The consent step is a page of the web application (the person's session is there).
import type { ServerResponse } from "node:http";
import { HttpError, parseJsonBody, sendJson } from "../../http/http-kit.js";
import {
  authorizationServerMetadata,
  type OAuthAuthorizationServer,
  OAuthError,
  protectedResourceMetadata,
} from "./authorization-server.js";

/** Bodies of the registration, token and revocation endpoints: small, the emulator's choice. */
export const OAUTH_BODY_LIMIT = 65_536;

/** Discovery documents may be read by a browser-based client of any origin. */
const DISCOVERY_HEADERS = { "Access-Control-Allow-Origin": "*" };

function oauthFailure(res: ServerResponse, error: unknown): void {
  if (!(error instanceof OAuthError)) throw error;
  sendJson(res, error.status, { error: error.error, error_description: error.description });
}

/** The form body of a token or revocation request (RFC 6749 4.1.3: form-encoded). */
function formOf(contentType: string | undefined, body: Buffer | undefined): URLSearchParams {
  if (
    (contentType ?? "").split(";")[0]?.trim().toLowerCase() !== "application/x-www-form-urlencoded"
  )
    throw new OAuthError(
      "invalid_request",
      "send the parameters as application/x-www-form-urlencoded",
    );
  return new URLSearchParams((body ?? Buffer.alloc(0)).toString("utf8"));
}

export function sendProtectedResourceMetadata(res: ServerResponse, origin: string): void {
  sendJson(res, 200, protectedResourceMetadata(origin), DISCOVERY_HEADERS);
}

export function sendAuthorizationServerMetadata(res: ServerResponse, origin: string): void {
  sendJson(res, 200, authorizationServerMetadata(origin), DISCOVERY_HEADERS);
}

/** POST /oauth/register (RFC 7591): 201 with the client's registration. */
export function registerClient(
  server: OAuthAuthorizationServer,
  res: ServerResponse,
  body: Buffer | undefined,
): void {
  let metadata: unknown;
  try {
    metadata = parseJsonBody(body ?? Buffer.alloc(0));
  } catch (error) {
    if (error instanceof HttpError) {
      oauthFailure(res, new OAuthError("invalid_client_metadata", error.message));
      return;
    }
    throw error;
  }
  try {
    sendJson(res, 201, server.register(metadata));
  } catch (error) {
    oauthFailure(res, error);
  }
}

/** POST /oauth/token: tokens, or an OAuth error (never cached: sendJson says no-store). */
export function tokenEndpoint(
  server: OAuthAuthorizationServer,
  res: ServerResponse,
  contentType: string | undefined,
  body: Buffer | undefined,
): void {
  try {
    sendJson(res, 200, server.token(formOf(contentType, body)), { Pragma: "no-cache" });
  } catch (error) {
    oauthFailure(res, error);
  }
}

/** POST /oauth/revoke (RFC 7009 2.2): 200 whether or not the token was known. */
export function revocationEndpoint(
  server: OAuthAuthorizationServer,
  res: ServerResponse,
  contentType: string | undefined,
  body: Buffer | undefined,
): void {
  try {
    const form = formOf(contentType, body);
    const token = form.get("token");
    if (!token) throw new OAuthError("invalid_request", "token is required");
    server.revoke(token);
    res.writeHead(200, { "Content-Length": "0", "Cache-Control": "no-store" });
    res.end();
  } catch (error) {
    oauthFailure(res, error);
  }
}
