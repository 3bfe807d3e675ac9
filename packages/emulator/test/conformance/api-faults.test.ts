// Faults on the API itself (api-faults.ts): armed from the admin API, the web app and the start
// options; what each does to a request; listed, logged, and kept across a restart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulator } from "../../src/index.js";
import { type Client, Harness, http, type Json, PORTAL, portalBody } from "./support.js";

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
});
afterAll(async () => {
  await h.close();
});
afterEach(async () => {
  await h.admin("DELETE", "/api-faults");
});

const arm = (body: Record<string, unknown>) => h.admin("POST", "/api-faults", body);
const launchRoute = "POST /automations/*/runs";
const runCount = async () => (await h.runs()).length;

describe("API faults from the admin API", () => {
  it("answers a status fault instead of handling the request, its count of times", async () => {
    const rule = await arm({ route: launchRoute, fault: "status", status: 503, count: 2 });
    expect(rule.status, rule.text).toBe(201);
    expect(rule.body).toMatchObject({ route: launchRoute, remaining: 2, hits: 0 });
    const before = await runCount();
    for (let i = 0; i < 2; i++) {
      const r = await c.launch(PORTAL, portalBody());
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ code: "INJECTED", fault_id: rule.body.id });
    }
    expect(await runCount()).toBe(before);
    expect((await c.launch(PORTAL, portalBody())).status).toBe(202);
    const listed = (await h.admin("GET", "/api-faults")).body.faults as Json[];
    expect(listed).toEqual([expect.objectContaining({ id: rule.body.id, remaining: 0, hits: 2 })]);
  });

  it("a 429 carries Retry-After", async () => {
    await arm({ route: "GET /runs/*", fault: "status", status: 429, retry_after: 2 });
    const r = await c.api("GET", "/runs/run_missing");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("2");
    expect((await c.api("GET", "/runs/run_missing")).status).toBe(404);
  });

  it("drop handles the request, then closes the connection: a keyed retry replays the run", async () => {
    await arm({ route: launchRoute, fault: "drop" });
    const before = await runCount();
    const body = portalBody({ idempotency_key: "drop-1" });
    const lost = await c.launch(PORTAL, body).then(
      () => null,
      (e: unknown) => e,
    );
    expect(lost).toBeInstanceOf(Error); // fetch failed: no answer at all
    expect(await runCount()).toBe(before + 1); // yet the launch happened
    const retry = await c.launch(PORTAL, body);
    expect(retry.status).toBe(202);
    expect(await runCount()).toBe(before + 1);
    const runs = await h.runs();
    expect(runs.some((r: Json) => r.run_id === retry.body.run_id)).toBe(true);
  });

  it("stall sends the headers and half the body, then the rest", async () => {
    const run = await c.start(PORTAL, portalBody());
    await arm({ route: "GET /runs/{runId}", fault: "stall", ms: 300 });
    const res = await fetch(`${h.base()}/runs/${run.run_id}`, {
      headers: { authorization: `Bearer ${c.token}` },
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.length).toBeGreaterThan(1);
    expect(() => JSON.parse(Buffer.from(chunks[0] as Uint8Array).toString())).toThrow();
    expect(JSON.parse(Buffer.concat(chunks).toString()).run_id).toBe(run.run_id);
  });

  it("delay still answers normally; a rule for one workspace leaves the others alone", async () => {
    const other = await h.client("production", undefined, "ws_other");
    await arm({ route: "* /**", fault: "status", status: 500, workspace: "ws_other" });
    await arm({ route: "GET /runs/*", fault: "delay", ms: 50 });
    expect((await c.api("GET", "/runs/run_missing")).status).toBe(404);
    expect((await other.api("GET", "/runs/run_missing")).status).toBe(500);
  });

  it("refuses a bad rule naming the field, and removes a rule by id", async () => {
    const bad = await arm({ route: launchRoute, fault: "status", status: 404 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "INVALID_FAULT", field: "status" });
    const rule = await arm({ route: launchRoute, fault: "status", status: 502 });
    expect((await h.admin("DELETE", `/api-faults/${rule.body.id}`)).status).toBe(204);
    expect((await h.admin("DELETE", `/api-faults/${rule.body.id}`)).status).toBe(404);
    expect((await c.launch(PORTAL, portalBody())).status).toBe(202);
  });
});

