// The emulator as the authorization server of its agent (MCP) endpoint, so that a client that
// adds the server as a custom connector can sign a person in (docs/service-rules.md#authentication
// 7) as the MCP authorization specification describes: OAuth 2.1 with PKCE (S256 only), dynamic
// client registration (RFC 7591) for public clients, tokens bound to the MCP endpoint as their
// audience (RFC 8707 `resource`), refresh tokens that rotate, and revocation (RFC 7009). The
// person consents in the web application for one environment and its workspace; the access
// token then works on `/mcp` like a personal access token of that person, and nowhere else.
//
// Tokens are credentials, so their time is the wall clock (as portal sessions'), never the
// emulator's virtual clock; only their SHA-256 is kept. Registered clients and grants are
// journalled like personal access tokens (hashes only, never a token), so a restart on the same
// journal keeps connectors signed in and revocations revoked. Authorization codes live a minute
// in memory only: a sign-in that a restart interrupts is started again by the person.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { OAuthClient, OAuthGrant, PersonalAccessToken } from "../../access/credentials.js";
import type { JournalRecord } from "../../journal/journal-records.js";

export type { OAuthClient, OAuthGrant };

/** How long each credential lives, and how many of each are kept. */
export const OAUTH_LIMITS = {
  authorizationCodeMs: 60_000,
  accessTokenMs: 60 * 60_000,
  refreshTokenMs: 30 * 24 * 60 * 60_000,
  /** Registered clients; registering one more forgets the oldest. */
  clients: 1_000,
  /** Live grants (a person's sign-in of one client); one more revokes the oldest. */
  grants: 10_000,
  redirectUris: 10,
  clientNameCharacters: 200,
  /** Rotated refresh tokens remembered per grant: one of these presented again revokes the grant. */
  rotatedRefreshTokens: 16,
} as const;

export const OAUTH_SCOPE = "mcp";

/** Access and refresh tokens start like API keys (`wfr_`): the "no key in a URL" guard refuses them too. */
const ACCESS_PREFIX = "wfr_oat_";
const REFRESH_PREFIX = "wfr_ort_";

interface PendingCode {
  readonly client_id: string;
  readonly redirect_uri: string;
  readonly code_challenge: string;
  readonly resource: string;
  readonly environment: string;
  readonly workspace: string;
  readonly expiresAt: number;
}

/** An OAuth error answer (RFC 6749 5.2, RFC 7591 3.2.2): `error` and a description. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

/** A validated authorization request: what the consent page shows and the approval needs. */
export interface AuthorizationRequest {
  readonly client: OAuthClient;
  readonly redirect_uri: string;
  readonly state: string | null;
  readonly code_challenge: string;
  readonly resource: string;
}

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const token = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/** https anywhere, or http on a loopback host (a native client's own listener, RFC 8252 7.3). */
export function acceptableRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash !== "" || url.username !== "" || url.password !== "") return false;
  if (url.protocol === "https:") return true;
  return (
    url.protocol === "http:" &&
    (url.hostname === "127.0.0.1" || url.hostname === "[::1]" || url.hostname === "localhost")
  );
}

/** PKCE (RFC 7636 4.6): BASE64URL(SHA256(verifier)) equals the challenge. */
export function pkceHolds(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  const given = Buffer.from(challenge);
  return computed.length === given.length && timingSafeEqual(computed, given);
}

export class OAuthAuthorizationServer {
  private readonly clients = new Map<string, OAuthClient>();
  private readonly codes = new Map<string, PendingCode>();
  private readonly grants = new Map<string, OAuthGrant>();
  private readonly byAccess = new Map<string, OAuthGrant>();
  private readonly byRefresh = new Map<string, OAuthGrant>();
  /** Refresh tokens already rotated away: presenting one again revokes its grant (OAuth 2.1 4.3.1). */
  private readonly rotated = new Map<string, string>();

