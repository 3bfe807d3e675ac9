// What an adversarial probe of the emulator found, each reproduced on loopback: oversized
// metadata, unsafe links and headers built from run outputs, forms that skipped the JSON depth
// limit, a CR/LF return path, the agent endpoint's session cap, invalid UTF-8 and duplicate Host.
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METADATA_MEMBER_LIMIT } from "../../src/api/launch-body.js";
import { startEmulator } from "../../src/index.js";
import { Receiver } from "./receiver.js";
import { type Client, Harness, http, type Json, PORTAL, portalBody, sleep } from "./support.js";

let h: Harness;
let c: Client;
let rx: Receiver;

beforeAll(async () => {
  rx = await Receiver.start();
  h = await Harness.start({ allowLocalCallbacks: true });
  c = await h.client();
  // Runs sit in a long wait, so only an injected fault moves them.
  await h.scenario("production", PORTAL, { steps: [{ wait_ms: 86_400_000 }, { succeed: {} }] });
});
afterAll(async () => {
  await h.close();
  await rx.close();
});

const fault = (runId: string, kind: string, body: unknown = {}) =>
  h.admin("POST", `/environments/production/runs/${runId}/faults/${kind}`, body);

async function liveRun(extra: Record<string, unknown> = {}): Promise<string> {
  const run = await c.start(PORTAL, portalBody(extra));
  await h.advance(500);
  return run.run_id as string;
}

