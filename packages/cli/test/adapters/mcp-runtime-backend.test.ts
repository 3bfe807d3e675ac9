// The agent tools as an agent sees them: the SDK's own Client, connected to the
// server over an in-memory transport, with the runtime backend talking to
// the real emulator on loopback.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { createWorkflowMcpServer } from "@wfr/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntimeBackend } from "../../src/adapters/mcp-runtime-backend.js";

const INVOICE_INTAKE = "wf_P7Qd2Lx9";
let emulator: RunningEmulator;
let client: Client;

const admin = (path: string, method: string, body: unknown) =>
  fetch(`${emulator.url}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const key = await admin("/keys", "POST", {
    environment: "production",
    scopes: ["workflows:run", "runs:read"],
  });
  const { token } = (await key.json()) as { token: string };
  await admin(`/environments/production/workflows/${INVOICE_INTAKE}/scenario`, "PUT", {
    session: "browser",
    recording: { mode: "ready" },
    steps: [
      { wait_ms: 50 },
      {
        human: {
          kind: "approval",
          reason: "Amount is above the limit",
          instructions: "Approve or reject",
          expires_in_ms: 600_000,
        },
      },
      { succeed: {} },
    ],
  });
  const definition = await (await fetch(`${emulator.url}/production/api-docs/openapi.json`)).json();
  const backend = createRuntimeBackend({
    environment: "production",
    baseUrl: `${emulator.url}/production/api/v1`,
    apiKey: token,
    definition,
    runPageUrl: `${emulator.url}/runs/{runId}`,
  });
  const server = createWorkflowMcpServer(backend, { pollIntervalMs: 50 });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: "test-agent", version: "1.0.0" });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
});

const structured = (result: unknown) =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

describe("workflow tools over the public API", () => {
  it("lists tools with short snake_case names, input and output schemas and honest annotations", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      "explain_human_wait",
      "get_run",
      "get_run_events",
      "get_run_result",
      "get_workflow_schema",
      "launch_run",
      "list_workflows",
      "wait_for_run",
    ]);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z][a-z_]{0,63}$/);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description?.length).toBeGreaterThan(20);
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of [
      "list_workflows",
      "get_workflow_schema",
      "get_run",
      "wait_for_run",
      "get_run_events",
      "get_run_result",
      "explain_human_wait",
    ]) {
      expect(hints[name]).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(hints.launch_run).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: true,
    });
    // No tool answers a checkpoint or cancels a run.
    expect(names.some((n) => /answer|respond|cancel|approve/.test(n))).toBe(false);
    const launch = tools.find((t) => t.name === "launch_run");
    expect(launch?.inputSchema.required).toContain("idempotency_key");
  });

  it("list_workflows and get_workflow_schema describe what the definition says", async () => {
    const listed = structured(
      await client.callTool({ name: "list_workflows", arguments: { state: "enabled" } }),
    );
    const workflows = listed.workflows as { id: string; state: string }[];
    expect(workflows.map((w) => w.id)).toContain(INVOICE_INTAKE);
    expect(workflows.every((w) => w.state === "enabled")).toBe(true);
    const schema = structured(
      await client.callTool({
        name: "get_workflow_schema",
        arguments: { workflow_id: INVOICE_INTAKE },
      }),
    );
    expect(schema).toMatchObject({
      id: INVOICE_INTAKE,
      name: "Invoice intake",
      model_exposed: true,
    });
    expect(JSON.stringify(schema.inputs)).toContain("vendor_name");
    expect((schema.examples as unknown[]).length).toBeGreaterThan(0);
  });

  it("launch_run with a key; the same request and key again returns the same run; a changed request is a tool error with the code", async () => {
    const args = {
      workflow_id: "wf_P0ZrTt55",
      inputs: { ticket_url: "https://help.example.com/t/1" },
      idempotency_key: "agent-task-1",
    };
    const first = structured(await client.callTool({ name: "launch_run", arguments: args }));
    const again = structured(await client.callTool({ name: "launch_run", arguments: args }));
    expect(again.run_id).toBe(first.run_id);
    const changed = await client.callTool({
      name: "launch_run",
      arguments: { ...args, inputs: { ticket_url: "https://help.example.com/t/2" } },
    });
    expect(changed.isError).toBe(true);
    const text = (changed.content as { text: string }[])[0]?.text ?? "";
    expect(text).toMatch(/^IDEMPOTENCY_CONFLICT: /);
    expect(text).toContain("Next:");
    expect(text).not.toMatch(/\n\s+at /); // never a stack
  });

  it("launch_run takes an idempotency key with characters above U+00FF, and it stays idempotent", async () => {
    const args = {
      workflow_id: "wf_P0ZrTt55",
      inputs: { ticket_url: "https://help.example.com/t/9" },
      idempotency_key: "clé-Ā-ключ-😀",
    };
    const first = await client.callTool({ name: "launch_run", arguments: args });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    const again = structured(await client.callTool({ name: "launch_run", arguments: args }));
    expect(again.run_id).toBe(structured(first).run_id);
  });

  it("wait_for_run returns the current state at its bound, then explains the human wait; no tool answers it", async () => {
    const launched = structured(
      await client.callTool({
        name: "launch_run",
        arguments: {
          workflow_id: INVOICE_INTAKE,
          inputs: { vendor_name: "Northwind", amount: 12 },
          files: {
            invoice_pdf: {
              filename: "inv.pdf",
              mime_type: "application/pdf",
              base64: "JVBERi0xLjQK",
            },
          },
          idempotency_key: "agent-task-2",
        },
      }),
    );
    let waited = structured(
      await client.callTool({
        name: "wait_for_run",
        arguments: { run_id: launched.run_id, timeout_seconds: 30 },
      }),
    );
    expect(waited.timed_out).toBe(false);
    expect(waited).toMatchObject({
      status: "waiting_for_human_live",
      needs_person: true,
      terminal: false,
    });
    const explained = structured(
      await client.callTool({ name: "explain_human_wait", arguments: { run_id: launched.run_id } }),
    );
    expect(explained).toMatchObject({
      waiting: true,
      kind: "approval",
      reason: "Amount is above the limit",
      instructions: "Approve or reject",
      response_accepted: false,
    });
    expect(String(explained.person_url)).toContain(String(launched.run_id));
    const pending = structured(
      await client.callTool({ name: "get_run_result", arguments: { run_id: launched.run_id } }),
    );
    expect(pending).toMatchObject({ state: "pending", succeeded: false });
    // Still waiting a second later: the agent cannot move it on.
    waited = structured(
      await client.callTool({
        name: "wait_for_run",
        arguments: { run_id: launched.run_id, timeout_seconds: 1 },
      }),
    );
    expect(waited.status).toBe("waiting_for_human_live");
    const unknown = await client
      .callTool({ name: "answer_checkpoint", arguments: { run_id: launched.run_id } })
      .catch((e) => e);
    expect(String((unknown as { message?: string }).message ?? JSON.stringify(unknown))).toMatch(
      /INVALID_ARGUMENTS: no tool is named/,
    );
  });

  it("wait_for_run is bounded: at the bound it returns the current state (timed_out), with progress notifications", async () => {
    await admin("/environments/production/workflows/wf_P0ZrTt55/scenario", "PUT", {
      steps: [{ wait_ms: 600_000 }, { succeed: {} }],
    });
    const launched = structured(
      await client.callTool({
        name: "launch_run",
        arguments: {
          workflow_id: "wf_P0ZrTt55",
          inputs: { ticket_url: "https://help.example.com/t/9" },
          idempotency_key: "agent-task-slow",
        },
      }),
    );
    const progress: number[] = [];
    const waited = structured(
      await client.callTool(
        { name: "wait_for_run", arguments: { run_id: launched.run_id, timeout_seconds: 1 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      ),
    );
    expect(waited.timed_out).toBe(true);
    expect(waited.terminal).toBe(false);
    expect(progress.length).toBeGreaterThan(0);
  });

  it("a failed run's result is terminal but not a success", async () => {
    const launched = structured(
      await client.callTool({
        name: "launch_run",
        arguments: {
          workflow_id: "wf_P9hHc2Vb",
          inputs: { contacts: [{ email: "ana@example.com" }] },
          idempotency_key: "agent-task-3",
        },
      }),
    );
    const waited = structured(
      await client.callTool({
        name: "wait_for_run",
        arguments: { run_id: launched.run_id, timeout_seconds: 60 },
      }),
    );
    expect(waited.terminal).toBe(true);
    const result = structured(
      await client.callTool({ name: "get_run_result", arguments: { run_id: launched.run_id } }),
    );
    expect(result.state).toBe("terminal");
    expect(result.succeeded).toBe(false);
  });
});
