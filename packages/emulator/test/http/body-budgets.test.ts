// docs/limits.md: each input surface of the emulator at ten times its budget (at least 32 MiB,
// `oversizedTotal`, so a body kept whole stands out of the churn), against the
// emulator in a process of its own (dist/bin.js, as a team runs it): the documented refusal,
// the process's peak memory growth under twice the budget (the probe of `@wfr/test-servers`),
// and another caller answered while the oversized body was still arriving. Bodies are streamed
// without a Content-Length, so the server has to count; the sender stops once answered.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  type Answer,
  filler,
  MiB,
  memoryTarget,
  oversizedTotal,
  peakGrowth,
  streamTo,
} from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_LIMIT } from "../../src/admin/admin-routes.js";
import { DRAFT_BUDGET } from "../../src/agent/draft-budget.js";
import { MCP_CALL_LIMIT } from "../../src/agent/mcp-endpoint/mcp-body.js";
import { OAUTH_BODY_LIMIT } from "../../src/agent/oauth/oauth-routes.js";
import { BODY_LIMIT } from "../../src/api/launch-body.js";
import { MAX_SCENARIO_STEPS } from "../../src/engine/scenario.js";
import { PORTAL_LIMIT } from "../../src/server/surfaces.js";
import { FORM_LIMIT } from "../../src/web-app/guards.js";
import { SEARCHED_METADATA_CHARS } from "../../src/web-app/search-text.js";
import { DRAFT, INVOICE } from "../conformance/support.js";

const BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const json = { "content-type": "application/json" };
let child: ChildProcess;
let base = "";

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [BIN, "--port", "0", "--host", "127.0.0.1", "--clock", "virtual"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  base = await new Promise<string>((ready, fail) => {
    let out = "";
    child.stdout?.on("data", (d) => {
      out += d;
      const found = /wfr-emulator listening on (\S+)/.exec(out)?.[1];
      if (found) ready(found.replace(/\/$/, ""));
    });
    child.once("exit", () => fail(new Error(`wfr-emulator exited: ${out}`)));
  });
}, 60_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    const closed = new Promise((r) => child.once("close", r));
    child.kill("SIGTERM");
    await closed;
  }
});

