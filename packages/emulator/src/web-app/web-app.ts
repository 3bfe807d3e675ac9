// The service's web application ({app_url}), served by the emulator at `/`: run
// history and detail, API docs, keys, vault, workflows and API faults. Plain server-rendered
// HTML; pages need the portal session set by the one-time sign-in link; every form carries a
// CSRF token and is refused from another site (Origin / Sec-Fetch-Site), on top of the server's
// Host check. One route table (router.ts): the open rows (assets, sign-in), then the pages
// (page-routes.ts) after the session guard, and the forms (form-routes.ts) after the session,
// same-site, form and CSRF guards (guards.ts).

import { CODE } from "@wfr/protocol";
import { PORTAL_SESSION_MAX_AGE_S } from "../access/portal-sessions.js";
import { HttpError } from "../http/http-kit.js";
import { compose, type RequestContext, RouteTable } from "../http/router.js";
import { APP_CSS, APP_JS } from "./assets.js";
import { addFormRoutes } from "./form-routes.js";
import { type AppContext, developerSession, formGuard } from "./guards.js";
import type { WebAppHost } from "./host.js";
import { addPageRoutes } from "./page-routes.js";
import { signInNeededPage } from "./pages.js";
import { page, redirect, send } from "./respond.js";

export { parseAnswer } from "./form-routes.js";

/** Assets and the sign-in link: before any session. */
function openTable(): RouteTable<AppContext> {
  return new RouteTable<AppContext>()
    .add("GET", "/_app/assets/:file", "the stylesheet and the script", (ctx) => {
      if (ctx.params.file === "app.css") send(ctx.res, 200, APP_CSS, "text/css; charset=utf-8");
      else if (ctx.params.file === "app.js")
        send(ctx.res, 200, APP_JS, "text/javascript; charset=utf-8");
      else throw new HttpError(404, CODE.NOT_FOUND, "no such asset");
    })
    .add("GET", "/_app/sign-in/:token", "the one-time sign-in link", (ctx) => {
      const { host } = ctx;
      if (!host.signIn.consume(ctx.params.token as string, host.now())) {
        page(ctx.res, 401, "Sign in", signInNeededPage());
        return;
      }
      const id = host.openDeveloperSession();
      redirect(ctx.res, "/", {
        "Set-Cookie": `wfr_portal_session=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${PORTAL_SESSION_MAX_AGE_S}`,
      });
    });
}

const OPEN = openTable();
const PAGES = new RouteTable<AppContext>();
addPageRoutes(PAGES);
const FORMS = new RouteTable<AppContext>();
addFormRoutes(FORMS);

/** Every row of the web application's table, for the README. */
export const webAppRows = () => [...OPEN.rows, ...PAGES.rows, ...FORMS.rows];

const afterSession = compose<AppContext>([developerSession], async (ctx) => {
  if (ctx.method === "POST") {
    await compose<AppContext>([formGuard], async (c) => {
      if (!(await FORMS.dispatch(c))) throw new HttpError(404, CODE.NOT_FOUND, "no such form");
    })(ctx);
    return;
  }
  if (ctx.method !== "GET" && ctx.method !== "HEAD")
    throw new HttpError(405, CODE.METHOD_NOT_ALLOWED, "GET or POST");
  if (!(await PAGES.dispatch(ctx))) throw new HttpError(404, CODE.NOT_FOUND, "no such page");
});

/** Serves `/` and `/_app/...` (surfaces.ts mounts it there); the Host check has already run. */
export async function handleWebApp(host: WebAppHost, request: RequestContext): Promise<void> {
  const ctx = Object.assign(request, { host }) as AppContext;
  if (await OPEN.dispatch(ctx)) return;
  await afterSession(ctx);
}
