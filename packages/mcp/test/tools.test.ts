// Tool shapes and error mapping with a small in-memory backend (the tools
// against the real emulator are tested in @wfr/cli and @wfr/emulator).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { BackendError, createWorkflowMcpServer, type WorkflowBackend } from "../src/index.js";

function backend(overrides: Partial<WorkflowBackend> = {}): WorkflowBackend {
  return {
    environment: "test",
    listWorkflows: async () => [{ id: "wf_1", name: "One", state: "enabled", revision: 1 }],
    getWorkflowSchema: async () => {
      throw new BackendError("WORKFLOW_NOT_FOUND", "no such workflow", 404);
    },
    launchRun: async () => {
      throw new Error("boom\n    at secret (/home/app/src/x.ts:1:1)");
    },
    getRun: async (runId) => ({ run_id: runId, status: "running" }),
    getRunEvents: async () => ({ events: [] }),
    getRunResult: async () => ({
      state: "pending",
      status: "running",
      succeeded: false,
      outputs: null,
      error: null,
      metadata: {},
    }),
    runPageUrl: () => undefined,
    ...overrides,
  };
}

async function connect(b: WorkflowBackend) {
  const server = createWorkflowMcpServer(b);
  const [a, s] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "t", version: "1" });
  await Promise.all([server.connect(s), client.connect(a)]);
  return client;
}

describe("@wfr/mcp tools", () => {
  it("authoring tools appear only where the backend offers them", async () => {
    const without = await connect(backend());
    expect((await without.listTools()).tools.map((t) => t.name)).not.toContain("save_workflow");
    const withAuthoring = await connect(
      backend({
        startAuthoringSession: async () => ({
          session_id: "s",
          live_view_url: "http://x",
          expires_at: "t",
        }),
        saveWorkflow: async (r) => ({ id: "wf_new", name: r.name, state: "draft", revision: 1 }),
      }),
    );
    const tools = (await withAuthoring.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["start_authoring_session", "save_workflow"]),
    );
    expect(tools.find((t) => t.name === "save_workflow")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
  });

  it("a backend error is a tool error with the code and a next step; an unexpected one never shows a stack", async () => {
    const client = await connect(backend());
    const missing = await client.callTool({
      name: "get_workflow_schema",
      arguments: { workflow_id: "nope" },
    });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]?.text).toMatch(
      /^WORKFLOW_NOT_FOUND: no such workflow\nNext: /,
    );
    const crash = await client.callTool({
      name: "launch_run",
      arguments: { workflow_id: "wf_1", inputs: {}, idempotency_key: "k" },
    });
    expect(crash.isError).toBe(true);
    const text = (crash.content as { text: string }[])[0]?.text ?? "";
    expect(text).toBe("INTERNAL_ERROR: boom");
  });

  it("launch_run refuses a call without an idempotency key (schema)", async () => {
    const client = await connect(backend());
    const result = await client.callTool({
      name: "launch_run",
      arguments: { workflow_id: "wf_1", inputs: {} },
    });
    expect(result.isError).toBe(true);
  });
});

describe("launch_run and the caller's metadata", () => {
  it("passes the caller's metadata on as given, never adding how the run was started", async () => {
    const seen: unknown[] = [];
    const client = await connect(
      backend({
        launchRun: async (request) => {
          seen.push(request.metadata);
          return { run_id: "run_1", status: "queued" };
        },
      }),
    );
    for (const metadata of [{ launched_via: "my-scheduler", order: "o-1" }, undefined])
      await client.callTool({
        name: "launch_run",
        arguments: {
          workflow_id: "wf_1",
          inputs: {},
          idempotency_key: `k-${seen.length}`,
          ...(metadata ? { metadata } : {}),
        },
      });
    expect(seen).toEqual([{ launched_via: "my-scheduler", order: "o-1" }, undefined]);
  });

  it("explain_human_wait and get_run give the person the service's own link when the backend knows no run page", async () => {
    const waiting = {
      run_id: "run_1",
      status: "waiting_for_human_live",
      live_view_url: "https://portal.example.test/runs/run_1",
      human_action: {
        checkpoint_id: "cp_1",
        kind: "approval",
        reason: "Amount over limit",
        live_view_url: "https://portal.example.test/runs/run_1/checkpoints/cp_1",
      },
    };
    const client = await connect(backend({ getRun: async () => waiting }));
    const explained = await client.callTool({
      name: "explain_human_wait",
      arguments: { run_id: "run_1" },
    });
    expect(explained.structuredContent).toMatchObject({
      waiting: true,
      person_url: "https://portal.example.test/runs/run_1/checkpoints/cp_1",
    });
    expect((explained.content as { text: string }[])[0]?.text).toContain(
      "A person answers at https://portal.example.test/runs/run_1/checkpoints/cp_1.",
    );
    const run = await client.callTool({ name: "get_run", arguments: { run_id: "run_1" } });
    expect(run.structuredContent).toMatchObject({
      needs_person: true,
      person_url: "https://portal.example.test/runs/run_1/checkpoints/cp_1",
    });
    // Only the envelope's link: that one. A link that is not http(s) is never passed on.
    const envelopeOnly = await connect(
      backend({
        getRun: async () => ({
          ...waiting,
          human_action: { ...waiting.human_action, live_view_url: "javascript:alert(1)" },
        }),
      }),
    );
    const fallback = await envelopeOnly.callTool({
      name: "explain_human_wait",
      arguments: { run_id: "run_1" },
    });
    expect(fallback.structuredContent).toMatchObject({
      person_url: "https://portal.example.test/runs/run_1",
    });
  });

  it("declares logging, and sends each refusal to the client's log (the tool and the code, no values)", async () => {
    const client = await connect(backend());
    expect(client.getServerCapabilities()?.logging).toEqual({});
    const logged: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logged.push({ level: n.params.level, data: n.params.data });
    });
    await client.callTool({ name: "get_workflow_schema", arguments: { workflow_id: "nope" } });
    await client.callTool({
      name: "launch_run",
      arguments: { workflow_id: "wf_1", inputs: { secret: "s3cr3t" }, idempotency_key: "k" },
    });
    await client.setLoggingLevel("error");
    await client.callTool({ name: "get_workflow_schema", arguments: { workflow_id: "nope" } });
    expect(logged).toEqual([
      {
        level: "warning",
        data: { tool: "get_workflow_schema", error: "WORKFLOW_NOT_FOUND: no such workflow" },
      },
      { level: "error", data: { tool: "launch_run", error: expect.any(String) } },
    ]);
    expect(JSON.stringify(logged)).not.toContain("s3cr3t");
  });
});
