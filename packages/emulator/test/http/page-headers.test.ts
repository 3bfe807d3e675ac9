// Every HTML page the emulator serves carries a Content-Security-Policy and nosniff
// (http/page-headers.ts): the web application's pages, and a run's live view, which the team's
// application may frame.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Harness, INVOICE, invoiceBody } from "../conformance/support.js";

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h?.close());

describe("page headers", () => {
  it("a run's live view: a CSP that loads and runs nothing, nosniff, and no frame-ancestors (it is framed)", async () => {
    await h.scenario("production", INVOICE, { steps: [{ wait_ms: 60_000 }, { succeed: {} }] });
    const c = await h.client();
    const run = await c.start(INVOICE, invoiceBody());
    const session = await h.admin("POST", "/portal-sessions", { environment: "production" });
    const view = await fetch(`${h.url}/production/portal/runs/${run.run_id}/live`, {
      headers: { cookie: String(session.body.cookie) },
    });
    expect(view.status).toBe(200);
    const csp = view.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("frame-ancestors");
    expect(view.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("the web application's pages: their own CSP (never framed) and nosniff, the sign-in page too", async () => {
    const page = await fetch(`${h.url}/`);
    expect(page.status).toBe(401);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