  /**
   * `resource`: the MCP endpoint's URL, the only audience of the tokens; `record` persists a
   * change (the emulator's journal); `now` is the wall clock.
   */
  constructor(
    private readonly resource: () => string,
    private readonly record: (rec: JournalRecord) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** RFC 7591: a public client (no secret) with its redirect URIs. */
  register(metadata: unknown): OAuthClient {
    const m = (typeof metadata === "object" && metadata !== null ? metadata : {}) as Record<
      string,
      unknown
    >;
    const uris = m.redirect_uris;
    if (
      !Array.isArray(uris) ||
      uris.length === 0 ||
      uris.length > OAUTH_LIMITS.redirectUris ||
      !uris.every((u) => typeof u === "string" && acceptableRedirectUri(u))
    )
      throw new OAuthError(
        "invalid_redirect_uri",
        `redirect_uris must be 1 to ${OAUTH_LIMITS.redirectUris} https URLs, or http URLs on a loopback host, without a fragment`,
      );
    const method = m.token_endpoint_auth_method ?? "none";
    if (method !== "none")
      throw new OAuthError(
        "invalid_client_metadata",
        "only public clients are registered here: token_endpoint_auth_method must be none",
      );
    const grantTypes = m.grant_types ?? ["authorization_code", "refresh_token"];
    if (
      !Array.isArray(grantTypes) ||
      !grantTypes.every((g) => g === "authorization_code" || g === "refresh_token")
    )
      throw new OAuthError(
        "invalid_client_metadata",
        "grant_types may be authorization_code and refresh_token",
      );
    const name = typeof m.client_name === "string" ? m.client_name : "an MCP client";
    const client: OAuthClient = {
      // Not `wfr_`: a client id travels in the authorization URL, where a `wfr_` value is refused as a key.
      client_id: `client_${randomBytes(12).toString("base64url")}`,
      client_id_issued_at: Math.floor(this.now() / 1000),
      client_name: [...name].slice(0, OAUTH_LIMITS.clientNameCharacters).join(""),
      redirect_uris: [...(uris as string[])],
      grant_types: [...(grantTypes as string[])],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
    this.commit({ t: "oauth_client", client });
    return client;
  }

  /**
   * The authorization request's parameters checked in the order RFC 6749 4.1.2.1 asks: a
   * request whose client or redirect URI cannot be trusted is refused here (never redirected);
   * any other fault is an error to send back to the redirect URI (`redirectError`).
   */
  authorizationRequest(params: URLSearchParams): AuthorizationRequest {
    const client = this.clients.get(params.get("client_id") ?? "");
    if (!client)
      throw new OAuthError("invalid_client", "unknown client_id: register the client first");
    const redirectUri = params.get("redirect_uri") ?? "";
    if (!client.redirect_uris.includes(redirectUri))
      throw new OAuthError("invalid_request", "redirect_uri is not one the client registered");
    return { client, redirect_uri: redirectUri, ...this.checkedParameters(params) };
  }

  private checkedParameters(params: URLSearchParams) {
    const state = params.get("state");
    const fail = (error: string, description: string) => {
      throw Object.assign(new OAuthError(error, description), { redirectable: true, state });
    };
    if (params.get("response_type") !== "code")
      fail("unsupported_response_type", "response_type must be code");
    const challenge = params.get("code_challenge") ?? "";
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge) || params.get("code_challenge_method") !== "S256")
      fail("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256");
    const resource = params.get("resource") ?? this.resource();
    if (resource !== this.resource())
      fail("invalid_target", `resource must be this server's MCP endpoint, ${this.resource()}`);
    const scope = params.get("scope");
    if (scope?.split(" ").some((s) => s !== "" && s !== OAUTH_SCOPE))
      fail("invalid_scope", `the only scope is ${OAUTH_SCOPE}`);
    return { state, code_challenge: challenge, resource };
  }

  /** The person approved: a one-time code for the redirect URI. */
  approve(
    request: AuthorizationRequest,
    person: { environment: string; workspace: string },
  ): string {
    const code = randomBytes(32).toString("base64url");
    this.codes.set(sha256(code), {
      client_id: request.client.client_id,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      resource: request.resource,
      environment: person.environment,
      workspace: person.workspace,
      expiresAt: this.now() + OAUTH_LIMITS.authorizationCodeMs,
    });
    return code;
  }

