// docs/service-rules.md#portal-sessions-and-browser-access, "Authentication" 6, "States and transitions" 3: short-lived
// grants with exact origins open a run's live view from a browser; deleting one, letting it
// expire, or the viewer going away does not cancel the run.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Client, Harness, http, type Json, PORTAL, portalBody } from "./support.js";

const APP = "https://viewer.example.com";
let h: Harness;
let c: Client;
let dir: string;
let data: string;
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfr-grants-"));
  data = join(dir, "journal.jsonl");
  // The request log goes to stdout: keep every line (not printed) to show no token reaches it.
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    logged.push(String(chunk));
    return true;
  });
  h = await Harness.start({ data, requestLog: "text" });
  c = await h.client();
  // Runs stay live for a minute of clock time, so only what the test does can end them.
  await h.scenario("production", PORTAL, { steps: [{ wait_ms: 60_000 }, { succeed: {} }] });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

async function liveRun(): Promise<string> {
  const run = await c.start(PORTAL, portalBody());
  await c.until(run.run_id, (r) => r.status === "running");
  return run.run_id as string;
}

const grant = (runId: string, body: unknown) =>
  c.api("POST", `/runs/${runId}/browser-access-grants`, body);

const live = (runId: string, headers: Record<string, string>) =>
  http("GET", `${h.url}/production/portal/runs/${runId}/live`, undefined, headers);

