// A connector stays signed in across an emulator restart on the same journal, and a revoked one
// stays revoked: registered clients and grants are journalled like personal access tokens, with
// the SHA-256 of each token only (src/agent/oauth/authorization-server.ts).
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http, type Json } from "../conformance/support.js";
import { approveAsPerson } from "./oauth-person.js";

const REDIRECT = "http://127.0.0.1:9/oauth/callback";

interface Tokens {
  access_token: string;
  refresh_token: string;
}

let dir: string;
let data: string;
let emu: RunningEmulator;
let base: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wfr-oauth-restart-"));
  data = join(dir, "journal.jsonl");
  emu = await startEmulator({ port: 0, data });
  base = String(emu.url).replace(/\/$/, "");
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function form(path: string, fields: Record<string, string>) {
  const r = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: r.status, body: (await r.text().then((t) => (t ? JSON.parse(t) : {}))) as Json };
}

/**
 * Stops the emulator and starts it again on the same journal and port (the tokens' audience is
 * its URL). In between, two turns of the event loop: the stopped emulator ended its kept-alive
 * connections, and fetch's pool (the test's and the emulator's own calls of its REST API) drops
 * such a connection only once it has read the end (the loop's poll phase) and closed the socket
 * (its close phase); without them the first request after the restart could go on a dead one.
 */
async function restart(): Promise<void> {
  const port = emu.port;
  await emu.close();
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  emu = await startEmulator({ port, data });
  base = String(emu.url).replace(/\/$/, "");
}

/** A person signs `clientId` in: PKCE, consent, code exchange; the tokens. */
async function signIn(clientId: string): Promise<Tokens> {
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${base}/_app/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: `${base}/mcp`,
    state: "s",
  }))
    authorize.searchParams.set(name, value);
  const back = await approveAsPerson(base, authorize.href);
  const exchanged = await form("/oauth/token", {
    grant_type: "authorization_code",
    code: back.searchParams.get("code") ?? "",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return exchanged.body;
}

const refresh = (clientId: string, token: string) =>
  form("/oauth/token", { grant_type: "refresh_token", refresh_token: token, client_id: clientId });

/** The agent tools with this access token: the workflows it lists, or the refusal. */
async function listWorkflows(accessToken: string): Promise<string> {
  const client = new Client({ name: "connector-after-restart", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
      }),
    );
    const listed = await client.callTool({ name: "list_workflows", arguments: {} });
    return JSON.stringify(listed.structuredContent);
  } catch (error) {
    return String(error);
  } finally {
    await client.close();
  }
}

describe("OAuth clients and grants across a restart", () => {
  it("a connector refreshes and works after the restart; a revoked grant stays revoked; no token is on disk", async () => {
    const registered = await http("POST", `${base}/oauth/register`, {
      client_name: "Connector that outlives a restart",
      redirect_uris: [REDIRECT],
    });
    expect(registered.status).toBe(201);
    const clientId = (registered.body as Json).client_id as string;
    const kept = await signIn(clientId);
    const rotated = (await refresh(clientId, kept.refresh_token)).body as Tokens;
    const revoked = await signIn(clientId);
    expect((await form("/oauth/revoke", { token: revoked.refresh_token })).status).toBe(200);

    await restart();

    // The access token issued before the restart still works, and so does its refresh token.
    expect(await listWorkflows(rotated.access_token)).toContain("Invoice intake");
    const afterRestart = await refresh(clientId, rotated.refresh_token);
    expect(afterRestart.status, JSON.stringify(afterRestart.body)).toBe(200);
    const fresh = afterRestart.body as Tokens;
    expect(await listWorkflows(fresh.access_token)).toContain("Invoice intake");
    expect(await listWorkflows(rotated.access_token)).toContain("UNAUTHENTICATED");

    // Revoked before the restart: both of its tokens are still refused.
    expect(await listWorkflows(revoked.access_token)).toContain("UNAUTHENTICATED");
    expect((await refresh(clientId, revoked.refresh_token)).body).toMatchObject({
      error: "invalid_grant",
    });

    // The registration survived: the client signs another person in without registering again.
    expect(await listWorkflows((await signIn(clientId)).access_token)).toContain("Invoice intake");

    const journal = readFileSync(data, "utf8");
    expect(journal).toContain(clientId);
    for (const t of [kept, rotated, revoked, fresh])
      for (const secret of [t.access_token, t.refresh_token]) expect(journal).not.toContain(secret);

    // Compacted (the journal rewritten from the state: clients and live grants only), then
    // restarted: the newest token works, and the refresh token rotated away before the first
    // restart, presented again, still ends its grant.
    expect((await http("POST", `${base}/_emulator/journal/compact`, {})).status).toBe(200);
    const compacted = readFileSync(data, "utf8");
    expect(compacted).not.toContain("oauth_grant_revoked");
    expect(compacted.split("\n").filter((line) => line.includes('"oauth_grant"'))).toHaveLength(2);
    await restart();
    expect(await listWorkflows(fresh.access_token)).toContain("Invoice intake");
    expect((await refresh(clientId, kept.refresh_token)).body).toMatchObject({
      error: "invalid_grant",
    });
    expect(await listWorkflows(fresh.access_token)).toContain("UNAUTHENTICATED");
  });
});
