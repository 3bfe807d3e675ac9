// A connection that drops in the middle of a long call resumes (the Streamable HTTP transport's
// resumability, agent/mcp-endpoint/session-event-store.ts): the agent reconnects with
// Last-Event-ID and receives what it missed, the call's result included. Raw HTTP, so that the
// drop is a real one: the client reads the first event of the call's stream and goes away.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SESSION_EVENTS,
  SessionEventStore,
} from "../../src/agent/mcp-endpoint/session-event-store.js";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http, INVOICE, invoiceBody, type Json } from "../conformance/support.js";
import { ENV } from "./agent-client.js";

let emu: RunningEmulator;
let base: string;
let token: string;
beforeAll(async () => {
  // A virtual clock: the run stays running, so wait_for_run waits for its whole bound.
  emu = await startEmulator({ port: 0, clock: "virtual" });
  base = String(emu.url).replace(/\/$/, "");
  token = (await http("POST", `${base}/_emulator/personal-access-tokens`, { environment: ENV }))
    .body.token as string;
});
afterAll(() => emu?.close());

interface SseEvent {
  id?: string;
  data: Json;
}

/** Reads SSE events from a response until `stop` says so; then drops the connection. */
async function readEvents(
  response: Response,
  stop: (e: SseEvent) => boolean,
  drop?: AbortController,
): Promise<SseEvent[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data) {
        const event = { ...(id ? { id } : {}), data: JSON.parse(data) };
        events.push(event);
        if (stop(event)) {
          // A real drop: the connection itself goes away, not only this reader.
          drop?.abort();
          await reader.cancel().catch(() => undefined);
          return events;
        }
      }
      end = buffer.indexOf("\n\n");
    }
  }
}

function post(session: string | undefined, body: Json, signal?: AbortSignal) {
  return fetch(`${base}/mcp`, {
    method: "POST",
    ...(signal ? { signal } : {}),
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...(session ? { "mcp-session-id": session } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe("/mcp: a dropped connection resumes with Last-Event-ID", () => {
  it("wait_for_run's stream dropped after its first progress event: the rest, result included, comes on reconnection", async () => {
    const init = await post(undefined, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "resuming-agent", version: "1.0.0" },
      },
    });
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    await readEvents(init, (e) => e.data.id === 1);
    await (await post(session, { jsonrpc: "2.0", method: "notifications/initialized" })).text();

    const key = (
      await http("POST", `${base}/_emulator/keys`, {
        environment: ENV,
        scopes: ["workflows:run", "runs:read"],
      })
    ).body.token as string;
    const launched = await http(
      "POST",
      `${base}/${ENV}/api/v1/automations/${INVOICE}/runs`,
      invoiceBody(),
      {
        authorization: `Bearer ${key}`,
      },
    );
    const runId = launched.body.run_id as string;

    const drop = new AbortController();
    const call = await post(
      session,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "wait_for_run",
          arguments: { run_id: runId, timeout_seconds: 2 },
          _meta: { progressToken: "wait-1" },
        },
      },
      drop.signal,
    );
    const before = await readEvents(call, (e) => e.data.method === "notifications/progress", drop);
    const last = before.at(-1);
    expect(last?.id).toBeDefined();

    const reconnect = () =>
      fetch(`${base}/mcp`, {
        headers: {
          authorization: `Bearer ${token}`,
          accept: "text/event-stream",
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-06-18",
          "last-event-id": last?.id ?? "",
        },
      });
    // Until the server has seen the drop, the stream still has its connection (409), as a
    // client's reconnection with backoff meets it.
    let resumed = await reconnect();
    for (let i = 0; resumed.status === 409 && i < 50; i++) {
      await resumed.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
      resumed = await reconnect();
    }
    expect(resumed.status).toBe(200);
    const after = await readEvents(resumed, (e) => e.data.id === 2);
    const result = after.at(-1)?.data.result as Json;
    expect(result.structuredContent).toMatchObject({ run_id: runId, timed_out: true });
    // Nothing already received is sent again.
    const ids = new Set(before.map((e) => e.id));
    expect(after.every((e) => !ids.has(e.id))).toBe(true);
  });

  it("keeps at most its bound of events per session", async () => {
    const store = new SessionEventStore();
    for (let i = 0; i < SESSION_EVENTS.maxEvents + 10; i++)
      await store.storeEvent("s", { jsonrpc: "2.0", method: "notifications/progress" });
    expect(store.size).toBe(SESSION_EVENTS.maxEvents);
  });
});
