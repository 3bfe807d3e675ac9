// The web application's middleware (router.ts): the developer's session for every page and
// form, and for forms the same-site check, the form body and its CSRF token, in that order
// (another site is refused before its body is read).

import type { IncomingMessage } from "node:http";
import { CODE } from "@wfr/protocol";
import { HttpError, readBodyWithin } from "../http/http-kit.js";
import type { Middleware, RequestContext } from "../http/router.js";
import type { WebAppHost } from "./host.js";
import { signInNeededPage } from "./pages.js";
import { page } from "./respond.js";

/** A web application form: an answer to a checkpoint, a fault (docs/limits.md). */
export const FORM_LIMIT = 1_048_576;

/** A web-app request: the host, and once past the guards its session, CSRF token and form. */
export interface AppContext extends RequestContext {
  host: WebAppHost;
  session: string;
  csrf: string;
  form: URLSearchParams;
}

/** Pages and forms need the developer's session (the one-time sign-in link sets it); else 401. */
export const developerSession: Middleware<AppContext> = (ctx, next) => {
  const session = ctx.host.developerSession(ctx.req);
  if (session === null) {
    page(ctx.res, 401, "Sign in", signInNeededPage());
    return;
  }
  ctx.session = session;
  ctx.csrf = ctx.host.signIn.csrfToken(session);
  return next();
};

/** Cookie-authenticated forms: refuse other sites before looking at the body. */
function checkSameSite(req: IncomingMessage, sameOrigins: ReadonlySet<string>): void {
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none")
    throw new HttpError(
      403,
      CODE.CROSS_SITE_REQUEST,
      `the web application refuses ${site} form posts`,
    );
  const origin = req.headers.origin;
  if (typeof origin === "string" && !sameOrigins.has(origin.toLowerCase()))
    throw new HttpError(
      403,
      CODE.CROSS_SITE_REQUEST,
      "the web application refuses posts from another origin",
    );
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new HttpError(
      415,
      CODE.UNSUPPORTED_MEDIA_TYPE,
      "forms are sent as application/x-www-form-urlencoded",
    );
  return new URLSearchParams((await readBodyWithin(req, FORM_LIMIT)).toString("utf8"));
}

/** A form post: same site, a form body within its limit, then a valid CSRF token. */
export const formGuard: Middleware<AppContext> = async (ctx, next) => {
  checkSameSite(ctx.req, ctx.host.sameOrigins());
  const form = await readForm(ctx.req);
  if (!ctx.host.signIn.csrfValid(ctx.session, form.get("csrf")))
    throw new HttpError(
      403,
      CODE.CSRF_TOKEN_INVALID,
      "the form's CSRF token is missing or stale: reload the page",
    );
  ctx.form = form;
  return next();
};
