// The authorization server's rules, with a clock of the test's: PKCE, exact redirect URIs,
// audience, single-use codes, expiry, refresh rotation and the reuse of a rotated refresh token.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  acceptableRedirectUri,
  OAUTH_LIMITS,
  OAuthAuthorizationServer,
  OAuthError,
  pkceHolds,
} from "../../../src/agent/oauth/authorization-server.js";
import type { JournalRecord } from "../../../src/journal/journal-records.js";

const RESOURCE = "http://127.0.0.1:4000/mcp";
const REDIRECT = "http://127.0.0.1:5000/cb";
const VERIFIER = "v".repeat(43);
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");

function setUp() {
  let now = 1_000_000;
  const journal: JournalRecord[] = [];
  const server = new OAuthAuthorizationServer(
    () => RESOURCE,
    (rec) => journal.push(structuredClone(rec)),
    () => now,
  );
  const client = server.register({ redirect_uris: [REDIRECT], client_name: "t" });
  const params = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      state: "s1",
      resource: RESOURCE,
      ...extra,
    });
  const code = () =>
    server.approve(server.authorizationRequest(params()), {
      environment: "production",
      workspace: "ws_1",
    });
  const exchange = (c: string, extra: Record<string, string> = {}) =>
    server.token(
      new URLSearchParams({
        grant_type: "authorization_code",
        code: c,
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_verifier: VERIFIER,
        ...extra,
      }),
    );
  /** A server rebuilt from the journal, as the emulator's replay does after a restart. */
  const replayed = () => {
    const again = new OAuthAuthorizationServer(
      () => RESOURCE,
      () => undefined,
      () => now,
    );
    for (const rec of journal) expect(again.apply(rec)).toBe(true);
    return again;
  };
  return {
    server,
    client,
    params,
    code,
    exchange,
    journal,
    replayed,
    advance: (ms: number) => (now += ms),
  };
}

const oauthError = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    if (error instanceof OAuthError) return error.error;
    throw error;
  }
  return "none";
};

describe("the authorization server", () => {
  it("registers public clients with https or loopback redirect URIs only", () => {
    expect(acceptableRedirectUri("https://agent.example/cb")).toBe(true);
    expect(acceptableRedirectUri("http://localhost:1234/cb")).toBe(true);
    expect(acceptableRedirectUri("http://agent.example/cb")).toBe(false);
    expect(acceptableRedirectUri("https://agent.example/cb#x")).toBe(false);
    const { server } = setUp();
    expect(oauthError(() => server.register({ redirect_uris: ["http://evil.example/"] }))).toBe(
      "invalid_redirect_uri",
    );
    expect(
      oauthError(() =>
        server.register({
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: "client_secret_basic",
        }),
      ),
    ).toBe("invalid_client_metadata");
  });

  it("refuses a request with another redirect URI, no PKCE, or another audience", () => {
    const { server, params } = setUp();
    expect(
      oauthError(() =>
        server.authorizationRequest(params({ redirect_uri: "http://127.0.0.1:5000/other" })),
      ),
    ).toBe("invalid_request");
    expect(
      oauthError(() => server.authorizationRequest(params({ code_challenge_method: "plain" }))),
    ).toBe("invalid_request");
    expect(
      oauthError(() =>
        server.authorizationRequest(params({ resource: "http://127.0.0.1:4000/other" })),
      ),
    ).toBe("invalid_target");
    expect(oauthError(() => server.authorizationRequest(params({ scope: "admin" })))).toBe(
      "invalid_scope",
    );
  });

  it("a code is single-use, bound to its verifier and expires after a minute", () => {
    const { server, code, exchange, advance } = setUp();
    expect(oauthError(() => exchange(code(), { code_verifier: "w".repeat(43) }))).toBe(
      "invalid_grant",
    );
    const once = code();
    const tokens = exchange(once) as { access_token: string };
    expect(server.verify(tokens.access_token)).toMatchObject({
      environment: "production",
      workspace: "ws_1",
    });
    expect(oauthError(() => exchange(once))).toBe("invalid_grant");
    const late = code();
    advance(OAUTH_LIMITS.authorizationCodeMs);
    expect(oauthError(() => exchange(late))).toBe("invalid_grant");
  });

  it("access tokens expire; refresh rotates; a rotated refresh token presented again ends the grant", () => {
    const { server, client, code, exchange, advance } = setUp();
    const first = exchange(code()) as { access_token: string; refresh_token: string };
    const refresh = (token: string) =>
      server.token(
        new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: client.client_id,
        }),
      ) as { access_token: string; refresh_token: string };
    advance(OAUTH_LIMITS.accessTokenMs);
    expect(server.verify(first.access_token)).toBeUndefined();
    const second = refresh(first.refresh_token);
    const person = server.verify(second.access_token);
    expect(person).toBeDefined();
    expect(oauthError(() => refresh(first.refresh_token))).toBe("invalid_grant");
    // The reuse ended the grant: the current tokens stop too.
    expect(server.verify(second.access_token)).toBeUndefined();
    expect(server.isLive(person?.id ?? "")).toBe(false);
    expect(oauthError(() => refresh(second.refresh_token))).toBe("invalid_grant");
  });

  it("the journal rebuilds clients and grants, holds no token, and keeps revocations and reuse detection", () => {
    const { server, client, code, exchange, journal, replayed } = setUp();
    const refresh = (on: OAuthAuthorizationServer, token: string) =>
      on.token(
        new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: client.client_id,
        }),
      ) as { access_token: string; refresh_token: string };
    const kept = exchange(code()) as { access_token: string; refresh_token: string };
    const rotated = refresh(server, kept.refresh_token);
    const revoked = exchange(code()) as { access_token: string; refresh_token: string };
    server.revoke(revoked.access_token);
    const written = JSON.stringify(journal);
    for (const t of [kept, rotated, revoked])
      for (const secret of [t.access_token, t.refresh_token]) expect(written).not.toContain(secret);
    expect(journal.map((r) => r.t)).toEqual([
      "oauth_client",
      "oauth_grant",
      "oauth_grant",
      "oauth_grant",
      "oauth_grant_revoked",
    ]);

    const after = replayed();
    expect(
      after.authorizationRequest(
        new URLSearchParams({
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          response_type: "code",
          code_challenge: CHALLENGE,
          code_challenge_method: "S256",
        }),
      ).client.client_name,
    ).toBe("t");
    expect(after.verify(rotated.access_token)?.workspace).toBe("ws_1");
    expect(after.verify(kept.access_token)).toBeUndefined();
    expect(after.verify(revoked.access_token)).toBeUndefined();
    expect(oauthError(() => refresh(after, revoked.refresh_token))).toBe("invalid_grant");
    const third = refresh(after, rotated.refresh_token);
    expect(after.verify(third.access_token)).toBeDefined();
    // The first refresh token, rotated away before the restart, still ends the grant when reused.
    expect(oauthError(() => refresh(after, kept.refresh_token))).toBe("invalid_grant");
    expect(after.verify(third.access_token)).toBeUndefined();
    // Compaction writes only what still stands: the client, and no grant (all ended).
    expect([...after.snapshot()].map((r) => r.t)).toEqual(["oauth_client"]);
  });

  it("PKCE: the S256 of the verifier, nothing else", () => {
    expect(pkceHolds(VERIFIER, CHALLENGE)).toBe(true);
    expect(pkceHolds("short", CHALLENGE)).toBe(false);
    expect(pkceHolds(VERIFIER, VERIFIER)).toBe(false);
  });
});
