// The proxy's edge against a small HTTP server on loopback: what the client sees and what the
// server received, for each fault.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy } from "../src/fault-proxy.js";
import type { ConnectionPlan } from "../src/fault-schedule.js";

let upstream: Server;
let port = 0;
const received: string[] = [];
beforeAll(async () => {
  upstream = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push(`${request.headers["idempotency-key"]} ${request.headers.connection} ${body}`);
      response.writeHead(202, { "content-type": "application/json" });
      response.end(JSON.stringify({ run_id: "run_1", padding: "x".repeat(64) }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const address = upstream.address();
  port = typeof address === "object" && address ? address.port : 0;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

// The client waits long enough for a loaded machine (no tight timeout), except where the test is
// the timeout itself: the stall holds the answer five times longer than that client waits.
async function through(plan: ConnectionPlan, key: string, clientTimeoutMs = 60_000) {
  const proxy = await startFaultProxy({ upstreamPort: port, plan: () => plan, stallMs: 5_000 });
  try {
    const outcome = await fetch(`http://127.0.0.1:${proxy.port}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ key }),
      signal: AbortSignal.timeout(clientTimeoutMs),
    }).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      (error: Error) => ({ status: 0, body: error.name }),
    );
    await proxy.idle();
    return { outcome, exchanges: proxy.exchanges, seen: received.filter((r) => r.startsWith(key)) };
  } finally {
    await proxy.close();
  }
}

describe("startFaultProxy", () => {
  it("passes a request through as one exchange, Connection: close", async () => {
    const { outcome, exchanges, seen } = await through("none", "k-none");
    expect(outcome.status).toBe(202);
    expect(JSON.parse(outcome.body).run_id).toBe("run_1");
    expect(exchanges).toEqual([{ index: 0, plan: "none", idempotencyKey: "k-none" }]);
    expect(seen).toEqual(['k-none close {"key":"k-none"}']);
  });

  it("reset mid-request: the server never gets the whole request, the client no answer", async () => {
    const { outcome, seen } = await through("reset-mid-request", "k-mid");
    expect(outcome.status).toBe(0);
    expect(seen).toEqual([]);
  });

  it("reset after the request: the server handled it, the client got no answer", async () => {
    const { outcome, seen } = await through("reset-after-request", "k-after");
    expect(outcome.status).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it("truncated response: the head arrives, the body is cut", async () => {
    const { outcome, seen } = await through("truncated-response", "k-cut");
    expect(outcome.status === 0 || outcome.body.length < 60).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("stall: the server answered, the client's timeout ends the wait", async () => {
    const { outcome, seen } = await through("stall-past-timeout", "k-stall", 1_000);
    expect(outcome).toEqual({ status: 0, body: "TimeoutError" });
    expect(seen).toHaveLength(1);
  });

  it("twice: the server gets the request on two connections, the client one answer", async () => {
    const { outcome, seen } = await through("twice-on-two-connections", "k-twice");
    expect(outcome.status).toBe(202);
    expect(seen).toHaveLength(2);
  });

  it("gateway 502: the server handled it, the client gets an HTML 502", async () => {
    const { outcome, seen } = await through("gateway-502", "k-502");
    expect(outcome.status).toBe(502);
    expect(outcome.body).toContain("<h1>502 Bad Gateway</h1>");
    expect(seen).toHaveLength(1);
  });
});
