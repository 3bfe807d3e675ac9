import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, Harness, http } from "./support.js";

let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
});
afterAll(() => h?.close());

describe("Unknown routes", () => {
  it("404 NOT_FOUND: route does not exist", async () => {
    const auth = { authorization: `Bearer ${c.token}` };
    for (const [method, url] of [
      ["GET", `${h.url}/definitely/not/here`],
      ["GET", `${c.base}/nope`],
      ["GET", `${c.base}/automations`],
      ["POST", `${c.base}/workflows/wf_P7Qd2Lx9/runs`],
      ["GET", `${h.url}/production/api/v2/runs/run_x`],
      ["GET", `${h.url}/no_such_env/api/v1/runs/run_x`],
    ] as const) {
      const r = await http(method, url, method === "POST" ? {} : undefined, auth);
      expect(r.status, `${method} ${url}`).toBe(404);
      expect(r.headers.get("content-type") ?? "").toMatch(/application\/json/);
      expect(r.body.code, `${method} ${url}`).toBe("NOT_FOUND");
      expect(typeof r.body.error).toBe("string");
    }
  });

  it("With admin off, every /_emulator route is 404 NOT_FOUND", async () => {
    const off = await Harness.start({ admin: false });
    try {
      for (const [method, path, body] of [
        ["POST", "/keys", { environment: "production", scopes: ["runs:read"] }],
        ["GET", "/environments/production/runs", undefined],
        ["POST", "/clock/advance", { ms: 1 }],
        ["PUT", "/environments/production/workflows/wf_P7Qd2Lx9/state", { state: "draft" }],
      ] as const) {
        const r = await off.admin(method, path, body);
        expect(r.status, path).toBe(404);
        expect(r.body.code).toBe("NOT_FOUND");
      }
    } finally {
      await off.close();
    }
  });
});
