// An agent's side of the /mcp endpoint in these tests: the SDK's own Client over real HTTP, a
// person's token made through the admin API, and tool calls. `emulator` is read on every call,
// so a test that restarts the emulator keeps using these.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunningEmulator } from "../../src/index.js";
import { http, type Json } from "../conformance/support.js";

export const ENV = "production";

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: unknown) => void,
) {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(onprogress ? { onprogress } : {}),
  })) as CallToolResult & { structuredContent?: Json };
}

export const errorText = (r: CallToolResult) => (r.content[0] as { text: string }).text;

export function agentClient(emulator: () => RunningEmulator) {
  const clients: Client[] = [];

  async function adminPost(path: string, body: unknown) {
    const r = await http("POST", `${emulator().url}/_emulator${path}`, body);
    if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
    return r.body as Json;
  }

  async function personalToken(): Promise<{ token: string; id: string }> {
    return adminPost("/personal-access-tokens", { environment: ENV });
  }

  async function connect(token: string | undefined, url = emulator().url): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {},
    });
    const client = new Client({ name: "agent-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function closeClients(): Promise<void> {
    for (const c of clients) await c.close().catch(() => undefined);
  }

  return { clients, adminPost, personalToken, connect, closeClients };
}
