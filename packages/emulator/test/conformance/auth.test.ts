import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  expectErrorShape,
  Harness,
  http,
  INVOICE,
  invoiceBody,
  PORTAL,
  portalBody,
} from "./support.js";

describe("Authentication", () => {
  let h: Harness;
  let c: Client;
  let runId: string;

  beforeAll(async () => {
    h = await Harness.start();
    c = await h.client();
    await h.scenario("production", PORTAL, {
      steps: [{ wait_ms: 1_000 }, { succeed: { outputs: {} } }],
    });
    runId = (await c.start(PORTAL, portalBody())).run_id;
  });
  afterAll(() => h?.close());

  const routes = (id: string): [string, string, unknown][] => [
    ["POST", `/automations/${PORTAL}/runs`, portalBody()],
    ["GET", `/runs/${id}`, undefined],
    ["GET", `/runs/${id}/result`, undefined],
    ["GET", `/runs/${id}/events`, undefined],
    ["GET", `/runs/${id}/recording`, undefined],
    ["POST", `/runs/${id}/human-input`, { checkpoint_id: "chk", response: "yes" }],
  ];

  it("Every API request carries a scoped workspace key in the header Authorization: Bearer <API_KEY>", async () => {
    const before = (await h.runs()).length;
    for (const [method, path, body] of routes(runId)) {
      const none = await http(method, h.base() + path, body);
      expect(none.status, `${method} ${path} without key`).toBe(401);
      expectErrorShape(none);
      expect(none.body.code).toBe("UNAUTHENTICATED");

      const bogus = await http(method, h.base() + path, body, {
        authorization: "Bearer wfr_not_a_real_key_0000000000",
      });
      expect(bogus.status, `${method} ${path} with unknown key`).toBe(401);
      expect(bogus.body.code).toBe("UNAUTHENTICATED");

      const basic = await http(method, h.base() + path, body, {
        authorization: `Basic ${Buffer.from(`${c.token}:`).toString("base64")}`,
      });
      expect(basic.status, `${method} ${path} with a non-Bearer scheme`).toBe(401);
    }
    expect((await h.runs()).length).toBe(before);
  });

  it("Scopes: workflows:run (launch, human-input) and runs:read (status, result, events, recording)", async () => {
    const readOnly = await h.client("production", ["runs:read"]);
    const runOnly = await h.client("production", ["workflows:run"]);

    const launch = await readOnly.launch(PORTAL, portalBody());
    expect(launch.status).toBe(403);
    expect(launch.body.code).toBe("INSUFFICIENT_SCOPE");
    const answer = await readOnly.api("POST", `/runs/${runId}/human-input`, {
      checkpoint_id: "chk",
      response: "yes",
    });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe("INSUFFICIENT_SCOPE");

    for (const sub of ["", "/result", "/events", "/recording"]) {
      const r = await runOnly.api("GET", `/runs/${runId}${sub}`);
      expect(r.status, `GET /runs/{id}${sub} with workflows:run only`).toBe(403);
      expect(r.body.code).toBe("INSUFFICIENT_SCOPE");
      const ok = await readOnly.api("GET", `/runs/${runId}${sub}`);
      expect(ok.status, `GET /runs/{id}${sub} with runs:read`).not.toBe(403);
      expect(ok.status).not.toBe(401);
    }
    expect((await runOnly.launch(PORTAL, portalBody())).status).toBe(202);
  });

  it("Keys are sent only from server-side code, never in a URL", async () => {
    const before = (await h.runs()).length;
    for (const param of ["api_key", "access_token"]) {
      const r = await http(
        "POST",
        `${h.base()}/automations/${INVOICE}/runs?${param}=${encodeURIComponent(c.token)}`,
        invoiceBody(),
        { authorization: `Bearer ${c.token}` },
      );
      expect(r.status, `?${param}=`).toBe(400);
      expect(r.body.code).toBe("API_KEY_IN_QUERY");
      const g = await http("GET", `${h.base()}/runs/${runId}?${param}=${c.token}`, undefined, {
        authorization: `Bearer ${c.token}`,
      });
      expect(g.status).toBe(400);
      expect(g.body.code).toBe("API_KEY_IN_QUERY");
    }
    // A key in the query string never authenticates on its own.
    const alone = await http("GET", `${h.base()}/runs/${runId}?api_key=${c.token}`);
    expect([400, 401]).toContain(alone.status);
    expect((await h.runs()).length).toBe(before);
  });

  it("A portal live-view URL requires an authorized signed-in user; an API key is not a portal session", async () => {
    await h.scenario("production", PORTAL, {
      steps: [
        {
          human: { kind: "approval", reason: "Check login", expires_in_ms: 3_600_000 },
        },
        { succeed: {} },
      ],
    });
    const run = await c.start(PORTAL, portalBody());
    const waiting = await c.untilWaiting(run.run_id);
    const urls = [waiting.live_view_url, waiting.human_action?.live_url].filter(
      (u): u is string => typeof u === "string",
    );
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) {
      expect(u.includes(c.token)).toBe(false);
      if (u.startsWith(h.url)) {
        const r = await http("GET", u, undefined, { authorization: `Bearer ${c.token}` });
        expect([401, 403], `GET ${u} with an API key`).toContain(r.status);
      }
    }
  });
});
