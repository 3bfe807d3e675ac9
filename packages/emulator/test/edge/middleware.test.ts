// Each middleware alone (middleware.ts), on a request context made by hand: what it refuses,
// what it lets through (next() called), and what it adds. Their order is surfaces.ts's, tested
// end to end by the conformance suite.
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { BrowserAccessGrants } from "../../src/access/browser-access-grants.js";
import { tokenHash } from "../../src/access/credentials.js";
import { API_ROUTES } from "../../src/api/api-routes.js";
import {
  adminGuard,
  apiFaults,
  apiKey,
  type BodyContext,
  bodyWithin,
  corsHeaders,
  type EnvContext,
  hostCheck,
  type McpContext,
  mcpCaller,
  noKeyInQuery,
  type PortalContext,
  portalUser,
  requestIdAndLog,
  sameSite,
} from "../../src/edge/middleware.js";
import { ApiFaults, parseApiFault } from "../../src/faults/api-faults.js";
import { HttpError } from "../../src/http/http-kit.js";
import { type Middleware, type RequestContext, requestContext } from "../../src/http/router.js";
import type { EmulatorState } from "../../src/state/emulator-state.js";

/** A response that records what was set and sent. */
function fakeRes() {
  const headers: Record<string, string> = {};
  const res = {
    status: 0,
    body: "",
    headersSent: false,
    setHeader(k: string, v: string) {
      headers[k.toLowerCase()] = v;
    },
    writeHead(status: number, h: Record<string, string | number> = {}) {
      res.status = status;
      for (const [k, v] of Object.entries(h)) headers[k.toLowerCase()] = String(v);
      return res;
    },
    end(b?: string) {
      res.body = b ?? "";
      res.headersSent = true;
    },
    once() {},
    headers,
  };
  return res;
}

function ctxOf(
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
  rawHeaders: string[] = Object.entries(headers).flat(),
) {
  const res = fakeRes();
  const req = { url, method, headers, rawHeaders } as unknown as IncomingMessage;
  return { ctx: requestContext(req, res as unknown as ServerResponse), res };
}

