// A launch whose answer cannot be read is sent again with the same idempotency key, within the
// call's attempts (src/retry-rules.ts): every launch carries a key, so the service returns the
// original run instead of new work (docs/service-rules.md#idempotent-launch). Against a local
// 127.0.0.1 server that keeps runs by key, as the service does.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, InvalidResponseError } from "../src/index.js";
import { createVirtualClock } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";

type Fault = "broken-json" | "empty-body" | "cut-after-request" | "none";

/** A launch endpoint that answers the first `faults.length` launches with those faults. */
async function startLaunchServer(faults: Fault[]) {
  const keys: string[] = [];
  const runs = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const key = String(req.headers["idempotency-key"] ?? "");
      keys.push(key);
      // The service made the run whatever happens to its answer.
      if (!runs.has(key)) runs.set(key, `run_${runs.size + 1}`);
      const fault = faults.shift() ?? "none";
      if (fault === "cut-after-request") {
        req.socket.destroy();
        return;
      }
      const body =
        fault === "broken-json"
          ? '{"run_id":"run_1","workflow_id":"wf_1","sta'
          : fault === "empty-body"
            ? ""
            : JSON.stringify({
                run_id: runs.get(key),
                workflow_id: "wf_1",
                status: "queued",
                timestamps: { created_at: "2026-01-01T00:00:00Z" },
                error: null,
                metadata: {},
                human_action: null,
              });
      res.writeHead(202, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    keys,
    runs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const inputs = { vendor_name: "V", amount: 1 };

describe("a launch whose answer cannot be read", () => {
  for (const fault of ["broken-json", "empty-body", "cut-after-request"] as const) {
    it(`${fault}: sent again with the same key, one run`, async () => {
      const server = await startLaunchServer([fault]);
      close = server.close;
      const wfr = createClient({
        baseUrl: server.baseUrl,
        apiKey: API_KEY,
        clock: createVirtualClock(),
      });
      const run = await wfr.launch("wf_1", { inputs });
      expect(server.runs.size).toBe(1);
      expect(server.keys).toHaveLength(2);
      expect(server.keys[1]).toBe(server.keys[0]);
      expect(run.idempotencyKey).toBe(server.keys[0]);
      expect(run.run_id).toBe("run_1");
    });
  }

  it("unreadable on every attempt: InvalidResponseError after the attempt budget, the key on it", async () => {
    const server = await startLaunchServer(["broken-json", "broken-json", "broken-json"]);
    close = server.close;
    const wfr = createClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      clock: createVirtualClock(),
      retry: { maxAttempts: 3 },
    });
    const error = await wfr.launch("wf_1", { inputs }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).idempotencyKey).toBe(server.keys[0]);
    expect(server.keys).toEqual([server.keys[0], server.keys[0], server.keys[0]]);
    expect(server.runs.size).toBe(1);
  });
});