async function newGrant(runId: string, extra: Record<string, unknown> = {}) {
  const r = await grant(runId, { origins: [APP], ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body as Json;
}

describe("browser-access grants", { timeout: 120_000 }, () => {
  it("are created for a run's session with exact origins and a short expiry, read without the token, and deleted", async () => {
    const id = await liveRun();
    const g = await newGrant(id, { expires_in_seconds: 120 });
    expect(g.token).toMatch(/^wfr_grant_/);
    expect(g).toMatchObject({ run_id: id, origins: [APP], expired: false });
    expect(g.session_id).toMatch(/\S/);
    expect(Date.parse(g.expires_at) - Date.parse(g.created_at)).toBe(120_000);
    const read = await c.api("GET", `/browser-access-grants/${g.grant_id}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(g.token);
    expect(read.body.grant_id).toBe(g.grant_id);
    expect((await c.api("DELETE", `/browser-access-grants/${g.grant_id}`)).status).toBe(204);
    expect((await c.api("GET", `/browser-access-grants/${g.grant_id}`)).status).toBe(404);
  });

  it("refuse wildcards, the null origin, paths, no origins and long expiries, naming the field", async () => {
    const id = await liveRun();
    const cases: [unknown, string][] = [
      [{ origins: ["https://*.example.com"] }, "origins[0]"],
      [{ origins: [APP, "null"] }, "origins[1]"],
      [{ origins: ["https://viewer.example.com/embed"] }, "origins[0]"],
      [{ origins: ["*"] }, "origins[0]"],
      [{ origins: [] }, "origins"],
      [{ origins: [APP], expires_in_seconds: 86_400 }, "expires_in_seconds"],
      [{ origins: [APP], scope: "all" }, "scope"],
    ];
    for (const [body, field] of cases) {
      const r = await grant(id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ code: "INVALID_GRANT", field });
    }
  });

  it("need runs:read and a run of the key's workspace", async () => {
    const id = await liveRun();
    const runOnly = await h.client("production", ["workflows:run"]);
    const r = await runOnly.api("POST", `/runs/${id}/browser-access-grants`, { origins: [APP] });
    expect(r.status).toBe(403);
    const other = await h.client("production", ["runs:read"], "ws_someone_else");
    const o = await other.api("POST", `/runs/${id}/browser-access-grants`, { origins: [APP] });
    expect(o.status).toBe(404);
  });

  it("open the live view from a permitted origin only (exact match, no null origin, header only)", async () => {
    const id = await liveRun();
    const g = await newGrant(id, { origins: [APP, "http://localhost:5173"] });
    const auth = { authorization: `Bearer ${g.token}` };
    const ok = await live(id, { ...auth, origin: APP });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    expect(ok.text).toContain(id);
    expect((await live(id, { ...auth, origin: "http://localhost:5173" })).status).toBe(200);
    for (const origin of ["https://evil.example.com", "null", "https://viewer.example.com:8443"]) {
      const r = await live(id, { ...auth, origin });
      expect(r.status, origin).toBe(403);
      expect(r.body.code).toBe("ORIGIN_NOT_PERMITTED");
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
    }
    expect((await live(id, auth)).status).toBe(403); // no Origin at all
    // Never in the URL: a token in the query string is refused before anything else.
    const q = await http("GET", `${h.url}/production/portal/runs/${id}/live?grant=${g.token}`);
    expect(q.status).toBe(400);
    expect(q.body.code).toBe("API_KEY_IN_QUERY");
    // A preflight from a permitted origin is answered; from another, not.
    const pre = await http("OPTIONS", `${h.url}/production/portal/runs/${id}/live`, undefined, {
      origin: APP,
      "access-control-request-headers": "authorization",
    });
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP);
    const bad = await http("OPTIONS", `${h.url}/production/portal/runs/${id}/live`, undefined, {
      origin: "https://evil.example.com",
    });
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a grant for run A does not open run B", async () => {
    const a = await liveRun();
    const b = await liveRun();
    const g = await newGrant(a);
    const r = await live(b, { authorization: `Bearer ${g.token}`, origin: APP });
    expect(r.status).toBe(404);
    expect(r.text).not.toContain(b);
  });

  it("deleting a grant closes the live view and does not cancel the run", async () => {
    const id = await liveRun();
    const g = await newGrant(id);
    const auth = { authorization: `Bearer ${g.token}`, origin: APP };
    expect((await live(id, auth)).status).toBe(200);
    expect((await c.api("DELETE", `/browser-access-grants/${g.grant_id}`)).status).toBe(204);
    const after = await live(id, auth);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("BROWSER_GRANT_INVALID");
    expect((await c.run(id)).body.status).toBe("running");
    const end = await c.untilTerminal(id, { stepMs: 5_000 });
    expect(end.status).toBe("succeeded");
  });

  it("an expired grant closes the live view and does not cancel the run", async () => {
    const id = await liveRun();
    const g = await newGrant(id, { expires_in_seconds: 5 });
    const auth = { authorization: `Bearer ${g.token}`, origin: APP };
    expect((await live(id, auth)).status).toBe(200);
    await h.advance(5_000);
    expect((await live(id, auth)).status).toBe(401);
    const read = await c.api("GET", `/browser-access-grants/${g.grant_id}`);
    expect(read.body.expired).toBe(true);
    expect((await c.run(id)).body.status).toBe("running");
    expect((await c.untilTerminal(id, { stepMs: 5_000 })).status).toBe("succeeded");
  });

  it("the viewer going away mid-request (browser interrupt) does not cancel the run", async () => {
    const id = await liveRun();
    const g = await newGrant(id);
    const { port } = new URL(h.url);
    // A viewer that sends its request and closes the connection without reading the answer.
    await new Promise<void>((resolve) => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: `/production/portal/runs/${id}/live`,
        headers: { authorization: `Bearer ${g.token}`, origin: APP },
      });
      req.on("error", () => resolve());
      req.on("close", () => resolve());
      req.end(() => req.destroy());
    });
    expect((await c.run(id)).body.status).toBe("running");
    expect((await live(id, { authorization: `Bearer ${g.token}`, origin: APP })).status).toBe(200);
    expect((await c.untilTerminal(id, { stepMs: 5_000 })).status).toBe("succeeded");
  });

  it("grant tokens appear in no log line, URL, run history or journal", async () => {
    const id = await liveRun();
    const g = await newGrant(id);
    await live(id, { authorization: `Bearer ${g.token}`, origin: APP });
    await http("GET", `${h.url}/production/portal/runs/${id}/live?t=${g.token}`);
    const history = await h.admin("GET", `/environments/production/runs/${id}`);
    expect(history.text).not.toContain(g.token);
    expect(logged.join("").length).toBeGreaterThan(0);
    expect(logged.join("")).toContain(`/production/portal/runs/${id}/live`);
    expect(logged.join("")).not.toContain(g.token);
    expect(readFileSync(data, "utf8")).not.toContain(g.token);
    expect(readFileSync(data, "utf8")).toContain(g.grant_id);
  });
});

describe("grants after a restart", { timeout: 120_000 }, () => {
  it("a grant still opens the live view after a restart; a deleted one stays deleted", async () => {
    const d = await mkdtemp(join(tmpdir(), "wfr-grants-restart-"));
    const file = join(d, "journal.jsonl");
    try {
      let h2 = await Harness.start({ data: file });
      let c2 = await h2.client();
      await h2.scenario("production", PORTAL, { steps: [{ wait_ms: 60_000 }, { succeed: {} }] });
      const run = await c2.start(PORTAL, portalBody());
      await c2.until(run.run_id, (r) => r.status === "running");
      const kept = (
        await c2.api("POST", `/runs/${run.run_id}/browser-access-grants`, {
          origins: [APP],
        })
      ).body as Json;
      const gone = (
        await c2.api("POST", `/runs/${run.run_id}/browser-access-grants`, {
          origins: [APP],
        })
      ).body as Json;
      await c2.api("DELETE", `/browser-access-grants/${gone.grant_id}`);
      await h2.close();
      h2 = await Harness.start({ data: file });
      c2 = new (c2.constructor as typeof Client)(h2, c2.token, "production");
      const url = `${h2.url}/production/portal/runs/${run.run_id}/live`;
      const ok = await http("GET", url, undefined, {
        authorization: `Bearer ${kept.token}`,
        origin: APP,
      });
      expect(ok.status).toBe(200);
      const no = await http("GET", url, undefined, {
        authorization: `Bearer ${gone.token}`,
        origin: APP,
      });
      expect(no.status).toBe(401);
      await h2.close();
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});