async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${base}/_emulator${path}`, {
    method: "POST",
    headers: json,
    body: JSON.stringify(body),
  });
  return (await r.json()) as Record<string, unknown>;
}

/** Another caller: a cheap request, answered (true) or not. */
const otherCaller = async () => (await fetch(`${base}/_emulator/clock`)).status === 200;

/** `chunks` to `path` at ten times `budget`, another caller let in half-way through the budget. */
async function oversized(
  path: string,
  budget: number,
  headers: Record<string, string>,
  chunks: Iterable<Buffer | string>,
  method = "POST",
): Promise<{ answer: Answer; growth: number }> {
  const pid = child.pid as number;
  await otherCaller(); // its route compiled before the measurement
  const { result, growth } = await peakGrowth(pid, () =>
    streamTo(`${base}${path}`, { method, headers, chunks, midway: budget / 2, other: otherCaller }),
  );
  return { answer: result, growth };
}

/** What a ten-times send came to, for the failure message of any of its checks. */
const seen = (r: { answer: Answer; growth: number }) =>
  `answered ${r.answer.status} (${r.answer.text.slice(0, 120)}), another caller answered meanwhile: ${r.answer.otherAnswered}, peak growth ${(r.growth / MiB).toFixed(1)} MiB`;

const codeOf = (a: Answer) => (JSON.parse(a.text) as { code?: string }).code;

describe("route body budgets at ten times", { timeout: 300_000 }, () => {
  it("a launch: 10 x 36 MiB is 413 BODY_TOO_LARGE; the peak grows under 72 MiB; another caller was answered meanwhile", async () => {
    const key = await admin("/keys", { environment: "production" });
    const r = await oversized(
      `/production/api/v1/automations/${INVOICE}/runs`,
      BODY_LIMIT,
      { ...json, authorization: `Bearer ${key.token}` },
      filler(oversizedTotal(BODY_LIMIT), 0x20),
    );
    expect([r.answer.status, codeOf(r.answer)], seen(r)).toEqual([413, "BODY_TOO_LARGE"]);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(BODY_LIMIT));
  });

  it("/mcp: a launch_run of 10 x 36 MiB, with a token, is 413 BODY_TOO_LARGE within the memory target", async () => {
    const token = await admin("/personal-access-tokens", { environment: "production" });
    const r = await oversized(
      "/mcp",
      BODY_LIMIT,
      { ...json, authorization: `Bearer ${token.token}` },
      toolCall(
        "launch_run",
        (function* () {
          yield `{"workflow_id":"${INVOICE}","inputs":{},"idempotency_key":"k","files":{"invoice_pdf":{"filename":"i.pdf","mime_type":"application/pdf","base64":"`;
          yield* filler(oversizedTotal(BODY_LIMIT), 0x41);
          yield '"}}}';
        })(),
      ),
    );
    expect([r.answer.status, codeOf(r.answer)], seen(r)).toEqual([413, "BODY_TOO_LARGE"]);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(BODY_LIMIT));
  });

  it("/mcp: any other request, 16 x its 2 MiB, is 413 BODY_TOO_LARGE naming that budget, within twice it", async () => {
    const token = await admin("/personal-access-tokens", { environment: "production" });
    const r = await oversized(
      "/mcp",
      MCP_CALL_LIMIT,
      { ...json, authorization: `Bearer ${token.token}` },
      toolCall(
        "get_run",
        (function* () {
          yield '{"run_id":"';
          yield* filler(oversizedTotal(MCP_CALL_LIMIT), 0x41);
          yield '"}';
        })(),
      ),
    );
    expect([r.answer.status, codeOf(r.answer)], seen(r)).toEqual([413, "BODY_TOO_LARGE"]);
    expect(r.answer.text).toContain(`exceeds ${MCP_CALL_LIMIT} bytes`);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(MCP_CALL_LIMIT));
  });

  it("the admin API: 10 x 8 MiB is 413 BODY_TOO_LARGE within the memory target", async () => {
    const r = await oversized(
      "/_emulator/keys",
      ADMIN_LIMIT,
      json,
      filler(oversizedTotal(ADMIN_LIMIT)),
    );
    expect([r.answer.status, codeOf(r.answer)], seen(r)).toEqual([413, "BODY_TOO_LARGE"]);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(ADMIN_LIMIT));
  });

  it("a portal action: 32 MiB against its 64 KiB, signed in, is 413 BODY_TOO_LARGE within the memory target", async () => {
    const session = await admin("/portal-sessions", { environment: "production" });
    const r = await oversized(
      `/production/portal/workflows/${DRAFT}/enable`,
      PORTAL_LIMIT,
      { ...json, cookie: String(session.cookie) },
      filler(oversizedTotal(PORTAL_LIMIT)),
    );
    expect([r.answer.status, codeOf(r.answer)], seen(r)).toEqual([413, "BODY_TOO_LARGE"]);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(PORTAL_LIMIT));
  });

  it("a web application form: 32 MiB against its 1 MiB, signed in, is 413 within the memory target", async () => {
    const r = await oversized(
      "/_app/api-faults",
      FORM_LIMIT,
      { "content-type": "application/x-www-form-urlencoded", cookie: await webAppCookie() },
      filler(oversizedTotal(FORM_LIMIT)),
    );
    expect(r.answer.status, seen(r)).toBe(413);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(FORM_LIMIT));
  });

  it("the OAuth endpoints: 32 MiB against their 64 KiB to registration, token and revocation is 413 BODY_TOO_LARGE", async () => {
    for (const [path, type] of [
      ["/oauth/register", "application/json"],
      ["/oauth/token", "application/x-www-form-urlencoded"],
      ["/oauth/revoke", "application/x-www-form-urlencoded"],
    ] as const) {
      const r = await oversized(
        path,
        OAUTH_BODY_LIMIT,
        { "content-type": type },
        filler(oversizedTotal(OAUTH_BODY_LIMIT)),
      );
      expect([r.answer.status, codeOf(r.answer)], path).toEqual([413, "BODY_TOO_LARGE"]);
      expect(r.growth, path).toBeLessThan(memoryTarget(OAUTH_BODY_LIMIT));
    }
  });
});

