// Who may call the agent (MCP) endpoint: a person's token only (not an API key, not a revoked
// token), from this host only, and a session only with the token that opened it.
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { BOTH_SCOPES, http, type Json } from "../conformance/support.js";
import { agentClient, ENV } from "./agent-client.js";

let dir: string;
let data: string;
let emu: RunningEmulator;
const { adminPost, personalToken, connect, closeClients } = agentClient(() => emu);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfr-mcp-"));
  data = join(dir, "journal.jsonl");
  emu = await startEmulator({ port: 0, clock: "virtual", data });
});

afterAll(async () => {
  await closeClients();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

describe("/mcp: who may call it", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  };
  const mcpHeaders = { accept: "application/json, text/event-stream" };

  it("401 with WWW-Authenticate: Bearer (naming where to sign in) without a token; the SDK client cannot connect", async () => {
    const r = await http("POST", `${emu.url}/mcp`, initialize, mcpHeaders);
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="wfr-mcp", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
    expect(r.body.code).toBe("UNAUTHENTICATED");
    await expect(connect(undefined)).rejects.toThrow(/401|Unauthorized|UNAUTHENTICATED/i);
  });

  it("refuses an API key on /mcp and a personal token on the REST API", async () => {
    const key = (await adminPost("/keys", { environment: ENV, scopes: BOTH_SCOPES }))
      .token as string;
    const r = await http("POST", `${emu.url}/mcp`, initialize, {
      ...mcpHeaders,
      authorization: `Bearer ${key}`,
    });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="wfr-mcp", resource_metadata="[^"]+", error="invalid_token"/,
    );
    expect(r.body.error).toContain("an API key is not accepted here");
    expect(r.text).not.toContain(key);

    const { token } = await personalToken();
    const rest = await http("GET", `${emu.url}/${ENV}/api/v1/runs/run_x`, undefined, {
      authorization: `Bearer ${token}`,
    });
    expect(rest.status).toBe(401);
    expect(rest.body.error).toContain("accepted only by the agent (MCP) endpoint");
    const launch = await http(
      "POST",
      `${emu.url}/${ENV}/api/v1/automations/wf_P7Qd2Lx9/runs`,
      { inputs: {} },
      {
        authorization: `Bearer ${token}`,
      },
    );
    expect(launch.status).toBe(401);
  });

  it("a revoked token is refused; the list never shows token values", async () => {
    const { token, id } = await personalToken();
    const client = await connect(token);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const list = await http("GET", `${emu.url}/_emulator/personal-access-tokens`);
    expect(list.body.tokens.map((t: Json) => t.id)).toContain(id);
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain("sha256");
    const del = await http("DELETE", `${emu.url}/_emulator/personal-access-tokens/${id}`);
    expect(del.status).toBe(200);
    await expect(client.listTools()).rejects.toThrow(/unknown or revoked/);
    const r = await http("POST", `${emu.url}/mcp`, initialize, {
      ...mcpHeaders,
      authorization: `Bearer ${token}`,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toContain("unknown or revoked");
    expect((await http("DELETE", `${emu.url}/_emulator/personal-access-tokens/${id}`)).status).toBe(
      404,
    );
  });

  it("refuses a Host header of another host (DNS rebinding) and a foreign Origin", async () => {
    const { token } = await personalToken();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: emu.port,
          path: "/mcp",
          method: "POST",
          headers: {
            host: `evil.example:${emu.port}`,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            ...mcpHeaders,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(initialize));
    });
    expect(status).toBe(421);
    const cross = await http("POST", `${emu.url}/mcp`, initialize, {
      ...mcpHeaders,
      authorization: `Bearer ${token}`,
      origin: "https://evil.example",
    });
    expect(cross.status).toBe(403);
    expect(cross.body.code).toBe("ORIGIN_NOT_ALLOWED");
  });

  it("a session belongs to the token that opened it; without a session only initialize is accepted", async () => {
    const alice = await personalToken();
    const bob = await personalToken();
    const opened = await http("POST", `${emu.url}/mcp`, initialize, {
      ...mcpHeaders,
      authorization: `Bearer ${alice.token}`,
    });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id") as string;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const asBob = await http("POST", `${emu.url}/mcp`, list, {
      ...mcpHeaders,
      authorization: `Bearer ${bob.token}`,
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    });
    expect(asBob.status).toBe(404);
    expect(asBob.body.code).toBe("MCP_SESSION_NOT_FOUND");
    const noSession = await http("POST", `${emu.url}/mcp`, list, {
      ...mcpHeaders,
      authorization: `Bearer ${alice.token}`,
    });
    expect(noSession.status).toBe(400);
    expect(noSession.body.code).toBe("MCP_SESSION_REQUIRED");
    const session = { authorization: `Bearer ${alice.token}`, "mcp-session-id": sessionId };
    expect((await http("DELETE", `${emu.url}/mcp`, undefined, session)).status).toBe(200);
    const ended = await http("POST", `${emu.url}/mcp`, list, { ...mcpHeaders, ...session });
    expect(ended.status).toBe(404);
    // A token in a URL is refused like an API key.
    const inQuery = await http("POST", `${emu.url}/mcp?t=${alice.token}`, initialize, {
      ...mcpHeaders,
      authorization: `Bearer ${alice.token}`,
    });
    expect(inQuery.status).toBe(400);
    expect(inQuery.body.code).toBe("API_KEY_IN_QUERY");
  });
});
