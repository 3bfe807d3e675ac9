// The person's step of a connector's sign-in, as the web application's consent page needs it:
// what to show for an authorization request, and where the browser goes after the person's
// decision (the connector's registered redirect URI, with the code, or with the error).
import { type OAuthAuthorizationServer, OAuthError } from "./authorization-server.js";

export type ConsentView =
  | { readonly ok: true; readonly clientName: string; readonly redirectUri: string }
  /** Refused: shown to the person, or, once the redirect URI is trusted, sent back to the client. */
  | { readonly ok: false; readonly message: string; readonly redirectTo?: string };

/** After the decision: the connector's redirect URI to send the browser to, or why not. */
export type DecisionOutcome = { readonly redirectTo: string } | { readonly refused: string };

export type ConsentDecision =
  | { readonly approve: true; readonly environment: string; readonly workspace: string }
  | { readonly approve: false };

/** The redirect URI with these parameters, and the issuer (RFC 9207: mix-up defence). */
function backToClient(
  redirectUri: string,
  issuer: string,
  state: string | null,
  params: Record<string, string>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer);
  return url.href;
}

function refused(error: unknown, params: URLSearchParams, issuer: string): ConsentView {
  if (!(error instanceof OAuthError)) throw error;
  // Checked after the client and its redirect URI: the client learns of it at its redirect URI.
  if ((error as OAuthError & { redirectable?: boolean }).redirectable)
    return {
      ok: false,
      message: error.description,
      redirectTo: backToClient(params.get("redirect_uri") ?? "", issuer, params.get("state"), {
        error: error.error,
        error_description: error.description,
      }),
    };
  return { ok: false, message: error.description };
}

export function consentFor(
  server: OAuthAuthorizationServer,
  params: URLSearchParams,
  issuer: string,
): ConsentView {
  try {
    const request = server.authorizationRequest(params);
    return { ok: true, clientName: request.client.client_name, redirectUri: request.redirect_uri };
  } catch (error) {
    return refused(error, params, issuer);
  }
}

/** Where the browser goes after the person's decision; the request is checked again. */
export function decide(
  server: OAuthAuthorizationServer,
  params: URLSearchParams,
  decision: ConsentDecision,
  issuer: string,
): DecisionOutcome {
  try {
    const request = server.authorizationRequest(params);
    const answer: Record<string, string> = decision.approve
      ? { code: server.approve(request, decision) }
      : { error: "access_denied", error_description: "the person declined" };
    return { redirectTo: backToClient(request.redirect_uri, issuer, request.state, answer) };
  } catch (error) {
    const view = refused(error, params, issuer);
    if (view.ok) throw new Error("unreachable");
    return view.redirectTo ? { redirectTo: view.redirectTo } : { refused: view.message };
  }
}
