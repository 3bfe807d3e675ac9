// The web application's middleware alone (web-app/guards.ts): the developer's session, and for
// forms same site, a form body and a valid CSRF token, in that order.

import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { SignInLinks } from "../../src/access/sign-in.js";
import { HttpError } from "../../src/http/http-kit.js";
import { requestContext } from "../../src/http/router.js";
import { type AppContext, developerSession, formGuard } from "../../src/web-app/guards.js";
import type { WebAppHost } from "../../src/web-app/host.js";

const signIn = new SignInLinks();
const host = {
  signIn,
  developerSession: (req: IncomingMessage) =>
    req.headers.cookie === "wfr_portal_session=s1" ? "s1" : null,
  sameOrigins: () => new Set(["http://127.0.0.1:4010"]),
} as unknown as WebAppHost;

function ctxOf(headers: Record<string, string>, body = "", method = "POST") {
  const req = Object.assign(Readable.from([Buffer.from(body)]), {
    url: "/_app/keys",
    method,
    headers,
    rawHeaders: [],
  }) as unknown as IncomingMessage;
  const sent = { status: 0 };
  const res = {
    writeHead(status: number) {
      sent.status = status;
      return res;
    },
    end() {},
    on() {},
  } as unknown as ServerResponse;
  const ctx = Object.assign(requestContext(req, res), { host }) as AppContext;
  return { ctx, sent };
}

async function run(m: typeof formGuard, ctx: AppContext): Promise<string | number> {
  let went = false;
  try {
    await m(ctx, async () => {
      went = true;
    });
  } catch (e) {
    if (e instanceof HttpError) return e.status;
    throw e;
  }
  return went ? "next" : "answered";
}

describe("developerSession", () => {
  it("answers 401 (the sign-in page) without the session, else keeps it and its CSRF token", async () => {
    const none = ctxOf({});
    expect(await run(developerSession, none.ctx)).toBe("answered");
    expect(none.sent.status).toBe(401);
    const ok = ctxOf({ cookie: "wfr_portal_session=s1" });
    expect(await run(developerSession, ok.ctx)).toBe("next");
    expect(ok.ctx.csrf).toBe(signIn.csrfToken("s1"));
  });
});

describe("formGuard", () => {
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const withSession = (headers: Record<string, string>, body: string) => {
    const c = ctxOf(headers, body);
    c.ctx.session = "s1";
    return c.ctx;
  };
  const csrf = `csrf=${encodeURIComponent(signIn.csrfToken("s1"))}`;

  it("refuses another site before the body, a body that is not a form, a missing or stale token", async () => {
    expect(
      await run(formGuard, withSession({ ...form, "sec-fetch-site": "cross-site" }, csrf)),
    ).toBe(403);
    expect(
      await run(formGuard, withSession({ ...form, origin: "http://evil.example" }, csrf)),
    ).toBe(403);
    expect(await run(formGuard, withSession({ "content-type": "text/plain" }, csrf))).toBe(415);
    expect(await run(formGuard, withSession(form, "csrf=stale"))).toBe(403);
    expect(await run(formGuard, withSession(form, "x=1"))).toBe(403);
  });

  it("lets a same-site form with its token through, with the form read", async () => {
    const ctx = withSession(
      { ...form, origin: "http://127.0.0.1:4010" },
      `${csrf}&environment=production`,
    );
    expect(await run(formGuard, ctx)).toBe("next");
    expect(ctx.form.get("environment")).toBe("production");
  });
});
