// The web application's forms (POST, after the session, same-site, form and CSRF guards of
// guards.ts): one row each in the route table web-app.ts builds. Each answers with a redirect
// carrying a message, or a page (a key or token shown once).

import { CODE, RUN_STATUS } from "@wfr/protocol";
import { CLEARED_PORTAL_SESSION_COOKIE } from "../access/portal-sessions.js";
import type { Fault } from "../engine/run-engine.js";
import { type DeliveryFaultKind, isDeliveryFaultKind } from "../faults/delivery-faults.js";
import { HttpError, MAX_DEPTH } from "../http/http-kit.js";
import type { RouteTable } from "../http/router.js";
import { jsonTextDepth } from "../model/json-text.js";
import type { RunRecord } from "../model/types.js";
import type { AppContext } from "./guards.js";
import { oauthRefusedPage } from "./oauth-pages.js";
import { keysPage, signedOutPage, tokensPage } from "./pages.js";
import { page, redirect } from "./respond.js";

/**
 * A JSON answer if it parses, otherwise the text itself (a person may type a plain sentence).
 * JSON nested deeper than the API accepts is refused as the API refuses it (http-kit.ts), so a
 * form cannot store what no API request could.
 */
export function parseAnswer(text: string): unknown {
  if (jsonTextDepth(Buffer.from(text, "utf8"), MAX_DEPTH) > MAX_DEPTH)
    throw new HttpError(
      400,
      CODE.INVALID_JSON,
      `JSON nesting deeper than ${MAX_DEPTH} levels is not accepted`,
    );
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The run of the path; 404 when there is none. */
function runOf(ctx: AppContext): RunRecord {
  const run = ctx.host.run(ctx.params.env as string, ctx.params.runId as string);
  if (!run) throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
  return run;
}

const runPage = (run: RunRecord, runId = run.run_id) =>
  `/_app/runs/${encodeURIComponent(run.environment)}/${encodeURIComponent(runId)}`;

const withMessage = (to: string, message: string) => `${to}?msg=${encodeURIComponent(message)}`;

/** A field typed as a number: undefined when empty, else Number() (checked by the callee). */
const numberField = (form: URLSearchParams, name: string) => {
  const v = (form.get(name) ?? "").trim();
  return v === "" ? undefined : Number(v);
};

function knownEnvironment(ctx: AppContext): string {
  const env = ctx.form.get("environment") ?? "";
  if (!ctx.host.environments().some((e) => e.def.name === env))
    throw new HttpError(400, CODE.INVALID_ENVIRONMENT, "unknown environment");
  return env;
}

export function addFormRoutes(table: RouteTable<AppContext>): void {
  table
    .add("POST", "/_app/sign-out", "sign out: the session ends, the cookie is cleared", (ctx) => {
      ctx.host.closeDeveloperSession(ctx.session);
      page(ctx.res, 200, "Signed out", signedOutPage(), undefined, {
        "Set-Cookie": CLEARED_PORTAL_SESSION_COOKIE,
      });
    })
    .add("POST", "/_app/runs/:env/:runId/relaunch", "launch a run again", (ctx) => {
      const run = runOf(ctx);
      const back = runPage(run);
      const inputs = parseAnswer(ctx.form.get("inputs") ?? "");
      if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs)) {
        redirect(ctx.res, withMessage(back, "inputs must be a JSON object"));
        return;
      }
      void ctx.host.relaunch(run, inputs as Record<string, unknown>).then(
        (out) =>
          redirect(
            ctx.res,
            out.ok
              ? withMessage(runPage(run, out.runId), `launched again from ${run.run_id}`)
              : withMessage(back, out.message),
          ),
        (error: unknown) =>
          redirect(ctx.res, withMessage(back, `not launched: ${(error as Error).message}`)),
      );
    })
    .add("POST", "/_app/runs/:env/:runId/answer", "answer a human checkpoint", (ctx) => {
      const run = runOf(ctx);
      const out = ctx.host.answer(
        run,
        ctx.form.get("checkpoint_id") ?? "",
        parseAnswer(ctx.form.get("response") ?? ""),
      );
      redirect(ctx.res, withMessage(runPage(run), out.message));
    })
    .add("POST", "/_app/runs/:env/:runId/faults/:kind", "inject a run or callback fault", (ctx) => {
      const run = runOf(ctx);
      const kind = ctx.params.kind as string;
      const form = ctx.form;
      if (isDeliveryFaultKind(kind)) {
        // Callback delivery faults: the numbers typed in the form, checked as the admin API does.
        const body: Record<string, unknown> = {};
        if (kind === "callback-late") body.delay_ms = numberField(form, "delay_ms");
        if (kind === "callback-fail") {
          body.attempts = numberField(form, "attempts");
          body.status = numberField(form, "status");
        }
        const refused = ctx.host.armDeliveryFault(run, kind as DeliveryFaultKind, body);
        redirect(ctx.res, withMessage(runPage(run), refused ?? `callback fault ${kind} armed`));
        return;
      }
      const body: Record<string, unknown> = {};
      if (kind === "fail") {
        body.status = form.get("status") ?? RUN_STATUS.failed;
        body.error = { code: CODE.INJECTED, message: "failed from the web application" };
      }
      if (kind === "succeed" && (form.get("outputs") ?? "").trim() !== "") {
        const outputs = parseAnswer(form.get("outputs") ?? "");
        if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs))
          throw new HttpError(400, CODE.INVALID_FAULT, "outputs must be a JSON object");
        body.outputs = outputs;
      }
      const refused = ctx.host.inject(run, kind as Fault["kind"], body);
      redirect(ctx.res, withMessage(runPage(run), refused ?? `fault ${kind} injected`));
    })
    .add("POST", "/_app/callbacks/:env/:eventId/resend", "resend a callback", (ctx) => {
      // The return path is checked before anything is resent: only a path of this application
      // in URL characters (never an absolute URL: no open redirect; never CR/LF in Location).
      const back = ctx.form.get("back") ?? "/";
      const safeBack = /^\/_app\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/.test(back) ? back : "/";
      const eventId = ctx.params.eventId as string;
      if (!ctx.host.resendCallback(ctx.params.env as string, eventId))
        throw new HttpError(404, CODE.EVENT_NOT_FOUND, "no callback with this event_id was sent");
      redirect(ctx.res, withMessage(safeBack, `callback ${eventId} resent`));
    })
    .add("POST", "/_app/api-faults", "add an API fault", (ctx) => {
      // The form's fields as the admin API's body; the numbers typed, checked the same way.
      const text = (name: string) => (ctx.form.get(name) ?? "").trim();
      const fault = text("fault");
      const body: Record<string, unknown> = {
        route: text("route"),
        fault,
        count: numberField(ctx.form, "count"),
        environment: text("environment"),
        workspace: text("workspace"),
      };
      if (fault === "status") body.status = numberField(ctx.form, "status");
      if (fault === "stall" || fault === "delay") body.ms = numberField(ctx.form, "ms");
      const refused = ctx.host.armApiFault(body);
      redirect(ctx.res, withMessage("/_app/api-faults", refused ?? "API fault added"));
    })
    .add("POST", "/_app/api-faults/:id/remove", "remove an API fault", (ctx) => {
      if (!ctx.host.removeApiFault(ctx.params.id as string))
        throw new HttpError(404, CODE.NOT_FOUND, "no API fault with this id");
      redirect(ctx.res, "/_app/api-faults");
    })
    .add("POST", "/_app/keys", "create an API key (shown once)", (ctx) => {
      const env = knownEnvironment(ctx);
      const scopes = ctx.form.getAll("scopes");
      const allowed = ctx.host.scopes;
      if (scopes.length === 0 || scopes.some((s) => !allowed.includes(s)))
        throw new HttpError(400, CODE.INVALID_SCOPE, `choose scopes among ${allowed.join(", ")}`);
      const token = ctx.host.createKey(env, scopes);
      page(
        ctx.res,
        201,
        "API keys",
        keysPage({
          keys: ctx.host.listKeys(),
          environments: ctx.host.environments().map((e) => e.def.name),
          scopes: allowed,
          csrf: ctx.csrf,
          created: { token, environment: env },
        }),
        "keys",
      );
    })
    .add("POST", "/_app/keys/:id/revoke", "revoke an API key", (ctx) => {
      if (!ctx.host.revokeKey(ctx.params.id as string))
        throw new HttpError(404, CODE.KEY_NOT_FOUND, "no such key");
      redirect(ctx.res, "/_app/keys");
    })
    .add(
      "POST",
      "/_app/oauth/authorize",
      "a connector's sign-in: allow or decline (OAuth)",
      (ctx) => {
        const params = new URLSearchParams(ctx.form.get("request") ?? "");
        const outcome = ctx.host.oauthDecide(
          params,
          ctx.form.get("decision") === "approve"
            ? { approve: true, environment: knownEnvironment(ctx) }
            : { approve: false },
        );
        if ("redirectTo" in outcome) redirect(ctx.res, outcome.redirectTo);
        else page(ctx.res, 400, "Sign-in refused", oauthRefusedPage(outcome.refused));
      },
    )
    .add("POST", "/_app/tokens", "create a personal access token (shown once)", (ctx) => {
      const env = knownEnvironment(ctx);
      const token = ctx.host.createToken(env);
      page(
        ctx.res,
        201,
        "Personal access tokens",
        tokensPage({
          tokens: ctx.host.listTokens(),
          environments: ctx.host.environments().map((e) => e.def.name),
          csrf: ctx.csrf,
          created: { token, environment: env },
        }),
        "tokens",
      );
    })
    .add("POST", "/_app/tokens/:id/revoke", "revoke a personal access token", (ctx) => {
      if (!ctx.host.revokeToken(ctx.params.id as string))
        throw new HttpError(404, CODE.TOKEN_NOT_FOUND, "no such token");
      redirect(ctx.res, "/_app/tokens");
    })
    .add("POST", "/_app/environments/:env/reset", "reset an environment", (ctx) => {
      ctx.host.resetEnvironment(ctx.params.env as string);
      redirect(ctx.res, "/_app/workflows");
    })
    .add(
      "POST",
      "/_app/workflows/:env/:workflowId/state",
      "enable or disable a workflow",
      (ctx) => {
        const state = ctx.form.get("state");
        if (state !== "enabled" && state !== "disabled")
          throw new HttpError(400, CODE.INVALID_STATE, "state must be enabled or disabled");
        ctx.host.setWorkflowState(ctx.params.env as string, ctx.params.workflowId as string, state);
        redirect(ctx.res, "/_app/workflows");
      },
    );
}
