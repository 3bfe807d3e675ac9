// Portal sessions end (access/portal-sessions.ts): the cookie carries a lifetime, an expired
// session signs nobody in (the web app and a live view alike), and sign-out is a form that ends
// the session and clears the cookie.
import { describe, expect, it } from "vitest";
import {
  CLEARED_PORTAL_SESSION_COOKIE,
  livePortalSession,
  PORTAL_SESSION_MAX_AGE_S,
} from "../../src/access/portal-sessions.js";
import { Harness } from "../conformance/support.js";

async function signIn(h: Harness): Promise<{ cookie: string; setCookie: string }> {
  const r = await fetch((await h.admin("POST", "/sign-in-links")).body.url, { redirect: "manual" });
  const setCookie = r.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0] as string, setCookie };
}

describe("portal sessions", () => {
  it("an expired session is forgotten; a live one is kept", () => {
    const sessions = new Map([
      ["old", { expiresAt: 1_000 }],
      ["new", { expiresAt: 5_000 }],
    ]);
    expect(livePortalSession(sessions, "old", 1_000)).toBeUndefined();
    expect(sessions.has("old")).toBe(false);
    expect(livePortalSession(sessions, "new", 1_000)).toEqual({ expiresAt: 5_000 });
    expect(livePortalSession(sessions, undefined, 1_000)).toBeUndefined();
  });

  it("the sign-in cookie says how long it lives, and sign-out ends the session and clears it", async () => {
    const h = await Harness.start();
    try {
      const { cookie, setCookie } = await signIn(h);
      expect(setCookie).toContain(`Max-Age=${PORTAL_SESSION_MAX_AGE_S}`);
      const runs = await fetch(`${h.url}/`, { headers: { cookie } });
      expect(runs.status).toBe(200);
      expect(await runs.text()).toContain('href="/_app/sign-out"');
      const form = await (await fetch(`${h.url}/_app/sign-out`, { headers: { cookie } })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(form)?.[1] as string;
      expect(csrf).toBeTruthy();
      // A sign-out without the CSRF token is refused (another site cannot sign a person out).
      const forged = await fetch(`${h.url}/_app/sign-out`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: "csrf=forged",
      });
      expect(forged.status).toBe(403);
      expect((await fetch(`${h.url}/`, { headers: { cookie } })).status).toBe(200);
      const out = await fetch(`${h.url}/_app/sign-out`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: `csrf=${encodeURIComponent(csrf)}`,
      });
      expect(out.status).toBe(200);
      expect(out.headers.get("set-cookie")).toBe(CLEARED_PORTAL_SESSION_COOKIE);
      expect((await fetch(`${h.url}/`, { headers: { cookie } })).status).toBe(401);
    } finally {
      await h.close();
    }
  });

  it("a session past its lifetime signs nobody in: the web app and the admin API's live-view session", async () => {
    // A lifetime of 0: every session has expired by the time it is used.
    const h = await Harness.start({ portalSessionTtlMs: 0 });
    try {
      const { cookie } = await signIn(h);
      expect((await fetch(`${h.url}/`, { headers: { cookie } })).status).toBe(401);
      const live = await h.admin("POST", "/portal-sessions", { environment: "production" });
      const liveCookie = String(live.body.cookie);
      const view = await fetch(`${h.url}/production/portal/runs/run_missing/live`, {
        headers: { cookie: liveCookie },
      });
      expect(view.status).toBe(401);
      expect(((await view.json()) as { code: string }).code).toBe("PORTAL_SESSION_REQUIRED");
    } finally {
      await h.close();
    }
  });
});
