// Senders for the input-budgets case: a body made of generated chunks (never one giant string),
// streamed without a Content-Length so the server has to count; the sender stops once answered.
import { request } from "node:http";

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** Chunks of `total` bytes of `byte`, 64 KiB at a time. */
export function* filler(total, byte = 0x78) {
  const chunk = Buffer.alloc(64 * KiB, byte);
  for (let sent = 0; sent < total; sent += chunk.length)
    yield total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
}

/** Streams `chunks` (strings or Buffers); resolves with the answer's status and text (4 KiB). */
export function send(url, { method = "POST", headers = {}, chunks }) {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, { method, headers });
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.on("data", (d) => {
        if (text.length < 4 * KiB) text += d;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode, text });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const it = chunks[Symbol.iterator]();
    const pump = () => {
      while (!answered) {
        const next = it.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once("drain", pump);
      }
    };
    pump();
  });
}

/** An MCP session on `url`/mcp with a bearer token: its headers for the calls that follow. */
export async function mcpSession(url, token) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${token}`,
  };
  const init = await fetch(`${url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "input-budgets", version: "1" },
      },
    }),
  });
  await init.text();
  const session = {
    ...headers,
    "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
    "mcp-protocol-version": "2025-06-18",
  };
  await (
    await fetch(`${url}/mcp`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  return session;
}

/** A tools/call body for `name`, whose arguments come as chunks (JSON text) from `argumentChunks`. */
export function* toolCall(name, argumentChunks) {
  yield `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":`;
  yield* argumentChunks;
  yield "}}";
}

/** The tool's error text out of a JSON or event-stream answer, or the status. */
export function toolError(text) {
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  try {
    const message = JSON.parse(data);
    return message.result?.content?.[0]?.text ?? message.error?.message ?? data.slice(0, 200);
  } catch {
    return data.slice(0, 200);
  }
}