/** Runs one middleware: "next" when it went on, else the HttpError it threw (or "answered"). */
async function run<C extends RequestContext>(
  m: Middleware<C>,
  ctx: C,
): Promise<string | HttpError> {
  let went = false;
  try {
    await m(ctx, async () => {
      went = true;
    });
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  return went ? "next" : "answered";
}

const st = (over: Record<string, unknown> = {}) =>
  ({
    keys: new Map(),
    cfg: { admin: true, corsOrigins: ["http://app.example"] },
    sameOrigins: () => new Set(["http://127.0.0.1:4010"]),
    grants: new BrowserAccessGrants(),
    clock: { now: () => 0 },
    ...over,
  }) as unknown as EmulatorState;

describe("requestIdAndLog", () => {
  it("gives every answer an X-Request-Id and goes on", async () => {
    const { ctx, res } = ctxOf("/");
    expect(await run(requestIdAndLog("off"), ctx)).toBe("next");
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
  });
});

describe("hostCheck", () => {
  const allowed = () => new Set(["127.0.0.1", "localhost"]);
  it("lets this emulator's names through, refuses others (421) and two Host headers (400)", async () => {
    expect(await run(hostCheck(allowed), ctxOf("/", { host: "127.0.0.1:4010" }).ctx)).toBe("next");
    const other = await run(hostCheck(allowed), ctxOf("/", { host: "attacker.example" }).ctx);
    expect((other as HttpError).status).toBe(421);
    const two = ctxOf("/", { host: "127.0.0.1" }, "GET", [
      "Host",
      "127.0.0.1",
      "Host",
      "attacker.example",
    ]).ctx;
    expect((await run(hostCheck(allowed), two)) as HttpError).toMatchObject({ status: 400 });
  });
});

describe("corsHeaders", () => {
  it("answers a preflight itself, adds the origin for a permitted one, goes on otherwise", async () => {
    const pre = ctxOf("/production/api/v1/runs/x", { origin: "http://app.example" }, "OPTIONS");
    expect(await run(corsHeaders(st()), pre.ctx)).toBe("answered");
    expect(pre.res.status).toBe(204);
    expect(pre.res.headers["access-control-allow-headers"]).toContain("Idempotency-Key");
    const get = ctxOf("/production/api/v1/runs/x", { origin: "http://app.example" });
    expect(await run(corsHeaders(st()), get.ctx)).toBe("next");
    expect(get.res.headers["access-control-allow-origin"]).toBe("http://app.example");
    const other = ctxOf("/production/api/v1/runs/x", { origin: "http://evil.example" });
    expect(await run(corsHeaders(st()), other.ctx)).toBe("next");
    expect(other.res.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("noKeyInQuery", () => {
  it("refuses a key-named parameter or a key's value in the query", async () => {
    const key = "sk_live_issued_here";
    const s = st({ keys: new Map([[tokenHash(key), {}]]) });
    expect(await run(noKeyInQuery(s), ctxOf("/x?page=2").ctx)).toBe("next");
    for (const q of ["api_key=a", "x=wfr_test_1", `q=${key}`])
      expect(((await run(noKeyInQuery(s), ctxOf(`/x?${q}`).ctx)) as HttpError).status).toBe(400);
  });
});

describe("adminGuard", () => {
  it("is off with admin off (404), refuses cross-site (403), text bodies (415), no token (401)", async () => {
    const g = (over: Record<string, unknown>, headers: Record<string, string>, method = "GET") =>
      run(adminGuard(st(over)), ctxOf("/_emulator/keys", headers, method).ctx);
    expect(await g({}, {})).toBe("next");
    expect(((await g({ cfg: { admin: false } }, {})) as HttpError).status).toBe(404);
    expect(((await g({}, { "sec-fetch-site": "cross-site" })) as HttpError).status).toBe(403);
    expect(((await g({}, { origin: "http://evil.example" })) as HttpError).status).toBe(403);
    const text = { "content-type": "text/plain", "content-length": "2" };
    expect(((await g({}, text, "POST")) as HttpError).status).toBe(415);
    const locked = { cfg: { admin: true, adminToken: "s3cret" } };
    expect(((await g(locked, {})) as HttpError).status).toBe(401);
    expect(await g(locked, { authorization: "Bearer s3cret" })).toBe("next");
  });
});

describe("apiKey and apiFaults", () => {
  const token = "wfr_test_abc";
  const key = {
    token_sha256: tokenHash(token),
    environment: "production",
    workspace: "ws_a",
    scopes: ["runs:read"],
  };
  const agents = { apiKeyByHash: () => undefined, refusalMessage: () => undefined };
  const env = { def: { name: "production", workspace: "ws_a" } };
  const apiCtx = (url: string, headers: Record<string, string>, method = "GET") => {
    const c = ctxOf(url, headers, method);
    return { ...c, ctx: Object.assign(c.ctx, { env, params: {} }) as unknown as EnvContext };
  };
  const read = API_ROUTES.find((r) => r.name === "status");
  const launch = API_ROUTES.find((r) => r.name === "launch");

  it("needs a key of the environment (401) with the route's scope (403), and keeps it", async () => {
    const s = st({ keys: new Map([[key.token_sha256, key]]), agents });
    const none = await run(apiKey(s, read as never), apiCtx("/production/api/v1/runs/r", {}).ctx);
    expect((none as HttpError).status).toBe(401);
    const auth = { authorization: `Bearer ${token}` };
    const scoped = await run(apiKey(s, launch as never), apiCtx("/x", auth, "POST").ctx);
    expect((scoped as HttpError).status).toBe(403);
    const ok = apiCtx("/production/api/v1/runs/r", auth).ctx;
    expect(await run(apiKey(s, read as never), ok)).toBe("next");
    expect(ok.key?.workspace).toBe("ws_a");
  });

  it("lets a request through with no fault armed; answers it with the fault that fires", async () => {
    const faults = new ApiFaults();
    const committed: unknown[] = [];
    const commit = (rec: { t: string; id: string; rule: never }) => {
      committed.push(structuredClone(faults.list()));
      faults.restore(rec.id, rec.rule);
    };
    const s = st({ apiFaults: faults, commit });
    const c = apiCtx("/production/api/v1/runs/r", {});
    c.ctx.key = key as never;
    expect(await run(apiFaults(s), c.ctx)).toBe("next");
    faults.add(parseApiFault({ route: "GET /runs/*", fault: "status", status: 503 }, "flt_1"));
    const d = apiCtx("/production/api/v1/runs/r", {});
    d.ctx.key = key as never;
    expect(await run(apiFaults(s), d.ctx)).toBe("answered");
    expect(d.res.status).toBe(503);
    expect(JSON.parse(d.res.body)).toMatchObject({ code: "INJECTED", fault_id: "flt_1" });
    // The firing is committed while the rule is still uncounted, and counted by the commit.
    expect(committed).toEqual([[expect.objectContaining({ id: "flt_1", hits: 0 })]]);
    expect(faults.list()[0]).toMatchObject({ hits: 1 });
  });
});

describe("bodyWithin", () => {
  it("keeps a body within the limit; refuses a declared or streamed one over it with 413", async () => {
    const { Readable } = await import("node:stream");
    const ctxWith = (body: string, headers: Record<string, string> = {}) => {
      const req = Object.assign(Readable.from([Buffer.from(body)]), {
        url: "/x",
        method: "POST",
        headers,
        rawHeaders: [],
      }) as unknown as IncomingMessage;
      const res = { on() {}, once() {} } as unknown as ServerResponse;
      return requestContext(req, res) as BodyContext;
    };
    const ok = ctxWith("{}");
    expect(await run(bodyWithin(10), ok)).toBe("next");
    expect(ok.body?.toString()).toBe("{}");
    const declared = await run(bodyWithin(10), ctxWith("{}", { "content-length": "11" }));
    expect(declared).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
    const streamed = await run(bodyWithin(10), ctxWith("x".repeat(11)));
    expect(streamed).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
  });
});

describe("mcpCaller", () => {
  it("keeps the person the endpoint authorizes; its refusal stops the request", async () => {
    const person = { id: "pat_1", environment: "production", workspace: "ws_a" };
    const ok = ctxOf("/mcp", {}, "POST").ctx as McpContext;
    expect(await run(mcpCaller({ mcpPerson: () => person as never }), ok)).toBe("next");
    expect(ok.person).toBe(person);
    const refuse = () => {
      throw new HttpError(401, "UNAUTHENTICATED", "no token");
    };
    const none = await run(mcpCaller({ mcpPerson: refuse }), ctxOf("/mcp", {}, "POST").ctx);
    expect(none).toMatchObject({ status: 401 });
  });
});

describe("sameSite", () => {
  it("refuses cross-site requests and non-JSON bodies, lets same-site ones through", async () => {
    const s = st();
    const enable = "/production/portal/workflows/wf/enable";
    expect(await run(sameSite(s), ctxOf(enable, {}, "POST").ctx)).toBe("next");
    const same = { origin: "http://127.0.0.1:4010" };
    expect(await run(sameSite(s), ctxOf(enable, same, "POST").ctx)).toBe("next");
    const cross = await run(
      sameSite(s),
      ctxOf(enable, { origin: "http://evil.example" }, "POST").ctx,
    );
    expect(cross).toMatchObject({ status: 403 });
    const text = { "content-type": "text/plain", "content-length": "2" };
    expect(await run(sameSite(s), ctxOf(enable, text, "POST").ctx)).toMatchObject({ status: 415 });
  });
});

describe("portalUser", () => {
  const env = { def: { name: "production", workspace: "ws_a" } };
  const sessions = new Map([
    ["s_prod", { environment: "production", workspace: "ws_a" }],
    ["s_stag", { environment: "staging", workspace: "ws_b" }],
    ["s_dev", { environment: "*", workspace: "*", everywhere: true as const }],
  ]);
  const portalCtx = (headers: Record<string, string>) => {
    const c = ctxOf("/production/portal/runs/run_1/live", headers);
    return Object.assign(c.ctx, { env, params: { runId: "run_1" } }) as unknown as PortalContext;
  };
  const s = st({ portalSessions: sessions });

  it("refuses a request without a session of the environment (401), before the handler", async () => {
    const refusedHeaders: Record<string, string>[] = [
      {},
      { cookie: "wfr_portal_session=unknown" },
      { cookie: "wfr_portal_session=s_stag" },
      { authorization: "Bearer wfr_test_an_api_key" },
    ];
    for (const headers of refusedHeaders) {
      const refused = await run(portalUser(s), portalCtx(headers));
      expect(refused, JSON.stringify(headers)).toMatchObject({
        status: 401,
        code: "PORTAL_SESSION_REQUIRED",
      });
    }
  });

  it("keeps the session of the environment, or the developer's session in every environment", async () => {
    for (const id of ["s_prod", "s_dev"]) {
      const c = portalCtx({ cookie: `wfr_portal_session=${id}` });
      expect(await run(portalUser(s), c)).toBe("next");
      expect(c.session).toBe(sessions.get(id));
    }
  });

  it("takes a browser-access grant only where asked (the run's live view)", async () => {
    const grants = new BrowserAccessGrants();
    const g = grants.mint(
      { environment: "production", workspace: "ws_a", run_id: "run_1", session_id: "ses_1" },
      { origins: ["http://app.example"], expires_in_seconds: 60 },
      0,
    );
    grants.restore(g.grant);
    const withGrant = () =>
      portalCtx({ authorization: `Bearer ${g.token}`, origin: "http://app.example" });
    const sg = st({ portalSessions: sessions, grants });
    expect(await run(portalUser(sg), withGrant())).toMatchObject({ status: 401 });
    const c = withGrant();
    expect(await run(portalUser(sg, { grant: true }), c)).toBe("next");
    expect(c.session).toMatchObject({ environment: "production", workspace: "ws_a" });
  });
});
