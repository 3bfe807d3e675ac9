// What an agent may send the /mcp endpoint and what it costs: a key of any character launches,
// a revoked token ends a wait already in flight, a draft has a budget. The SDK's own Client over
// real HTTP, against the real emulator.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DRAFT_BUDGET, draftBudgetProblem } from "../../src/agent/draft-budget.js";
import { MCP_CALL_LIMIT } from "../../src/agent/mcp-endpoint/mcp-body.js";
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

/**
 * Runs `work` (an agent's call, answered by the emulator in this process) and fails if anything
 * parsed a JSON text over 64 KiB meanwhile: a draft over its budget is refused from the body's
 * bytes, before the parsing and the argument checks that made it cost seconds.
 */
async function withoutLargeParse<T>(work: () => Promise<T>): Promise<T> {
  const parse = vi.spyOn(JSON, "parse");
  try {
    const result = await work();
    const largest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
    expect(largest).toBeLessThan(64 * 1024);
    return result;
  } finally {
    parse.mockRestore();
  }
}

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

  it("an idempotency key of ten times its 200 characters is INVALID_ARGUMENTS naming it, in the CODE + Next format; nothing launched", async () => {
    const runs = async () =>
      (
        (await http("GET", `${emu.url}/_emulator/environments/${ENV}/runs`)).body as {
          runs: Json[];
        }
      ).runs.length;
    const before = await runs();
    const r = await call(agent, "launch_run", {
      workflow_id: workflowId,
      inputs: { q: "x" },
      idempotency_key: "ключ".repeat(500),
    });
    expect(r.isError).toBe(true);
    expect(errorText(r)).toMatch(/^INVALID_ARGUMENTS: idempotency_key: .*\nNext: /s);
    expect(await runs()).toBe(before);
  });

  it("launch_run alone may send more than an /mcp call's 2 MiB (it carries files): 3 MiB of metadata launches", async () => {
    const r = await call(agent, "launch_run", {
      workflow_id: workflowId,
      inputs: { q: "x" },
      metadata: { note: "m".repeat(MCP_CALL_LIMIT + MCP_CALL_LIMIT / 2) },
      idempotency_key: "large-launch",
    });
    expect(r.isError, errorText(r)).toBeFalsy();
  });

  it("bad ids and bad arguments are INVALID_ARGUMENTS naming the argument, never INTERNAL_ERROR or -32602", async () => {
    for (const run_id of [
      `run_${"a".repeat(16 * 1024)}`,
      "run_\uD800",
      "run_\u0000",
      "run_1\r\nX: 1",
    ]) {
      const r = await call(agent, "get_run", { run_id });
      expect(r.isError).toBe(true);
      expect(errorText(r)).toMatch(/^INVALID_ARGUMENTS: run_id: .+\nNext: /);
    }
    const missing = await call(agent, "launch_run", { workflow_id: workflowId, inputs: {} });
    expect(errorText(missing)).toMatch(/^INVALID_ARGUMENTS: idempotency_key: .+\nNext: /);
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

  describe("save_workflow has a budget, checked before anything is stored", () => {
    const drafts = async () =>
      (await call(agent, "list_workflows", { state: "draft" })).structuredContent
        .workflows as Json[];
    const definitionText = async () =>
      (await http("GET", `${emu.url}/${ENV}/api-docs/openapi.json`)).text;

    it("ten times the fields: DRAFT_TOO_LARGE naming inputs, in the CODE + Next format, from the body's bytes (never parsed); nothing stored", async () => {
      const before = await drafts();
      const fields = Array.from({ length: DRAFT_BUDGET.fields * 10 }, (_, i) => ({
        name: `f${i}`,
        type: "text",
      }));
      const r = await withoutLargeParse(() =>
        call(agent, "save_workflow", { name: "Too many fields", inputs: fields, outputs: [] }),
      );
      expect(r.isError).toBe(true);
      expect(errorText(r)).toMatch(
        /^DRAFT_TOO_LARGE: \/inputs: 20000 fields; a draft has at most 2000 .*\nNext: /s,
      );
      expect(await drafts()).toEqual(before);
      expect(await definitionText()).not.toContain("Too many fields");
    }, 120_000);

    it("ten times the bytes: DRAFT_TOO_LARGE, from the body's bytes (never parsed); nothing stored", async () => {
      const before = await drafts();
      const big = "x".repeat(DRAFT_BUDGET.bytes * 10);
      const r = await withoutLargeParse(() =>
        call(agent, "save_workflow", {
          name: "Too many bytes",
          inputs: [],
          outputs: [],
          scenario: { steps: [{ event: { type: "step.note", text: big } }] },
        }),
      );
      expect(r.isError).toBe(true);
      expect(errorText(r)).toMatch(
        /^DRAFT_TOO_LARGE: \/: the request is \d+ bytes; a draft is at most 1048576 bytes .*\nNext: /s,
      );
      expect(await drafts()).toEqual(before);
      expect(await definitionText()).not.toContain("Too many bytes");
    }, 120_000);

    it("ten times the nesting depth is over the budget (the endpoint's JSON limit stops it earlier)", () => {
      let deep: unknown = "leaf";
      for (let i = 0; i < DRAFT_BUDGET.depth * 10; i++) deep = { d: deep };
      expect(draftBudgetProblem({ inputs: [], outputs: [], scenario: deep })).toEqual({
        pointer: "/scenario",
        message: "nested deeper than 32 levels",
      });
    });

    it("a draft within the budget is saved", async () => {
      const r = await call(agent, "save_workflow", {
        name: "Within budget",
        inputs: Array.from({ length: DRAFT_BUDGET.fields }, (_, i) => ({
          name: `f${i}`,
          type: "text",
        })),
        outputs: [],
      });
      expect(r.isError, errorText(r)).toBeFalsy();
    }, 120_000);
  });
});
