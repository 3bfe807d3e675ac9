// The service's web application ({app_url}), served by the emulator at `/`: run
// history and detail, API docs, keys, vault and workflows. Plain server-rendered HTML; pages
// need the portal session set by the one-time sign-in link; every form carries a CSRF token and
// is refused from another site (Origin / Sec-Fetch-Site), on top of the server's Host check.

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE, RUN_STATUS } from "@wfr/protocol";
import type { DeliveryAttempt } from "../callbacks.js";
import { type DeliveryFaultKind, isDeliveryFaultKind } from "../delivery-faults.js";
import { HttpError, MAX_DEPTH, readBodyWithin } from "../http-kit.js";
import { jsonTextDepth } from "../json-text.js";
import type { Fault } from "../run-engine.js";
import type { Links } from "../run-views.js";
import type { EnvironmentDef, RunRecord, Scenario, WorkflowState } from "../types.js";
import { APP_CSS, APP_JS } from "./assets.js";
import { layout, type SafeHtml } from "./html.js";
import {
  type ApiFaultRow,
  apiFaultsPage,
  docsPage,
  keysPage,
  type RunFilter,
  type RunRow,
  runDetailPage,
  runListPage,
  runMatches,
  runRows,
  runVersion,
  signInNeededPage,
  tokensPage,
  vaultPage,
  workflowsPage,
} from "./pages.js";
import { SIGN_IN_PATH, type SignInLinks } from "./sign-in.js";

/** What the web application needs from the emulator; implemented by the Emulator class. */
export interface WebAppHost {
  readonly signIn: SignInLinks;
  now(): number;
  environments(): {
    def: EnvironmentDef;
    scenarios: Map<string, Scenario>;
    deliveries: DeliveryAttempt[];
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

const FORM_LIMIT = 1_048_576;

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": type,
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    // No external CDN, no inline script: everything the pages load comes from here.
    "Content-Security-Policy":
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    ...extra,
  });
  res.end(body);
}

function page(
  res: ServerResponse,
  status: number,
  title: string,
  body: SafeHtml,
  current?: Parameters<typeof layout>[0]["current"],
): void {
  send(
    res,
    status,
    layout({ title, body, signedIn: status !== 401, ...(current ? { current } : {}) }),
    "text/html; charset=utf-8",
  );
}

function redirect(res: ServerResponse, to: string, extra: Record<string, string> = {}): void {
  res.writeHead(303, {
    Location: to,
    "Content-Length": "0",
    "Cache-Control": "no-store",
    ...extra,
  });
  res.end();
}

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

async function readForm(req: IncomingMessage, res: ServerResponse): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new HttpError(
      415,
      CODE.UNSUPPORTED_MEDIA_TYPE,
      "forms are sent as application/x-www-form-urlencoded",
    );
  return new URLSearchParams((await readBodyWithin(req, res, FORM_LIMIT)).toString("utf8"));
}

function filterOf(q: URLSearchParams): RunFilter {
  return {
    status: q.get("status") ?? "",
    workflow: q.get("workflow") ?? "",
    environment: q.get("environment") ?? "",
    q: (q.get("q") ?? "").trim(),
  };
}

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

/** Vault names per environment and the workflows whose runs used them (never values). */
function vaultUse(env: EnvironmentDef, runs: RunRecord[]): { name: string; usedBy: string[] }[] {
  return Object.keys(env.vault)
    .sort()
    .map((name) => {
      const needle = JSON.stringify({ vault: name });
      const used = new Set<string>();
      for (const wf of env.workflows.values()) {
        if (JSON.stringify([wf.inputs, wf.scenario ?? null, wf.example ?? null]).includes(needle))
          used.add(wf.name);
      }
      for (const r of runs) {
        if (r.environment !== env.name) continue;
        if (JSON.stringify([r.inputs, r.scenario]).includes(needle))
          used.add(env.workflows.get(r.workflow_id)?.name ?? r.workflow_id);
      }
      return { name, usedBy: [...used].sort() };
    });
}

/**
 * Serves `/` and `/_app/...`; returns false for any other path. The emulator's Host check has
 * already run.
 */
