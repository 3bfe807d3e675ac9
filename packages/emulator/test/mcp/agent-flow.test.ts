// The agent (MCP) endpoint through the path an agent takes: the SDK's own Client and
// StreamableHTTPClientTransport over real HTTP on loopback, against the real emulator: an agent
// authors, a person enables, the agent launches, waits and explains; a restart keeps it all.
// Who may call the endpoint is mcp-access.test.ts.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Validator } from "@seriousme/openapi-schema-validator";
import { toolsOf } from "@wfr/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/index.js";
import { BOTH_SCOPES, http, type Json, PORTAL, portalBody } from "../conformance/support.js";
import { agentClient, call, ENV, errorText } from "./agent-client.js";
import { EXPECTED } from "./expected-tools.js";

let dir: string;
let data: string;
let emu: RunningEmulator;
const { clients, adminPost, personalToken, connect, closeClients } = agentClient(() => emu);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfr-mcp-"));
  data = join(dir, "journal.jsonl");
  emu = await startEmulator({ port: 0, clock: "virtual", data });
});

afterAll(async () => {
  await closeClients();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

describe("/mcp: an agent authors, a person enables, the agent launches, waits and explains", () => {
  let token: string;
  let agent: Client;
  let workflowId: string;
  let runId: string;

  beforeAll(async () => {
    token = (await personalToken()).token;
    agent = await connect(token);
  });

  it("lists every tool with its schemas and honest annotations; none answers or cancels", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(toolsOf("emulator").sort());
    expect(toolsOf("emulator").every((name) => name in EXPECTED)).toBe(true);
    for (const tool of tools) {
      const want = EXPECTED[tool.name];
      if (!want) throw new Error(`unexpected tool ${tool.name}`);
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: want.readOnly,
        idempotentHint: want.idempotent,
        destructiveHint: want.destructive,
      });
      expect(tool.inputSchema.type).toBe("object");
      expect((tool.inputSchema.required ?? []).slice().sort(), tool.name).toEqual(
        want.required.slice().sort(),
      );
      expect(Object.keys(tool.outputSchema?.properties ?? {}), tool.name).toEqual(
        expect.arrayContaining(want.out),
      );
      // The decision stays with a person: no tool takes an answer or talks of cancelling.
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toEqual(
        expect.arrayContaining(["response"]),
      );
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("checkpoint_id");
      expect(tool.name).not.toMatch(/answer|cancel|respond|human_input|approve|reject/);
    }
  });

  it("start_authoring_session gives the person a live view link that expires", async () => {
    const r = await call(agent, "start_authoring_session", { purpose: "Approve large invoices" });
    expect(r.isError).toBeFalsy();
    const s = r.structuredContent;
    expect(s.live_view_url).toBe(`${emu.url}/${ENV}/portal/authoring/${s.session_id}/live`);
    const now = Date.parse((await http("GET", `${emu.url}/_emulator/clock`)).body.now);
    expect(Date.parse(s.expires_at)).toBe(now + 30 * 60_000);
    // The link is a portal page: a person's portal session opens it, a bare request does not.
    expect((await http("GET", s.live_view_url)).status).toBe(401);
    const { cookie } = await adminPost("/portal-sessions", { environment: ENV });
    const page = await http("GET", s.live_view_url, undefined, { cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Approve large invoices");
    // It expires (emulator clock): afterwards the page is gone.
    await adminPost("/clock/advance", { ms: 30 * 60_000 });
    const expired = await http("GET", s.live_view_url, undefined, { cookie });
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe("AUTHORING_SESSION_EXPIRED");
  });

  it("save_workflow saves a draft that is in the definition but not launchable", async () => {
    const r = await call(agent, "save_workflow", {
      name: "Large invoice approval",
      description: "Asks a person before booking a large invoice.",
      inputs: [
        { name: "vendor", type: "text", required: true },
        { name: "amount", type: "number", required: true },
        { name: "note", type: "text" },
      ],
      outputs: [{ name: "approved", type: "boolean" }],
      scenario: {
        steps: [
          { wait_ms: 5000 },
          {
            human: {
              kind: "approval",
              reason: "Amount above limit",
              instructions: "Approve the invoice?",
              stop_condition: "approved or rejected",
              expires_in_ms: 3_600_000,
            },
          },
          { succeed: { outputs: { approved: true } } },
        ],
      },
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      name: "Large invoice approval",
      state: "draft",
      revision: 1,
    });
    workflowId = r.structuredContent.id;

    const doc = (await http("GET", `${emu.url}/${ENV}/api-docs/openapi.json`)).body;
    const op = doc.paths[`/automations/${workflowId}/runs`].post;
    expect(op["x-workflow"]).toMatchObject({ id: workflowId, state: "draft", revision: 1 });
    const inputs = doc.components.schemas[`Workflow_${workflowId}_Inputs`];
    expect(inputs).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["vendor", "amount"],
      properties: {
        vendor: { type: "string", "x-input-type": "text" },
        amount: { type: "number", "x-input-type": "number" },
      },
    });

    const drafts = await call(agent, "list_workflows", { state: "draft" });
    expect(drafts.structuredContent.workflows).toContainEqual({
      id: workflowId,
      name: "Large invoice approval",
      state: "draft",
      revision: 1,
    });

    const refused = await call(agent, "launch_run", {
      workflow_id: workflowId,
      inputs: { vendor: "Acme", amount: 5000 },
      idempotency_key: "draft-try",
    });
    expect(refused.isError).toBe(true);
    expect(errorText(refused)).toMatch(/^WORKFLOW_NOT_ENABLED: /);
    expect(errorText(refused)).toContain("a person enables");
  });

  it("a bad draft is a tool error naming the field", async () => {
    const r = await call(agent, "save_workflow", {
      name: "Dup",
      inputs: [
        { name: "a", type: "text" },
        { name: "a", type: "number" },
      ],
      outputs: [],
    });
    expect(r.isError).toBe(true);
    expect(errorText(r)).toMatch(/^INVALID_WORKFLOW: \/inputs\/1\/name: duplicate field "a"/);
    const s = await call(agent, "save_workflow", {
      name: "Bad scenario",
      inputs: [],
      outputs: [],
      scenario: { steps: [{ wait_ms: -1 }] },
    });
    expect(errorText(s)).toMatch(/^INVALID_SCENARIO: \/scenario: steps\[0\]/);
  });

  it("a draft with every field type is a valid definition; enabled, it launches with files and succeeds", async () => {
    const all = ["text", "number", "integer", "boolean", "json", "file", "files"];
    const saved = await call(agent, "save_workflow", {
      name: "Every field type",
      inputs: [
        ...all.map((type) => ({ name: `in_${type}`, type, required: true })),
        { name: "choice", type: "text", enum: ["a", "b"] },
      ],
      outputs: all.map((type) => ({ name: `out_${type}`, type })),
      scenario: { steps: [{ succeed: {} }], queue_ms: 0, start_ms: 0 },
    });
    const id = saved.structuredContent.id as string;
    const doc = (await http("GET", `${emu.url}/${ENV}/api-docs/openapi.json`)).body;
    const checked = await new Validator().validate(doc);
    expect(checked.errors ?? []).toEqual([]);
    expect(checked.valid).toBe(true);
    const r = await http("PUT", `${emu.url}/_emulator/environments/${ENV}/workflows/${id}/state`, {
      state: "enabled",
    });
    expect(r.status).toBe(200);
    const pdf = { filename: "a.pdf", mime_type: "application/pdf", base64: "JVBERi0xLjQK" };
    const args = {
      workflow_id: id,
      inputs: {
        in_text: "t",
        in_number: 1.5,
        in_integer: 2,
        in_boolean: true,
        in_json: { a: 1 },
        choice: "b",
      },
      files: { in_file: pdf, in_files: [pdf, pdf] },
      idempotency_key: "every-type",
    };
    const launched = await call(agent, "launch_run", args);
    expect(launched.isError).toBeFalsy();
    // Files become numbered attachments, so the identical request replays the same run.
    const again = await call(agent, "launch_run", args);
    expect(again.structuredContent.run_id).toBe(launched.structuredContent.run_id);
    const done = await call(agent, "get_run_result", { run_id: launched.structuredContent.run_id });
    expect(done.structuredContent).toMatchObject({
      state: "terminal",
      status: "succeeded",
      succeeded: true,
    });
    expect(Object.keys(done.structuredContent.outputs).sort()).toEqual(
      all.map((t) => `out_${t}`).sort(),
    );
    const wrong = await call(agent, "launch_run", {
      ...args,
      inputs: { ...args.inputs, in_number: "1.5" },
      idempotency_key: "every-type-2",
    });
    expect(errorText(wrong)).toMatch(/^INVALID_INPUTS: .*in_number INVALID_TYPE/);
  });

  it("only a person's portal session enables the draft (not a bare or cross-site request)", async () => {
    const enable = `${emu.url}/${ENV}/portal/workflows/${workflowId}/enable`;
    const bare = await http("POST", enable, {});
    expect(bare.status).toBe(401);
    expect(bare.body.code).toBe("PORTAL_SESSION_REQUIRED");
    // A personal access token is not a portal session either.
    const withToken = await http("POST", enable, {}, { authorization: `Bearer ${token}` });
    expect(withToken.status).toBe(401);
    const { cookie } = await adminPost("/portal-sessions", { environment: ENV });
    const crossSite = await http("POST", enable, {}, { cookie, origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    const ok = await http("POST", enable, {}, { cookie });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ workflow_id: workflowId, state: "enabled" });
    const listed = await call(agent, "list_workflows", { state: "enabled" });
    expect(listed.structuredContent.workflows.map((w: Json) => w.id)).toContain(workflowId);
  });

  it("launch_run with a key; the same key again is the same run; a changed body is IDEMPOTENCY_CONFLICT", async () => {
    const args = {
      workflow_id: workflowId,
      inputs: { vendor: "Acme", amount: 5000 },
      metadata: { ticket: "T-1" },
      idempotency_key: "agent-k1",
    };
    const first = await call(agent, "launch_run", args);
    expect(first.isError).toBeFalsy();
    runId = first.structuredContent.run_id;
    expect(first.structuredContent).toMatchObject({
      workflow_id: workflowId,
      terminal: false,
      needs_person: false,
    });
    const again = await call(agent, "launch_run", args);
    expect(again.structuredContent.run_id).toBe(runId);
    const changed = await call(agent, "launch_run", {
      ...args,
      inputs: { vendor: "Acme", amount: 9 },
    });
    expect(changed.isError).toBe(true);
    expect(errorText(changed)).toMatch(/^IDEMPOTENCY_CONFLICT: /);
    expect(errorText(changed)).toContain("use a new idempotency_key");
    expect(errorText(changed)).not.toMatch(/\bat .*\.(ts|js):\d+/); // never a stack

    const bad = await call(agent, "launch_run", {
      ...args,
      inputs: { vendor: 1, amount: 1 },
      idempotency_key: "k2",
    });
    expect(errorText(bad)).toMatch(/^INVALID_INPUTS: .*vendor INVALID_TYPE/);

    // The run history marks it as started through MCP.
    const history = (await http("GET", `${emu.url}/_emulator/environments/${ENV}/runs/${runId}`))
      .body;
    expect(history.source).toBe("mcp");
    expect(history.idempotency_key).toBe("agent-k1");
  });

  it("wait_for_run returns the current state at its bound (not an error), with progress notifications", async () => {
    const progress: unknown[] = [];
    const r = await call(agent, "wait_for_run", { run_id: runId, timeout_seconds: 1 }, (p) =>
      progress.push(p),
    );
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ run_id: runId, timed_out: true, terminal: false });
    expect(progress.length).toBeGreaterThan(0);
    const result = await call(agent, "get_run_result", { run_id: runId });
    expect(result.structuredContent).toMatchObject({ state: "pending", succeeded: false });
  });

  it("wait_for_run stops when a person is needed; explain_human_wait says why and where", async () => {
    await adminPost("/clock/advance", { ms: 10_000 });
    const r = await call(agent, "wait_for_run", { run_id: runId, timeout_seconds: 60 });
    expect(r.structuredContent).toMatchObject({
      status: "waiting_for_human_live",
      needs_person: true,
      timed_out: false,
      person_url: `${emu.url}/${ENV}/portal/runs/${runId}/live`,
    });
    const why = await call(agent, "explain_human_wait", { run_id: runId });
    expect(why.structuredContent).toMatchObject({
      waiting: true,
      kind: "approval",
      reason: "Amount above limit",
      instructions: "Approve the invoice?",
      stop_condition: "approved or rejected",
      response_accepted: false,
      person_url: `${emu.url}/${ENV}/portal/runs/${runId}/live`,
    });
    expect(errorText(why)).toContain("no tool answers it");
    const events = await call(agent, "get_run_events", { run_id: runId });
    expect(events.structuredContent.events.events.map((e: Json) => e.type)).toContain(
      "human.requested",
    );

    // Nothing the agent did answered it: the checkpoint is still unanswered.
    const history = (await http("GET", `${emu.url}/_emulator/environments/${ENV}/runs/${runId}`))
      .body;
    expect(history.status).toBe("waiting_for_human_live");
    expect(history.checkpoints).toHaveLength(1);
    expect(history.checkpoints[0].answered).toBe(false);
  });

  it("offers the person's link by URL-mode elicitation to a client that supports it", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${emu.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client(
      { name: "elicit-test", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } } },
    );
    const offered: Json[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      offered.push(request.params);
      return { action: "accept" };
    });
    await client.connect(transport);
    clients.push(client);
    await call(client, "explain_human_wait", { run_id: runId });
    expect(offered).toEqual([
      expect.objectContaining({
        mode: "url",
        url: `${emu.url}/${ENV}/portal/runs/${runId}/live`,
        message: expect.stringContaining("Amount above limit"),
      }),
    ]);
  });

  it("another workspace's person sees none of this workspace's workflows or runs", async () => {
    const other = await adminPost("/personal-access-tokens", {
      environment: ENV,
      workspace: "ws_other",
    });
    const stranger = await connect(other.token);
    const listed = await call(stranger, "list_workflows", {});
    expect(listed.structuredContent.workflows).toEqual([]);
    const run = await call(stranger, "get_run", { run_id: runId });
    expect(errorText(run)).toMatch(/^RUN_NOT_FOUND: /);
  });
});