/** A signed-in web-app session: its cookie and a CSRF token. */
async function webSession(url: string): Promise<{ cookie: string; csrf: string }> {
  const link = (await http("POST", `${url}/_emulator/sign-in-links`, {})).body.url as string;
  const signIn = await fetch(link, { redirect: "manual" });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const keys = await (await fetch(`${url}/_app/keys`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(keys)?.[1] as string };
}

function metadataOf(keys: number): Record<string, number> {
  const m: Record<string, number> = {};
  for (let i = 0; i < keys; i++) m[`k${i}`] = i;
  return m;
}

/** One raw HTTP/1.1 request over a socket (headers exactly as written); the status line. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => s.write(head));
    let out = "";
    s.on("data", (d) => {
      out += d.toString("latin1");
      if (out.includes("\r\n")) {
        s.destroy();
        resolve(out.split("\r\n")[0] as string);
      }
    });
    s.on("error", reject);
  });
}

describe("launch body", () => {
  it("refuses metadata over the emulator's member limit before parsing it, accepts it at the limit", async () => {
    const over = await c.launch(
      PORTAL,
      portalBody({ metadata: metadataOf(METADATA_MEMBER_LIMIT + 1) }),
    );
    expect(over.status, over.text).toBe(400);
    expect(over.body.code).toBe("INVALID_METADATA");
    expect(over.body.field).toBe("metadata");
    // Nested members count too.
    const nested = await c.launch(
      PORTAL,
      portalBody({
        metadata: { a: { b: Array.from({ length: METADATA_MEMBER_LIMIT + 1 }, () => 1) } },
      }),
    );
    expect(nested.status).toBe(400);
    const at = await c.launch(PORTAL, portalBody({ metadata: metadataOf(METADATA_MEMBER_LIMIT) }));
    expect(at.status, at.text).toBe(202);
    // A metadata key spelled with escapes is still metadata.
    const text = JSON.stringify(
      portalBody({ metadata: metadataOf(METADATA_MEMBER_LIMIT + 1) }),
    ).replace('"metadata"', '"\\u006detadata"');
    expect((await c.launch(PORTAL, text)).status).toBe(400);
  });

  it("answers INVALID_JSON for invalid UTF-8 inside a JSON string, never replaces it", async () => {
    const head = Buffer.from(
      JSON.stringify(portalBody({ metadata: { note: "X" } })).replace('"X"', '"\u0001"'),
    );
    const bytes = Buffer.from(head);
    bytes[bytes.indexOf(0x01)] = 0xff; // a lone 0xFF byte: never valid UTF-8
    const r = await c.launch(PORTAL, new Uint8Array(bytes));
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe("INVALID_JSON");
  });
});

describe("Host header", () => {
  it("answers 400 to a request with two Host headers", async () => {
    const port = Number(new URL(h.url).port);
    const ok = await rawRequest(
      port,
      `GET /_emulator/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    expect(ok).not.toContain(" 400 ");
    const two = await rawRequest(
      port,
      `GET /_emulator/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`,
    );
    expect(two).toContain(" 400 ");
  });
});

describe("files and links built from run outputs", () => {
  it("shows a javascript: download_url as text, never as a link", async () => {
    const id = await liveRun();
    const done = await fault(id, "succeed", {
      outputs: { report: { download_url: "javascript:alert(document.cookie)", filename: "r.pdf" } },
    });
    expect(done.status, done.text).toBe(200);
    const { cookie } = await webSession(h.url);
    const page = await (
      await fetch(`${h.url}/_app/runs/production/${id}`, { headers: { cookie } })
    ).text();
    expect(page).toContain("r.pdf");
    expect(page).not.toMatch(/href="javascript:/i);
  });

  it("escapes the file name in Content-Disposition: no second filename=, no 500 on CR/LF", async () => {
    const id = await liveRun();
    const base = `${h.url}/production/_files/${id}/0/`;
    const names = ['a"; filename="evil.exe', "a\r\nSet-Cookie: x=1.pdf"];
    const done = await fault(id, "succeed", {
      outputs: Object.fromEntries(
        names.map((n, i) => [`f${i}`, { download_url: `${base}${n}`, filename: n }]),
      ),
    });
    expect(done.status, done.text).toBe(200);
    for (const n of names) {
      const r = await fetch(`${base}${encodeURIComponent(n)}`);
      expect(r.status).toBe(200);
      const cd = r.headers.get("content-disposition") ?? "";
      // One quoted filename (no quote inside it can end it early), then the exact name.
      expect(cd).toMatch(/^attachment; filename="[^"\\\r\n]*"; filename\*=UTF-8''[^\s";]+$/);
      expect(cd).toContain(`filename*=UTF-8''${encodeURIComponent(n)}`);
      expect(r.headers.get("set-cookie")).toBeNull();
    }
  });
});

describe("web-app forms", () => {
  it("refuses outputs nested deeper than the API allows, and the run stays as it was, live and after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "probe-"));
    const data = join(dir, "journal.jsonl");
    let emu = await startEmulator({ port: 0, clock: "virtual", data });
    try {
      const url = String(emu.url).replace(/\/$/, "");
      const key = (await http("POST", `${url}/_emulator/keys`, { environment: "production" })).body
        .token as string;
      await http("PUT", `${url}/_emulator/environments/production/workflows/${PORTAL}/scenario`, {
        steps: [{ wait_ms: 86_400_000 }, { succeed: {} }],
      });
      const launched = await http(
        "POST",
        `${url}/production/api/v1/automations/${PORTAL}/runs`,
        portalBody(),
        { authorization: `Bearer ${key}` },
      );
      const id = launched.body.run_id as string;
      await http("POST", `${url}/_emulator/clock/advance`, { ms: 500 });
      const status = async () =>
        (
          await http("GET", `${url}/production/api/v1/runs/${id}`, undefined, {
            authorization: `Bearer ${key}`,
          })
        ).body.status as string;
      const before = await status();
      const { cookie, csrf } = await webSession(url);
      const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
      const r = await fetch(`${url}/_app/runs/production/${id}/faults/succeed`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: `csrf=${encodeURIComponent(csrf)}&outputs=${encodeURIComponent(deep)}`,
        redirect: "manual",
      });
      expect(r.status).toBe(400);
      expect(((await r.json()) as Json).code).toBe("INVALID_JSON");
      expect(await status()).toBe(before);
      await emu.close();
      emu = await startEmulator({ port: 0, clock: "virtual", data });
      const again = String(emu.url).replace(/\/$/, "");
      const after = await http("GET", `${again}/production/api/v1/runs/${id}`, undefined, {
        authorization: `Bearer ${key}`,
      });
      expect(after.body.status).toBe(before);
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("checks the Resend form's return path before resending: CR/LF goes back to /", async () => {
    const id = await liveRun({ callback_url: rx.url("/resend") });
    expect((await fault(id, "succeed")).status).toBe(200);
    let eventId: string | undefined;
    for (let i = 0; i < 400 && eventId === undefined; i++) {
      eventId = ((await h.callbacks()) as Json[]).find((a) => a.run_id === id)?.event_id;
      if (eventId === undefined) await sleep(25);
    }
    expect(eventId).toBeDefined();
    const { cookie, csrf } = await webSession(h.url);
    const r = await fetch(`${h.url}/_app/callbacks/production/${eventId}/resend`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${encodeURIComponent(csrf)}&back=${encodeURIComponent("/_app/x\r\nSet-Cookie: y=1")}`,
      redirect: "manual",
    });
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toMatch(/^\/\?msg=/);
    expect(r.headers.get("set-cookie")).toBeNull();
  });
});

describe("/mcp sessions", () => {
  // The cap is the same code at any size; a small one keeps the test to dozens of sessions
  // (each opens an MCP server) instead of the default's thousand.
  const CAP = 10;
  let mcp: Harness;
  beforeAll(async () => {
    mcp = await Harness.start({ mcpSessionsPerWorkspace: CAP });
  });
  afterAll(async () => {
    await mcp.close();
  });

  const initialize = (url: string, token: string) =>
    fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "probe", version: "1" },
        },
      }),
    });
  const listTools = (url: string, token: string, session: string) =>
    fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
  const open = async (token: string): Promise<string> => {
    const opened = await initialize(mcp.url, token);
    await opened.text();
    const session = opened.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    return session as string;
  };

  it("caps sessions per workspace: another workspace opening three times the cap evicts only its own oldest", async () => {
    const token = async (workspace?: string) =>
      (
        await mcp.admin("POST", "/personal-access-tokens", {
          environment: "production",
          ...(workspace ? { workspace } : {}),
        })
      ).body.token as string;
    const victim = await token();
    const attacker = await token("ws_other");
    const session = await open(victim);
    const attackers: string[] = [];
    for (let i = 0; i < 3 * CAP; i++) attackers.push(await open(attacker));

    const still = await listTools(mcp.url, victim, session);
    await still.text();
    expect(still.status).toBe(200);
    // The cap did act, on the attacker's own oldest session.
    const oldest = await listTools(mcp.url, attacker, attackers[0] as string);
    await oldest.text();
    expect(oldest.status).toBe(404);
    const newest = await listTools(mcp.url, attacker, attackers.at(-1) as string);
    await newest.text();
    expect(newest.status).toBe(200);
  }, 120_000);
});
