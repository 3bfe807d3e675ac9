import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, Harness, INVOICE } from "./support.js";

const APP_ORIGIN = "https://app.wfr.example";
let h: Harness;
let c: Client;

beforeAll(async () => {
  h = await Harness.start({ corsOrigins: [APP_ORIGIN] });
  c = await h.client();
});
afterAll(() => h?.close());

function preflight(origin: string, path: string, method = "POST") {
  return fetch(`${c.base}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization, content-type, idempotency-key",
    },
  });
}

describe("CORS", () => {
  it("for already-permitted application origins the Idempotency-Key header is allowed in preflights", async () => {
    const r = await preflight(APP_ORIGIN, `/automations/${INVOICE}/runs`);
    await r.arrayBuffer();
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(300);
    expect(r.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    const allowed = (r.headers.get("access-control-allow-headers") ?? "")
      .toLowerCase()
      .split(",")
      .map((s) => s.trim());
    expect(allowed).toContain("idempotency-key");
    expect((r.headers.get("access-control-allow-methods") ?? "").toUpperCase()).toContain("POST");
  });

  it("no additional origins are authorized by this", async () => {
    for (const origin of ["https://evil.example", "http://app.wfr.example", "null"]) {
      const r = await preflight(origin, `/automations/${INVOICE}/runs`);
      await r.arrayBuffer();
      const acao = r.headers.get("access-control-allow-origin");
      expect(acao === null || (acao !== origin && acao !== "*"), `${origin}: ${acao}`).toBe(true);
      const g = await fetch(`${c.base}/runs/run_x`, {
        headers: { origin, authorization: `Bearer ${c.token}` },
      });
      await g.arrayBuffer();
      const gacao = g.headers.get("access-control-allow-origin");
      expect(gacao === null || (gacao !== origin && gacao !== "*")).toBe(true);
    }
  });

  it("A permitted origin gets CORS headers on actual responses too", async () => {
    const g = await fetch(`${c.base}/runs/run_x`, {
      headers: { origin: APP_ORIGIN, authorization: `Bearer ${c.token}` },
    });
    await g.arrayBuffer();
    expect(g.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
  });

  it("With no configured origins, no origin is granted anything", async () => {
    const plain = await Harness.start();
    try {
      const r = await fetch(`${plain.base()}/automations/${INVOICE}/runs`, {
        method: "OPTIONS",
        headers: {
          origin: APP_ORIGIN,
          "access-control-request-method": "POST",
          "access-control-request-headers": "idempotency-key",
        },
      });
      await r.arrayBuffer();
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
