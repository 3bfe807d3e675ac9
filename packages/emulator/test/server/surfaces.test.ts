// The surfaces' middleware end to end (surfaces.ts): the agent endpoint and the portal routes
// check their caller and their body limit before the handler runs.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMIT } from "../../src/api/launch-body.js";
import { startEmulator } from "../../src/index.js";
import { PORTAL_LIMIT } from "../../src/server/surfaces.js";
import { DRAFT, http, type Json } from "../conformance/support.js";

type Emu = Awaited<ReturnType<typeof startEmulator>>;
let emu: Emu;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, clock: "virtual" });
});
afterAll(() => emu?.close());

const admin = async (path: string, body: unknown): Promise<Json> =>
  (await http("POST", `${emu.url}/_emulator${path}`, body)).body;

/**
 * A POST that declares `declared` bytes and sends only a few: an answer can only come from a
 * check made before the body is read (the server never sees the rest).
 */
function postDeclaring(
  path: string,
  declared: number,
  headers: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(declared),
        ...headers,
      },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", () => undefined); // the server closes after a 413; the answer came first
    req.write("{}");
  });
}

describe("/mcp", () => {
  it("refuses a body over the launch limit with 413 BODY_TOO_LARGE before the endpoint runs", async () => {
    const { token } = await admin("/personal-access-tokens", { environment: "production" });
    const auth = {
      authorization: `Bearer ${token}`,
      accept: "application/json, text/event-stream",
    };
    const over = await postDeclaring("/mcp", BODY_LIMIT + 1, auth);
    expect(over.status).toBe(413);
    expect(over.body.code).toBe("BODY_TOO_LARGE");
    // Within the limit the endpoint itself answers (no initialize: a session is required).
    const within = await http("POST", `${emu.url}/mcp`, {}, auth);
    expect(within.body.code).toBe("MCP_SESSION_REQUIRED");
  });

  it("checks the caller first: no token is 401 whatever the body's size", async () => {
    const r = await postDeclaring("/mcp", BODY_LIMIT + 1, {});
    expect(r.status).toBe(401);
    expect(r.body.code).toBe("UNAUTHENTICATED");
  });
});

async function draftState(): Promise<string> {
  const { environments } = (await http("GET", `${emu.url}/_emulator/environments`)).body;
  const production = environments.find((e: Json) => e.name === "production");
  return production.workflows.find((w: Json) => w.id === DRAFT).state;
}

describe("portal routes", () => {
  const enable = `/production/portal/workflows/${DRAFT}/enable`;

  it("refuse a request without a portal session (401) before the handler", async () => {
    const r = await http("POST", `${emu.url}${enable}`, {});
    expect(r.status).toBe(401);
    expect(r.body.code).toBe("PORTAL_SESSION_REQUIRED");
    const live = await http("GET", `${emu.url}/production/portal/authoring/as_unknown/live`);
    expect(live.status).toBe(401);
    expect(live.body.code).toBe("PORTAL_SESSION_REQUIRED");
    // Another environment's session is not one of this environment.
    const { cookie } = await admin("/portal-sessions", { environment: "staging" });
    const other = await http("POST", `${emu.url}${enable}`, {}, { cookie });
    expect(other.body.code).toBe("PORTAL_SESSION_REQUIRED");
  });

  it("refuse a body over the portal limit with 413 before the draft is enabled", async () => {
    const { cookie } = await admin("/portal-sessions", { environment: "production" });
    const over = await postDeclaring(enable, PORTAL_LIMIT + 1, { cookie });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe("BODY_TOO_LARGE");
    expect(await draftState()).toBe("draft");
    const ok = await http("POST", `${emu.url}${enable}`, {}, { cookie });
    expect(ok.body).toEqual({ workflow_id: DRAFT, state: "enabled" });
  });
});