describe("API faults across a restart, in the log and the web app", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("a rule and its count survive a restart; start options arm rules afresh", async () => {
    const dir = mkdtempSync(join(tmpdir(), "api-faults-"));
    dirs.push(dir);
    const data = join(dir, "journal.jsonl");
    const start = () =>
      startEmulator({
        data,
        clock: "virtual",
        apiFaults: [{ route: "DELETE /**", fault: "status", status: 503 }],
      });
    let emu = await start();
    try {
      const admin = (method: string, path: string, body?: unknown) =>
        http(method, `${emu.url}/_emulator${path}`, body);
      const key = (await admin("POST", "/keys", { environment: "production" })).body.token;
      const rule = (
        await admin("POST", "/api-faults", {
          route: "GET /runs/*",
          fault: "status",
          status: 503,
          count: 3,
        })
      ).body;
      const read = (url: string) =>
        http("GET", `${url}/production/api/v1/runs/run_missing`, undefined, {
          authorization: `Bearer ${key}`,
        });
      expect((await read(emu.url)).status).toBe(503);
      await emu.close();
      emu = await start();
      const listed = (await admin("GET", "/api-faults")).body.faults as Json[];
      expect(listed.find((f) => f.id === rule.id)).toMatchObject({ remaining: 2, hits: 1 });
      expect(listed.filter((f) => f.id === "flt_start_1")).toHaveLength(1);
      expect((await read(emu.url)).status).toBe(503);
      expect((await read(emu.url)).status).toBe(503);
      expect((await read(emu.url)).status).toBe(404);
    } finally {
      await emu.close();
    }
  }, 60_000);

  it("the request log names the fault; the web app lists, adds and removes faults", async () => {
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    vi.spyOn(process.stdout, "write").mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: unknown[]
    ) => {
      if (String(chunk).includes("fault=")) {
        lines.push(String(chunk));
        return true;
      }
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write);
    const emu = await startEmulator({ requestLog: "text", clock: "virtual" });
    try {
      const admin = (method: string, path: string, body?: unknown) =>
        http(method, `${emu.url}/_emulator${path}`, body);
      const key = (await admin("POST", "/keys", { environment: "production" })).body.token;
      const rule = (
        await admin("POST", "/api-faults", {
          route: "GET /runs/*",
          fault: "status",
          status: 429,
        })
      ).body;
      await http("GET", `${emu.url}/production/api/v1/runs/run_missing`, undefined, {
        authorization: `Bearer ${key}`,
      });
      expect(lines.join("")).toContain(`fault=${rule.id}:status:429`);

      const signIn = await fetch(emu.signInUrl, { redirect: "manual" });
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const page = async () =>
        (await fetch(`${emu.url}/_app/api-faults`, { headers: { cookie } })).text();
      const first = await page();
      expect(first).toContain(rule.id);
      const csrf = /name="csrf" value="([^"]+)"/.exec(first)?.[1] as string;
      const post = (path: string, fields: string) =>
        fetch(`${emu.url}${path}`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: `csrf=${encodeURIComponent(csrf)}${fields}`,
          redirect: "manual",
        });
      const added = await post(
        "/_app/api-faults",
        `&route=${encodeURIComponent("POST /automations/*/runs")}&fault=stall&ms=1500&count=2`,
      );
      expect(added.status).toBe(303);
      expect(decodeURIComponent(added.headers.get("location") ?? "")).toContain("API fault added");
      const refused = await post("/_app/api-faults", `&route=nonsense&fault=drop`);
      expect(decodeURIComponent(refused.headers.get("location") ?? "")).toContain("route must be");
      const faults = (await admin("GET", "/api-faults")).body.faults as Json[];
      expect(faults).toHaveLength(2);
      const stall = faults.find((f) => f.action.kind === "stall");
      expect(stall).toMatchObject({ remaining: 2, action: { kind: "stall", ms: 1500 } });
      expect(await page()).toContain("stall:1500ms");
      expect((await post(`/_app/api-faults/${stall.id}/remove`, "")).status).toBe(303);
      expect((await admin("GET", "/api-faults")).body.faults).toHaveLength(1);
    } finally {
      await emu.close();
    }
  }, 60_000);
});