describe("/mcp: a restart keeps tokens and drafts", () => {
  it("tokens (and revocations) and an enabled draft survive a restart from the journal", async () => {
    const kept = await personalToken();
    const revoked = await personalToken();
    await http("DELETE", `${emu.url}/_emulator/personal-access-tokens/${revoked.id}`);
    // Superseded records (tokens made and revoked) so that the restart compacts the journal.
    for (let i = 0; i < 60; i += 1) {
      const t = await personalToken();
      await http("DELETE", `${emu.url}/_emulator/personal-access-tokens/${t.id}`);
    }
    const agent = await connect(kept.token);
    const saved = await call(agent, "save_workflow", {
      name: "Kept draft",
      inputs: [{ name: "q", type: "text", required: true }],
      outputs: [],
    });
    const draftId = saved.structuredContent.id as string;
    await agent.close();
    const key = (await adminPost("/keys", { environment: ENV, scopes: BOTH_SCOPES })).token;
    const launched = await http(
      "POST",
      `${emu.url}/${ENV}/api/v1/automations/${PORTAL}/runs`,
      portalBody(),
      {
        authorization: `Bearer ${key}`,
      },
    );
    expect(launched.status).toBe(202);
    const apiRun = launched.body.run_id as string;

    await emu.close();
    emu = await startEmulator({ port: 0, clock: "virtual", data });

    const again = await connect(kept.token);
    const drafts = await call(again, "list_workflows", { state: "draft" });
    expect(drafts.structuredContent.workflows.map((w: Json) => w.id)).toContain(draftId);
    // The workflow enabled by a person before the restart is still enabled.
    const enabled = await call(again, "list_workflows", { state: "enabled" });
    expect(enabled.structuredContent.workflows.map((w: Json) => w.name)).toContain(
      "Large invoice approval",
    );
    const r = await http(
      "POST",
      `${emu.url}/mcp`,
      {},
      { authorization: `Bearer ${revoked.token}` },
    );
    expect(r.status).toBe(401);
    await again.close();

    // The first restart compacted the journal (one record per live thing: the revocation is
    // gone with the token); start from that too.
    expect(await readFile(data, "utf8")).not.toContain('"t":"pat_revoked"');
    await emu.close();
    emu = await startEmulator({ port: 0, clock: "virtual", data });
    const third = await connect(kept.token);
    const after = await call(third, "list_workflows", {});
    const byName = Object.fromEntries(
      after.structuredContent.workflows.map((w: Json) => [w.name, w.state]),
    );
    expect(byName).toMatchObject({ "Kept draft": "draft", "Large invoice approval": "enabled" });
    // The runs the agent started are still marked as started through MCP; the API's are not.
    const runs = (await http("GET", `${emu.url}/_emulator/environments/${ENV}/runs`)).body.runs;
    const sources = Object.fromEntries(runs.map((r: Json) => [r.run_id, r.source]));
    expect(sources[apiRun]).toBe("api");
    expect(Object.values(sources).filter((v) => v === "mcp").length).toBeGreaterThanOrEqual(2);
    const refused = await http(
      "POST",
      `${emu.url}/mcp`,
      {},
      { authorization: `Bearer ${revoked.token}` },
    );
    expect(refused.status).toBe(401);
  });
});