async function webAppCookie(): Promise<string> {
  const link = await admin("/sign-in-links", {});
  const signIn = await fetch(String(link.url), { redirect: "manual" });
  return (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
}

/** An MCP session's headers (initialize, then initialized), with a person's token. */
async function mcpSession(): Promise<Record<string, string>> {
  const token = await admin("/personal-access-tokens", { environment: "production" });
  const headers = {
    ...json,
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${token.token}`,
  };
  const rpc = (body: unknown, more: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: { ...headers, ...more },
      body: JSON.stringify(body),
    });
  const init = await rpc({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "budgets", version: "1" },
    },
  });
  await init.text();
  const session = {
    ...headers,
    "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
    "mcp-protocol-version": "2025-06-18",
  };
  await (await rpc({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  return session;
}

/** The text of a tool's answer, from a JSON or an event-stream body. */
function toolText(a: Answer): string {
  const data = /^data: (.*)$/m.exec(a.text)?.[1] ?? a.text;
  const message = JSON.parse(data) as { result?: { content?: { text?: string }[] } };
  return message.result?.content?.[0]?.text ?? data;
}

/** A tools/call body as the SDK's client sends it (the id last), its arguments from chunks. */
function* toolCall(
  name: string,
  argumentChunks: Iterable<Buffer | string>,
): Generator<Buffer | string> {
  yield `{"method":"tools/call","params":{"name":"${name}","arguments":`;
  yield* argumentChunks;
  yield '},"jsonrpc":"2.0","id":2}';
}

const saveWorkflow = (argumentChunks: Iterable<Buffer | string>) =>
  toolCall("save_workflow", argumentChunks);

describe("drafts, scenarios and the metadata search at ten times", { timeout: 300_000 }, () => {
  it("save_workflow of ten times the draft's bytes is DRAFT_TOO_LARGE, read through and never kept: the peak stays under twice the draft's budget", async () => {
    const session = await mcpSession();
    const r = await oversized(
      "/mcp",
      DRAFT_BUDGET.bytes,
      session,
      saveWorkflow(
        (function* () {
          yield '{"name":"Too many bytes","inputs":[],"outputs":[],"scenario":{"steps":[{"event":{"type":"step.note","text":"';
          yield* filler(10 * DRAFT_BUDGET.bytes);
          yield '"}}]}}';
        })(),
      ),
    );
    expect(toolText(r.answer)).toMatch(/^DRAFT_TOO_LARGE: \/: .*\nNext: /s);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(DRAFT_BUDGET.bytes));
  });

  it("save_workflow of ten times the fields is DRAFT_TOO_LARGE within twice the draft's byte budget", async () => {
    const session = await mcpSession();
    const r = await oversized(
      "/mcp",
      DRAFT_BUDGET.bytes,
      session,
      saveWorkflow(
        (function* () {
          // Written 64 KiB at a time, as a client sends a body: 20,000 writes of one field each
          // arrive as as many small socket reads, whose buffers alone grew any route by 10 MiB.
          let pending = '{"name":"Too many fields","outputs":[],"inputs":[';
          for (let i = 0; i < 10 * DRAFT_BUDGET.fields; i++) {
            pending += `${i ? "," : ""}{"name":"f${i}","type":"text"}`;
            if (pending.length >= 64 * 1024) {
              yield pending;
              pending = "";
            }
          }
          yield `${pending}]}`;
        })(),
      ),
    );
    expect(toolText(r.answer)).toMatch(/^DRAFT_TOO_LARGE: \/inputs: 20000 fields.*\nNext: /s);
    expect(r.answer.otherAnswered, seen(r)).toBe(true);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(DRAFT_BUDGET.bytes));
  });

  it("a scenario of ten times the steps through the admin API is 400 naming the limit, within twice the admin body budget that carries it", async () => {
    const r = await oversized(
      `/_emulator/environments/production/workflows/${INVOICE}/scenario`,
      ADMIN_LIMIT,
      json,
      (function* () {
        yield '{"steps":[';
        const thousand = Array(1000).fill('{"wait_ms":1}').join(",");
        for (let i = 0; i < 10 * MAX_SCENARIO_STEPS; i += 1000) yield `${i ? "," : ""}${thousand}`;
        yield "]}";
      })(),
      "PUT",
    );
    expect(r.answer.status, seen(r)).toBe(400);
    expect(r.answer.text).toContain(`at most ${MAX_SCENARIO_STEPS}`);
    expect(r.growth, seen(r)).toBeLessThan(memoryTarget(ADMIN_LIMIT));
  });

  it("the run history's search reads the first 64 KiB of each run's metadata: twenty runs of ten times that cost under twice what it reads, and a word past it is not found", async () => {
    const RUNS = 20;
    const key = await admin("/keys", { environment: "production" });
    const metadataOf = (i: number) => ({
      head: `within-the-budget-${i}`,
      note: "x".repeat(10 * SEARCHED_METADATA_CHARS),
      tail: "beyond-the-budget",
    });
    for (let i = 0; i < RUNS; i++) {
      const r = await fetch(`${base}/production/api/v1/automations/${INVOICE}/runs`, {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${key.token}` },
        body: JSON.stringify({
          inputs: { vendor_name: "A", amount: 1, invoice_pdf: { attachment_id: "a1" } },
          input_context: {
            attachments: [
              { id: "a1", filename: "i.pdf", mimeType: "application/pdf", base64: "JVBERg==" },
            ],
          },
          metadata: metadataOf(i),
        }),
      });
      expect(r.status).toBe(202);
    }
    const cookie = await webAppCookie();
    const search = async (q: string) =>
      (await fetch(`${base}/_app/runs/rows?q=${q}`, { headers: { cookie } })).text();
    const { result, growth } = await peakGrowth(child.pid as number, () =>
      search("beyond-the-budget"),
    );
    expect(result).toContain("No runs match");
    expect(growth).toBeLessThan(memoryTarget(RUNS * SEARCHED_METADATA_CHARS));
    expect(await search("within-the-budget-7")).toContain("data-run-id");
  });
});