  /** The token endpoint (RFC 6749 3.2): the answer's JSON body, or an OAuthError. */
  token(form: URLSearchParams): Record<string, unknown> {
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code") return this.exchangeCode(form);
    if (grantType === "refresh_token") return this.refresh(form);
    throw new OAuthError(
      "unsupported_grant_type",
      "grant_type must be authorization_code or refresh_token",
    );
  }

  private exchangeCode(form: URLSearchParams): Record<string, unknown> {
    const hash = sha256(form.get("code") ?? "");
    const pending = this.codes.get(hash);
    // One use only, whatever the outcome.
    this.codes.delete(hash);
    if (!pending || pending.expiresAt <= this.now())
      throw new OAuthError("invalid_grant", "the authorization code is unknown, used or expired");
    if (form.get("client_id") !== pending.client_id)
      throw new OAuthError("invalid_grant", "the code was issued to another client");
    if (form.get("redirect_uri") !== pending.redirect_uri)
      throw new OAuthError(
        "invalid_grant",
        "redirect_uri differs from the authorization request's",
      );
    if (!pkceHolds(form.get("code_verifier") ?? "", pending.code_challenge))
      throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
    const resource = form.get("resource");
    if (resource !== null && resource !== pending.resource)
      throw new OAuthError("invalid_target", "resource differs from the authorization request's");
    if (this.grants.size >= OAUTH_LIMITS.grants) {
      const oldest = this.grants.values().next().value;
      if (oldest) this.commit({ t: "oauth_grant_revoked", id: oldest.id });
    }
    return this.issue({
      id: `oauth_${randomBytes(8).toString("hex")}`,
      client_id: pending.client_id,
      environment: pending.environment,
      workspace: pending.workspace,
      resource: pending.resource,
      created_at: new Date(this.now()).toISOString(),
      rotatedHashes: [],
    });
  }

  private refresh(form: URLSearchParams): Record<string, unknown> {
    const hash = sha256(form.get("refresh_token") ?? "");
    const reused = this.rotated.get(hash);
    if (reused !== undefined) {
      // A rotated refresh token came back: it may have been stolen; the whole grant ends.
      if (this.grants.has(reused)) this.commit({ t: "oauth_grant_revoked", id: reused });
      throw new OAuthError("invalid_grant", "the refresh token was already used; sign in again");
    }
    const grant = this.byRefresh.get(hash);
    if (!grant || grant.refreshExpiresAt <= this.now())
      throw new OAuthError("invalid_grant", "the refresh token is unknown, revoked or expired");
    if (form.get("client_id") !== grant.client_id)
      throw new OAuthError("invalid_grant", "the refresh token was issued to another client");
    const resource = form.get("resource");
    if (resource !== null && resource !== grant.resource)
      throw new OAuthError("invalid_target", "resource differs from the grant's");
    const {
      accessHash: _a,
      accessExpiresAt: _e,
      refreshHash: _r,
      refreshExpiresAt: _x,
      ...kept
    } = grant;
    return this.issue({
      ...kept,
      rotatedHashes: [...grant.rotatedHashes, hash].slice(-OAUTH_LIMITS.rotatedRefreshTokens),
    });
  }

