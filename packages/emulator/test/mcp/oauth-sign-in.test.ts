// A connector signs a person in (docs/service-rules.md#authentication 7: "some MCP clients instead
// add the server as a custom connector and sign in"), driven by the official MCP SDK's own OAuth
// client: it discovers the protected resource and the authorization server from the 401's
// challenge, registers itself, sends the person to the consent page (played here by the person's
// browser requests: the sign-in link, the page, the form), exchanges the code with PKCE, and then
// uses the agent tools with the token it got. The token works on /mcp only; revoking it ends it.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  type OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { ConnectorStore, REDIRECT } from "./oauth-connector.js";

let emu: RunningEmulator;
let base: string;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  base = String(emu.url).replace(/\/$/, "");
});
afterAll(() => emu?.close());

/** The page's attribute values as a browser reads them (the web app writes `&#38;` for `&`). */
const attributeValue = (s: string) =>
  s.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The person: signs in to the web application with a one-time link; the session cookie. */
async function signedInPerson(): Promise<string> {
  const link = await fetch(`${base}/_emulator/sign-in-links`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  const { url } = (await link.json()) as { url: string };
  const signedIn = await fetch(url, { redirect: "manual" });
  const cookie = signedIn.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error("no session cookie");
  return cookie;
}

/** The person's browser at the consent page: allows the connector for `environment`. */
async function consent(url: URL, cookie: string, decision: "approve" | "deny"): Promise<URL> {
  const page = await fetch(url, { headers: { cookie } });
  expect(page.status).toBe(200);
  const text = await page.text();
  expect(text).toContain("Agent in a test");
  expect(page.headers.get("content-security-policy")).toContain(
    "form-action 'self' http://127.0.0.1:9",
  );
  const field = (name: string) =>
    attributeValue(new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? "");
  const answer = await fetch(`${base}/_app/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: {
      cookie,
      origin: base,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      csrf: field("csrf"),
      request: field("request"),
      environment: "production",
      decision,
    }).toString(),
  });
  expect(answer.status, await answer.clone().text()).toBe(303);
  return new URL(answer.headers.get("location") ?? "");
}

function connector(store: ConnectorStore) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    authProvider: store,
  });
  return { client: new Client({ name: "connector", version: "1.0.0" }), transport };
}

describe("signing in to /mcp as a custom connector (OAuth 2.1, PKCE)", () => {
  it("discovery: the 401 names the resource metadata, which names the authorization server", async () => {
    const refused = await fetch(`${base}/mcp`, { method: "POST" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer realm="wfr-mcp", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const resource = OAuthProtectedResourceMetadataSchema.parse(
      await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json(),
    );
    expect(resource).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    const server = OAuthMetadataSchema.parse(
      await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json(),
    );
    expect(server).toMatchObject({
      issuer: base,
      code_challenge_methods_supported: ["S256"],
      registration_endpoint: `${base}/oauth/register`,
    });
  });

  it("the SDK's client signs in, uses the tools with its token, refreshes; the token works nowhere else; revoked, it ends", async () => {
    const store = new ConnectorStore();
    const first = connector(store);
    await expect(first.client.connect(first.transport)).rejects.toThrow(/Unauthorized/);
    expect(store.client?.client_id).toMatch(/^client_/);
    const authorizationUrl = store.authorizationUrl as URL;
    expect(authorizationUrl.href.startsWith(`${base}/_app/oauth/authorize?`)).toBe(true);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");

    // Without the person's session: the web application's sign-in page, nothing issued.
    expect((await fetch(authorizationUrl)).status).toBe(401);
    const cookie = await signedInPerson();
    const back = await consent(authorizationUrl, cookie, "approve");
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("iss")).toBe(base);
    expect(back.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
    await first.transport.finishAuth(back.searchParams.get("code") ?? "");
    const access = store.saved?.access_token ?? "";
    expect(access).toMatch(/^wfr_oat_/);

    const signedIn = connector(store);
    await signedIn.client.connect(signedIn.transport);
    const listed = await signedIn.client.callTool({ name: "list_workflows", arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(JSON.stringify(listed.structuredContent)).toContain("Invoice intake");
    await signedIn.client.close();

    // The code is single-use; the REST API refuses the access token.
    const replay = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code") ?? "",
        client_id: String(store.client?.client_id),
        redirect_uri: REDIRECT,
        code_verifier: store.verifier,
      }).toString(),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
    const rest = await fetch(`${base}/production/api/v1/runs/run_x`, {
      headers: { authorization: `Bearer ${access}` },
    });
    expect(rest.status).toBe(401);

    // Refresh rotates both tokens; the old access token stops working.
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: store.saved?.refresh_token ?? "",
        client_id: String(store.client?.client_id),
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
    const tokens = (await refreshed.json()) as OAuthTokens;
    expect(tokens.access_token).not.toBe(access);
    const old = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${access}` },
    });
    expect(old.status).toBe(401);
    expect(old.headers.get("www-authenticate")).toContain('error="invalid_token"');
    store.saveTokens(tokens);

    // Revoked (RFC 7009): the grant ends, and the connector must sign the person in again.
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token ?? "" }).toString(),
    });
    expect(revoked.status).toBe(200);
    const afterRevocation = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(afterRevocation.status).toBe(401);
  });

  it("a person who declines sends the connector access_denied and no code", async () => {
    const store = new ConnectorStore();
    const { client, transport } = connector(store);
    await expect(client.connect(transport)).rejects.toThrow(/Unauthorized/);
    const back = await consent(store.authorizationUrl as URL, await signedInPerson(), "deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("code")).toBeNull();
  });
});
