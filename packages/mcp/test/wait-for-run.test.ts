// wait_for_run never outlives the official SDK client's default request timeout: one call is
// bounded under it and answers timed_out with the advice to call again.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { describe, expect, it } from "vitest";
import { createWorkflowMcpServer, WAIT_CALL_MAX_MS, type WorkflowBackend } from "../src/index.js";

const running: WorkflowBackend = {
  environment: "test",
  listWorkflows: async () => [],
  getWorkflowSchema: async () => {
    throw new Error("not used");
  },
  launchRun: async () => {
    throw new Error("not used");
  },
  getRun: async (runId) => ({ run_id: runId, status: "running" }),
  getRunEvents: async () => ({ events: [] }),
  getRunResult: async () => {
    throw new Error("not used");
  },
  runPageUrl: () => undefined,
};

describe("wait_for_run bound", () => {
  it("one call waits less than the SDK client's default request timeout", () => {
    expect(WAIT_CALL_MAX_MS).toBeLessThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
  });

  it("asked for 120 s, one call ends at its bound with timed_out and the advice to call again (official SDK client)", async () => {
    // A bound of 1 s stands for the default 50 s, and the client's request timeout for its
    // default 60 s, so that the test waits seconds, not a minute; the relation is the same.
    const server = createWorkflowMcpServer(running, { pollIntervalMs: 50, waitCallMaxMs: 1000 });
    const [a, s] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "t", version: "1" });
    await Promise.all([server.connect(s), client.connect(a)]);
    const result = await client.callTool(
      { name: "wait_for_run", arguments: { run_id: "run_1", timeout_seconds: 120 } },
      undefined,
      { timeout: 60_000 },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ run_id: "run_1", timed_out: true });
    expect((result.content as { text: string }[])[0]?.text).toMatch(/call wait_for_run again/);
  }, 90_000);
});