  /** New access and refresh tokens for the grant (journalled); the previous ones stop working. */
  private issue(
    grant: Omit<OAuthGrant, "accessHash" | "accessExpiresAt" | "refreshHash" | "refreshExpiresAt">,
  ): Record<string, unknown> {
    const access = token(ACCESS_PREFIX);
    const refresh = token(REFRESH_PREFIX);
    this.commit({
      t: "oauth_grant",
      grant: {
        ...grant,
        accessHash: sha256(access),
        accessExpiresAt: this.now() + OAUTH_LIMITS.accessTokenMs,
        refreshHash: sha256(refresh),
        refreshExpiresAt: this.now() + OAUTH_LIMITS.refreshTokenMs,
      },
    });
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: OAUTH_LIMITS.accessTokenMs / 1000,
      refresh_token: refresh,
      scope: OAUTH_SCOPE,
    };
  }

  /** RFC 7009: an access or refresh token ends its whole grant; an unknown one changes nothing. */
  revoke(tokenValue: string): void {
    const hash = sha256(tokenValue);
    const grant = this.byAccess.get(hash) ?? this.byRefresh.get(hash);
    if (grant) this.commit({ t: "oauth_grant_revoked", id: grant.id });
  }

  // ---------- persistence ----------

  /** Journal the change, then make it with `apply`, the function replay uses. */
  private commit(rec: JournalRecord): void {
    this.record(rec);
    this.apply(rec);
  }

  /** Make the change an OAuth record describes (live, and on replay); false for other records. */
  apply(rec: JournalRecord): boolean {
    switch (rec.t) {
      case "oauth_client":
        if (this.clients.size >= OAUTH_LIMITS.clients && !this.clients.has(rec.client.client_id)) {
          const oldest = this.clients.keys().next().value;
          if (oldest !== undefined) this.clients.delete(oldest);
        }
        this.clients.set(rec.client.client_id, rec.client);
        return true;
      case "oauth_grant":
        this.forgetGrant(rec.grant.id);
        this.grants.set(rec.grant.id, rec.grant);
        this.byAccess.set(rec.grant.accessHash, rec.grant);
        this.byRefresh.set(rec.grant.refreshHash, rec.grant);
        for (const hash of rec.grant.rotatedHashes) this.rotated.set(hash, rec.grant.id);
        return true;
      case "oauth_grant_revoked":
        this.forgetGrant(rec.id);
        return true;
      default:
        return false;
    }
  }

  private forgetGrant(id: string): void {
    const grant = this.grants.get(id);
    if (!grant) return;
    this.grants.delete(id);
    this.byAccess.delete(grant.accessHash);
    this.byRefresh.delete(grant.refreshHash);
    for (const hash of grant.rotatedHashes) this.rotated.delete(hash);
  }

  /** The records that rebuild the clients and live grants (journal compaction). */
  *snapshot(): Generator<JournalRecord> {
    for (const client of this.clients.values()) yield { t: "oauth_client", client };
    const now = this.now();
    for (const grant of this.grants.values())
      if (grant.refreshExpiresAt > now) yield { t: "oauth_grant", grant };
  }

  get size(): number {
    return this.clients.size + this.grants.size;
  }

  /** The person an unexpired access token stands for, as /mcp knows a personal access token. */
  verify(accessToken: string): PersonalAccessToken | undefined {
    const grant = this.byAccess.get(sha256(accessToken));
    if (!grant || grant.accessExpiresAt <= this.now() || grant.resource !== this.resource())
      return undefined;
    return {
      id: grant.id,
      token_sha256: grant.accessHash,
      environment: grant.environment,
      workspace: grant.workspace,
      created_at: grant.created_at,
    };
  }

  /** Whether the grant behind a person's id still stands (not revoked). */
  isLive(grantId: string): boolean {
    return this.grants.has(grantId);
  }

  /** Whether a bearer token is an access token of this server (live or not). */
  looksLikeAccessToken(value: string): boolean {
    return value.startsWith(ACCESS_PREFIX);
  }
}

/** RFC 8414: what a client discovers at `/.well-known/oauth-authorization-server`. */
export function authorizationServerMetadata(origin: string): Record<string, unknown> {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/_app/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    registration_endpoint: `${origin}/oauth/register`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [OAUTH_SCOPE],
  };
}

/** RFC 9728: what a client discovers about the MCP endpoint (the protected resource). */
export function protectedResourceMetadata(origin: string): Record<string, unknown> {
  return {
    resource: `${origin}/mcp`,
    authorization_servers: [origin],
    scopes_supported: [OAUTH_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "Workflow Run emulator: agent (MCP) endpoint",
  };
}
