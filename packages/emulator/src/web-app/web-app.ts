// The service's web application ({app_url}), served by the emulator at `/`: run
// history and detail, API docs, keys, vault, workflows and API faults. Plain server-rendered
// HTML; pages need the portal session set by the one-time sign-in link; every form carries a
// CSRF token and is refused from another site (Origin / Sec-Fetch-Site), on top of the server's
// Host check. One route table (router.ts): the open rows (assets, sign-in), then the pages
// (page-routes.ts) after the session guard, and the forms (form-routes.ts) after the session,
// same-site, form and CSRF guards (guards.ts).

import type { IncomingMessage } from "node:http";
import { CODE } from "@wfr/protocol";
import type { DeliveryAttempt } from "../engine/callbacks.js";
import type { DeliveryFaultKind } from "../faults/delivery-faults.js";
import { HttpError } from "../http/http-kit.js";
import { compose, type RequestContext, RouteTable } from "../http/router.js";
import type { Fault } from "../engine/run-engine.js";
import type { Links } from "../engine/run-views.js";
import type { EnvironmentDefView, RunRecord, Scenario, WorkflowState } from "../model/types.js";
import { APP_CSS, APP_JS } from "./assets.js";
import { addFormRoutes } from "./form-routes.js";
import { type AppContext, developerSession, formGuard } from "./guards.js";
import { addPageRoutes } from "./page-routes.js";
import type { ApiFaultRow } from "./pages.js";
import { signInNeededPage } from "./pages.js";
import { page, redirect, send } from "./respond.js";
import type { SignInLinks } from "../access/sign-in.js";

/** What the web application needs from the emulator; implemented by the Emulator class. */
export interface WebAppHost {
  readonly signIn: SignInLinks;
  now(): number;
  /** Read-only: the web application changes them only through the host's actions. */
  environments(): {
    readonly def: EnvironmentDefView;
    readonly scenarios: ReadonlyMap<string, Readonly<Scenario>>;
    readonly deliveries: readonly Readonly<DeliveryAttempt>[];
  }[];
  links(env: string): Links;
  /** Every run, brought up to date. */
  runs(): RunRecord[];
  run(env: string, runId: string): RunRecord | undefined;
  /** A new portal session for the signed-in local developer (every environment); its id. */
  openDeveloperSession(): string;
  /** The portal session id of a request, when it has a valid developer session. */
  developerSession(req: IncomingMessage): string | null;
  sameOrigins(): ReadonlySet<string>;
  answer(run: RunRecord, checkpointId: string, response: unknown): { ok: boolean; message: string };
  /**
   * "Launch again": a new run of the run's workflow with these inputs, its metadata and model,
   * through the public API (the same checks as any launch); the new run id, or the API's refusal.
   */
  relaunch(
    run: RunRecord,
    inputs: Record<string, unknown>,
  ): Promise<{ ok: true; runId: string } | { ok: false; message: string }>;
  inject(run: RunRecord, kind: Fault["kind"], body: Record<string, unknown>): string | null;
  /** Arm a callback delivery fault (as the admin API does); the refusal, or null. */
  armDeliveryFault(
    run: RunRecord,
    kind: DeliveryFaultKind,
    body: Record<string, unknown>,
  ): string | null;
  resendCallback(env: string, eventId: string): boolean;
  listKeys(): { id: string; environment: string; workspace: string; scopes: string[] }[];
  createKey(env: string, scopes: string[]): string;
  revokeKey(id: string): boolean;
  readonly scopes: readonly string[];
  /** Personal access tokens of the MCP endpoint: listed without values. */
  listTokens(): { id: string; environment: string; workspace: string; created_at: string }[];
  createToken(env: string): string;
  revokeToken(id: string): boolean;
  setWorkflowState(env: string, workflowId: string, state: WorkflowState): void;
  /** Forget an environment's runs, deliveries, pending callbacks and scenarios (as the admin API's reset). */
  resetEnvironment(env: string): void;
  /** Faults on the API itself (api-faults.ts). */
  listApiFaults(): ApiFaultRow[];
  /** Arm one from the form's fields (as the admin API's body); the refusal, or null. */
  armApiFault(body: Record<string, unknown>): string | null;
  removeApiFault(id: string): boolean;
  /** The recording's state and, when ready, its bytes; never counted against the API budget. */
  recording(run: RunRecord): { state: string; bytes: Buffer | null };
}

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
        "Set-Cookie": `wfr_portal_session=${id}; Path=/; HttpOnly; SameSite=Strict`,
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
