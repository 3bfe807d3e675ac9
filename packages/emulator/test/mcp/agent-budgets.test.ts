// What an agent may send the /mcp endpoint and what it costs: a key of any character launches,
// a revoked token ends a wait already in flight, a draft has a budget. The SDK's own Client over
// real HTTP, against the real emulator.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { http, type Json } from "../conformance/support.js";
import { agentClient, call, ENV, errorText } from "./agent-client.js";

let emu: RunningEmulator;
const { adminPost, personalToken, connect, closeClients } = agentClient(() => emu);
let agent: Client;
let workflowId: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, clock: "virtual" });
  agent = await connect((await personalToken()).token);
  // A workflow that waits an hour of emulated time: a run of it stays running while tests watch.
  const saved = await call(agent, "save_workflow", {
    name: "Slow lookup",
    inputs: [{ name: "q", type: "text", required: true }],
    outputs: [],
    scenario: { steps: [{ wait_ms: 3_600_000 }, { succeed: { outputs: {} } }] },
  });
  workflowId = saved.structuredContent.id;
  const { cookie } = await adminPost("/portal-sessions", { environment: ENV });
  const enabled = await http(
    "POST",
    `${emu.url}/${ENV}/portal/workflows/${workflowId}/enable`,
    {},
    { cookie },
  );
  if (enabled.status !== 200) throw new Error(`enable: ${enabled.status} ${enabled.text}`);
}, 60_000);

afterAll(async () => {
  await closeClients();
  await emu.close();
});

describe("/mcp budgets and revocation", () => {
  it("launch_run takes an idempotency key with characters above U+00FF (sent in the body, not a header)", async () => {
    const key = "clé-Ā-ключ-😀";
    const args = { workflow_id: workflowId, inputs: { q: "x" }, idempotency_key: key };
    const first = await call(agent, "launch_run", args);
    expect(first.isError, errorText(first)).toBeFalsy();
    const again = await call(agent, "launch_run", args);
    expect(again.structuredContent.run_id).toBe(first.structuredContent.run_id);
    const history = (
      await http(
        "GET",
        `${emu.url}/_emulator/environments/${ENV}/runs/${first.structuredContent.run_id}`,
      )
    ).body as Json;
    expect(history.idempotency_key).toBe(key);
  });

  it("revoking the token ends a wait_for_run already in flight with UNAUTHENTICATED", async () => {
    const { token, id } = await personalToken();
    const watcher = await connect(token);
    const launched = await call(watcher, "launch_run", {
      workflow_id: workflowId,
      inputs: { q: "y" },
      idempotency_key: "revocation-wait",
    });
    let revoked: Promise<unknown> | undefined;
    const waited = await call(
      watcher,
      "wait_for_run",
      { run_id: launched.structuredContent.run_id, timeout_seconds: 45 },
      () => {
        // At the first progress notification the wait is in flight: revoke the token then.
        revoked ??= http("DELETE", `${emu.url}/_emulator/personal-access-tokens/${id}`);
      },
    );
    expect(revoked).toBeDefined();
    expect((await revoked) as { status: number }).toMatchObject({ status: 200 });
    expect(waited.isError).toBe(true);
    expect(errorText(waited)).toMatch(/^UNAUTHENTICATED: .*revoked.*\nNext: /s);
  }, 90_000);
});