export async function handleWebApp(
  host: WebAppHost,
  req: IncomingMessage,
  res: ServerResponse,
  parts: string[],
  query: URLSearchParams,
): Promise<boolean> {
  const method = req.method ?? "GET";
  if (parts.length > 0 && parts[0] !== "_app") return false;
  const p = parts.slice(1);
  if (p[0] === "assets" && p.length === 2 && method === "GET") {
    if (p[1] === "app.css") send(res, 200, APP_CSS, "text/css; charset=utf-8");
    else if (p[1] === "app.js") send(res, 200, APP_JS, "text/javascript; charset=utf-8");
    else throw new HttpError(404, CODE.NOT_FOUND, "no such asset");
    return true;
  }
  if (p[0] === "sign-in" && p.length === 2 && method === "GET") {
    if (!host.signIn.consume(p[1] as string, host.now())) {
      page(res, 401, "Sign in", signInNeededPage());
      return true;
    }
    const id = host.openDeveloperSession();
    redirect(res, "/", {
      "Set-Cookie": `wfr_portal_session=${id}; Path=/; HttpOnly; SameSite=Strict`,
    });
    return true;
  }
  const session = host.developerSession(req);
  if (session === null) {
    page(res, 401, "Sign in", signInNeededPage());
    return true;
  }
  const csrf = host.signIn.csrfToken(session);
  const envs = host.environments();
  const workflowName = (env: string, id: string) =>
    envs.find((e) => e.def.name === env)?.def.workflows.get(id)?.name ?? id;
  const rows = (filter: RunFilter): RunRow[] =>
    host
      .runs()
      .map((run) => ({ run, workflowName: workflowName(run.environment, run.workflow_id) }))
      .filter((row) => runMatches(row, filter))
      .sort(
        (a, b) => b.run.created_at - a.run.created_at || (a.run.run_id < b.run.run_id ? 1 : -1),
      );

  if (method === "POST") {
    checkSameSite(req, host.sameOrigins());
    const form = await readForm(req, res);
    if (!host.signIn.csrfValid(session, form.get("csrf")))
      throw new HttpError(
        403,
        CODE.CSRF_TOKEN_INVALID,
        "the form's CSRF token is missing or stale: reload the page",
      );
    return post(host, res, p, form);
  }
  if (method !== "GET" && method !== "HEAD")
    throw new HttpError(405, CODE.METHOD_NOT_ALLOWED, "GET or POST");

  if (parts.length === 0) {
    const filter = filterOf(query);
    page(
      res,
      200,
      "Runs",
      runListPage({
        rows: rows(filter),
        filter,
        workflows: envs.flatMap((e) =>
          [...e.def.workflows.values()].map((w) => ({
            id: w.id,
            name: w.name,
            environment: e.def.name,
          })),
        ),
        environments: envs.map((e) => e.def.name),
        now: host.now(),
      }),
      "runs",
    );
    return true;
  }
  if (p[0] === "runs" && p[1] === "rows" && p.length === 2) {
    send(res, 200, runRows(rows(filterOf(query)), host.now()).text, "text/html; charset=utf-8");
    return true;
  }
  if (p[0] === "runs" && (p.length === 3 || p.length === 4)) {
    const run = host.run(p[1] as string, p[2] as string);
    if (!run) throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
    if (p.length === 3) {
      const env = envs.find((e) => e.def.name === run.environment);
      const rec = host.recording(run);
      const deliveries = (env?.deliveries ?? []).filter((a) => a.run_id === run.run_id);
      page(
        res,
        200,
        `Run ${run.run_id}`,
        runDetailPage({
          run,
          workflow: env?.def.workflows.get(run.workflow_id),
          links: host.links(run.environment),
          deliveries,
          version: runVersion(run, deliveries.length),
          csrf,
          now: host.now(),
          recordingState: rec.state,
          flash: query.get("msg"),
        }),
        "runs",
      );
      return true;
    }
    if (p[3] === "version") {
      // Changes whenever the page would: status, events, answers, deliveries.
      const env = envs.find((e) => e.def.name === run.environment);
      const attempts = (env?.deliveries ?? []).filter((a) => a.run_id === run.run_id).length;
      send(
        res,
        200,
        `${run.updated_at}:${run.status}:${run.events.length}:${attempts}`,
        "text/plain; charset=utf-8",
      );
      return true;
    }
    if (p[3] === "recording.mp4") {
      const rec = host.recording(run);
      if (rec.bytes === null)
        throw new HttpError(404, CODE.RECORDING_NOT_FOUND, `the recording is ${rec.state}`);
      res.writeHead(200, {
        "Content-Type": "video/mp4",
        "Content-Length": rec.bytes.length,
        "Cache-Control": "no-store",
      });
      res.end(method === "HEAD" ? undefined : rec.bytes);
      return true;
    }
  }
  if (p[0] === "docs" && p.length <= 2) {
    const selected = p[1] ?? null;
    if (selected !== null && !envs.some((e) => e.def.name === selected))
      throw new HttpError(404, CODE.ENVIRONMENT_NOT_FOUND, "no such environment");
    page(
      res,
      200,
      "API docs",
      docsPage(
        envs.map((e) => ({
          name: e.def.name,
          workspace: e.def.workspace,
          apiBase: host.links(e.def.name).apiBase,
          envBase: host.links(e.def.name).envBase,
          workflows: [...e.def.workflows.values()],
        })),
        selected,
      ),
      "docs",
    );
    return true;
  }
  if (p[0] === "keys" && p.length === 1) {
    page(
      res,
      200,
      "API keys",
      keysPage({
        keys: host.listKeys(),
        environments: envs.map((e) => e.def.name),
        scopes: host.scopes,
        csrf,
        created: null,
      }),
      "keys",
    );
    return true;
  }
  if (p[0] === "tokens" && p.length === 1) {
    page(
      res,
      200,
      "Personal access tokens",
      tokensPage({
        tokens: host.listTokens(),
        environments: envs.map((e) => e.def.name),
        csrf,
        created: null,
      }),
      "tokens",
    );
    return true;
  }
  if (p[0] === "api-faults" && p.length === 1) {
    page(
      res,
      200,
      "API faults",
      apiFaultsPage({
        faults: host.listApiFaults(),
        environments: envs.map((e) => e.def.name),
        csrf,
        flash: query.get("msg"),
      }),
      "faults",
    );
    return true;
  }
  if (p[0] === "vault" && p.length === 1) {
    const runs = host.runs();
    page(
      res,
      200,
      "Vault",
      vaultPage(envs.map((e) => ({ name: e.def.name, entries: vaultUse(e.def, runs) }))),
      "vault",
    );
    return true;
  }
  if (p[0] === "workflows" && p.length === 1) {
    page(
      res,
      200,
      "Workflows",
      workflowsPage({
        environments: envs.map((e) => ({
          name: e.def.name,
          workflows: [...e.def.workflows.values()].map((def) => ({
            def,
            scenario: e.scenarios.get(def.id) ?? def.scenario,
            custom: e.scenarios.has(def.id),
          })),
        })),
        csrf,
      }),
      "workflows",
    );
    return true;
  }
  throw new HttpError(404, CODE.NOT_FOUND, "no such page");

  function post(h: WebAppHost, r: ServerResponse, path: string[], form: URLSearchParams): boolean {
    if (path[0] === "runs" && path.length >= 4) {
      const run = h.run(path[1] as string, path[2] as string);
      if (!run) throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
      const back = `/_app/runs/${encodeURIComponent(run.environment)}/${encodeURIComponent(run.run_id)}`;
      if (path[3] === "relaunch" && path.length === 4) {
        const inputs = parseAnswer(form.get("inputs") ?? "");
        if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs)) {
          redirect(r, `${back}?msg=${encodeURIComponent("inputs must be a JSON object")}`);
          return true;
        }
        void h.relaunch(run, inputs as Record<string, unknown>).then(
          (out) =>
            redirect(
              r,
              out.ok
                ? `/_app/runs/${encodeURIComponent(run.environment)}/${encodeURIComponent(out.runId)}?msg=${encodeURIComponent(`launched again from ${run.run_id}`)}`
                : `${back}?msg=${encodeURIComponent(out.message)}`,
            ),
          (error: unknown) =>
            redirect(
              r,
              `${back}?msg=${encodeURIComponent(`not launched: ${(error as Error).message}`)}`,
            ),
        );
        return true;
      }
      if (path[3] === "answer" && path.length === 4) {
        const out = h.answer(
          run,
          form.get("checkpoint_id") ?? "",
          parseAnswer(form.get("response") ?? ""),
        );
        redirect(r, `${back}?msg=${encodeURIComponent(out.message)}`);
        return true;
      }
      if (path[3] === "faults" && path.length === 5 && isDeliveryFaultKind(path[4] as string)) {
        // Callback delivery faults: the numbers typed in the form, checked as the admin API does.
        const kind = path[4] as DeliveryFaultKind;
        const num = (name: string) => {
          const v = (form.get(name) ?? "").trim();
          return v === "" ? undefined : Number(v);
        };
        const body: Record<string, unknown> = {};
        if (kind === "callback-late") body.delay_ms = num("delay_ms");
        if (kind === "callback-fail") {
          body.attempts = num("attempts");
          body.status = num("status");
        }
        const refused = h.armDeliveryFault(run, kind, body);
        redirect(r, `${back}?msg=${encodeURIComponent(refused ?? `callback fault ${kind} armed`)}`);
        return true;
      }
      if (path[3] === "faults" && path.length === 5) {
        const kind = path[4] as Fault["kind"];
        const body: Record<string, unknown> = {};
        if (kind === "fail") body.status = form.get("status") ?? RUN_STATUS.failed;
        if (kind === "fail")
          body.error = { code: CODE.INJECTED, message: "failed from the web application" };
        if (kind === "succeed" && (form.get("outputs") ?? "").trim() !== "") {
          const outputs = parseAnswer(form.get("outputs") ?? "");
          if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs))
            throw new HttpError(400, CODE.INVALID_FAULT, "outputs must be a JSON object");
          body.outputs = outputs;
        }
        const refused = h.inject(run, kind, body);
        redirect(r, `${back}?msg=${encodeURIComponent(refused ?? `fault ${kind} injected`)}`);
        return true;
      }
    }
    if (path[0] === "callbacks" && path[3] === "resend" && path.length === 4) {
      // The return path is checked before anything is resent: only a path of this application
      // in URL characters (never an absolute URL: no open redirect; never CR/LF in Location).
      const back = form.get("back") ?? "/";
      const safeBack = /^\/_app\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/.test(back) ? back : "/";
      const ok = h.resendCallback(path[1] as string, path[2] as string);
      if (!ok)
        throw new HttpError(404, CODE.EVENT_NOT_FOUND, "no callback with this event_id was sent");
      redirect(r, `${safeBack}?msg=${encodeURIComponent(`callback ${path[2]} resent`)}`);
      return true;
    }
    if (path[0] === "api-faults" && path.length === 1) {
      // The form's fields as the admin API's body; the numbers typed, checked the same way.
      const text = (name: string) => (form.get(name) ?? "").trim();
      const num = (name: string) => (text(name) === "" ? undefined : Number(text(name)));
      const fault = text("fault");
      const body: Record<string, unknown> = {
        route: text("route"),
        fault,
        count: num("count"),
        environment: text("environment"),
        workspace: text("workspace"),
      };
      if (fault === "status") body.status = num("status");
      if (fault === "stall" || fault === "delay") body.ms = num("ms");
      const refused = h.armApiFault(body);
      redirect(r, `/_app/api-faults?msg=${encodeURIComponent(refused ?? "API fault added")}`);
      return true;
    }
    if (path[0] === "api-faults" && path[2] === "remove" && path.length === 3) {
      if (!h.removeApiFault(path[1] as string))
        throw new HttpError(404, CODE.NOT_FOUND, "no API fault with this id");
      redirect(r, "/_app/api-faults");
      return true;
    }
    if (path[0] === "keys" && path.length === 1) {
      const env = form.get("environment") ?? "";
      const scopes = form.getAll("scopes");
      if (!envs.some((e) => e.def.name === env))
        throw new HttpError(400, CODE.INVALID_ENVIRONMENT, "unknown environment");
      if (scopes.length === 0 || scopes.some((s) => !h.scopes.includes(s)))
        throw new HttpError(400, CODE.INVALID_SCOPE, `choose scopes among ${h.scopes.join(", ")}`);
      const token = h.createKey(env, scopes);
      page(
        r,
        201,
        "API keys",
        keysPage({
          keys: h.listKeys(),
          environments: envs.map((e) => e.def.name),
          scopes: h.scopes,
          csrf,
          created: { token, environment: env },
        }),
        "keys",
      );
      return true;
    }
    if (path[0] === "keys" && path[2] === "revoke" && path.length === 3) {
      if (!h.revokeKey(path[1] as string))
        throw new HttpError(404, CODE.KEY_NOT_FOUND, "no such key");
      redirect(r, "/_app/keys");
      return true;
    }
    if (path[0] === "tokens" && path.length === 1) {
      const env = form.get("environment") ?? "";
      if (!envs.some((e) => e.def.name === env))
        throw new HttpError(400, CODE.INVALID_ENVIRONMENT, "unknown environment");
      const token = h.createToken(env);
      page(
        r,
        201,
        "Personal access tokens",
        tokensPage({
          tokens: h.listTokens(),
          environments: envs.map((e) => e.def.name),
          csrf,
          created: { token, environment: env },
        }),
        "tokens",
      );
      return true;
    }
    if (path[0] === "tokens" && path[2] === "revoke" && path.length === 3) {
      if (!h.revokeToken(path[1] as string))
        throw new HttpError(404, CODE.TOKEN_NOT_FOUND, "no such token");
      redirect(r, "/_app/tokens");
      return true;
    }
    if (path[0] === "environments" && path[2] === "reset" && path.length === 3) {
      h.resetEnvironment(path[1] as string);
      redirect(r, "/_app/workflows");
      return true;
    }
    if (path[0] === "workflows" && path[3] === "state" && path.length === 4) {
      const state = form.get("state");
      if (state !== "enabled" && state !== "disabled")
        throw new HttpError(400, CODE.INVALID_STATE, "state must be enabled or disabled");
      h.setWorkflowState(path[1] as string, path[2] as string, state);
      redirect(r, "/_app/workflows");
      return true;
    }
    throw new HttpError(404, CODE.NOT_FOUND, "no such form");
  }
}

export { SIGN_IN_PATH };
