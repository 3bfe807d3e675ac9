// Every malformed call is answered in the documented `CODE: message` + `Next:` format, naming the
// argument at fault, whichever tool it reaches; ids are bounded, printable and well-formed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { createWorkflowMcpServer, type WorkflowBackend } from "../src/index.js";

const calls: string[] = [];
const backend: WorkflowBackend = {
  environment: "test",
  listWorkflows: async () => [],
  getWorkflowSchema: async (id) => {
    calls.push(id);
    throw new Error("not reached");
  },
  launchRun: async () => {
    throw new Error("not reached");
  },
  getRun: async (runId) => {
    calls.push(runId);
    return { run_id: runId, status: "running" };
  },
  getRunEvents: async () => ({ events: [] }),
  getRunResult: async () => {
    throw new Error("not reached");
  },
  runPageUrl: () => undefined,
  startAuthoringSession: async () => {
    throw new Error("not reached");
  },
  saveWorkflow: async () => {
    throw new Error("not reached");
  },
};

async function connect() {
  const server = createWorkflowMcpServer(backend);
  const [a, s] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "t", version: "1" });
  await Promise.all([server.connect(s), client.connect(a)]);
  return client;
}

const text = (result: unknown) =>
  (((result as { content?: unknown }).content ?? []) as { text?: string }[])[0]?.text ?? "";

/** One malformed call per tool and kind: missing, wrong type, out of range, bad id. */
const MALFORMED: [string, Record<string, unknown>, string][] = [
  ["list_workflows", { state: "archived" }, "state"],
  ["get_workflow_schema", {}, "workflow_id"],
  ["get_workflow_schema", { workflow_id: 7 }, "workflow_id"],
  ["start_authoring_session", { purpose: "x".repeat(501) }, "purpose"],
  ["save_workflow", { name: "", inputs: [], outputs: [] }, "name"],
  [
    "save_workflow",
    { name: "n", inputs: [{ name: "a", type: "blob" }], outputs: [] },
    "inputs[0].type",
  ],
  ["launch_run", { workflow_id: "wf_1", inputs: {} }, "idempotency_key"],
  ["launch_run", { workflow_id: "wf_1", inputs: [], idempotency_key: "k" }, "inputs"],
  [
    "launch_run",
    { workflow_id: "wf_1", inputs: {}, idempotency_key: "k".repeat(201) },
    "idempotency_key",
  ],
  ["get_run", { run_id: "" }, "run_id"],
  ["wait_for_run", { run_id: "run_1", timeout_seconds: 0 }, "timeout_seconds"],
  ["wait_for_run", { run_id: "run_1", timeout_seconds: "soon" }, "timeout_seconds"],
  ["get_run_events", { run_id: null }, "run_id"],
  ["get_run_result", { run_id: ["run_1"] }, "run_id"],
  ["explain_human_wait", {}, "run_id"],
];

const BAD_IDS: [string, string][] = [
  ["over the length bound", `run_${"a".repeat(16 * 1024)}`],
  ["a lone surrogate", "run_\uD800x"],
  ["a NUL", "run_\u0000"],
  ["CR/LF", "run_1\r\nX-Injected: 1"],
];

describe("tool arguments", () => {
  it.each(MALFORMED)(
    "%s with %j: INVALID_ARGUMENTS naming %s, with the next step",
    async (name, args, argument) => {
      const client = await connect();
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(text(result)).not.toMatch(/MCP error|-32602/);
      expect(text(result)).toMatch(/^INVALID_ARGUMENTS: .+\nNext: Fix the named arguments/);
      expect(text(result)).toContain(`${argument}: `);
    },
  );

  it.each(BAD_IDS)(
    "an id with %s is refused naming the argument, and never reaches the backend",
    async (_kind, id) => {
      const client = await connect();
      calls.length = 0;
      for (const [name, argument] of [
        ["get_run", "run_id"],
        ["wait_for_run", "run_id"],
        ["get_workflow_schema", "workflow_id"],
      ] as const) {
        const result = await client.callTool({ name, arguments: { [argument]: id } });
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(new RegExp(`^INVALID_ARGUMENTS: ${argument}: .+\\nNext: `));
        expect(text(result).length).toBeLessThan(1000);
      }
      expect(calls).toEqual([]);
    },
  );

  it("a call of an unknown tool is answered in the same format", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "cancel_run", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^INVALID_ARGUMENTS: no tool is named "cancel_run"\nNext: /);
  });

  it("a good id still reaches the backend", async () => {
    const client = await connect();
    const result = await client.callTool({
      name: "get_run",
      arguments: { run_id: "run_ünïcode_1" },
    });
    expect(result.isError).toBeFalsy();
  });
});

describe("tool answers", () => {
  it("an answer that does not match the tool's output schema is an INTERNAL_ERROR, never passed on", async () => {
    const broken: WorkflowBackend = {
      ...backend,
      // status must be a string in get_run's answer.
      getRun: async (runId) => ({ run_id: runId, status: 7 as unknown as string }),
    };
    const server = createWorkflowMcpServer(broken);
    const [a, s] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "t", version: "1" });
    await Promise.all([server.connect(s), client.connect(a)]);
    const result = await client.callTool({ name: "get_run", arguments: { run_id: "run_1" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "INTERNAL_ERROR: the get_run answer does not match its output schema",
    );
  });
});
