// The web application's pages (GET, after the developer's session): one row each in the route
// table web-app.ts builds.

import { CODE } from "@wfr/protocol";
import { HttpError } from "../http/http-kit.js";
import { consentPolicy } from "../http/page-headers.js";
import type { RouteTable } from "../http/router.js";
import type { EnvironmentDefView, RunListing, RunRecord } from "../model/types.js";
import type { AppContext } from "./guards.js";
import { oauthConsentPage, oauthRefusedPage } from "./oauth-pages.js";
import {
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
  signOutPage,
  tokensPage,
  vaultPage,
  workflowsPage,
} from "./pages.js";
import { page, redirect, send } from "./respond.js";

function filterOf(q: URLSearchParams): RunFilter {
  return {
    status: q.get("status") ?? "",
    workflow: q.get("workflow") ?? "",
    environment: q.get("environment") ?? "",
    q: (q.get("q") ?? "").trim(),
  };
}

/** Every run matching `filter`, newest first, with its workflow's name. */
function rows(ctx: AppContext, filter: RunFilter): RunRow[] {
  const envs = ctx.host.environments();
  const workflowName = (env: string, id: string) =>
    envs.find((e) => e.def.name === env)?.def.workflows.get(id)?.name ?? id;
  return ctx.host
    .runs()
    .map((run) => ({ run, workflowName: workflowName(run.environment, run.workflow_id) }))
    .filter((row) => runMatches(row, filter))
    .sort((a, b) => b.run.created_at - a.run.created_at || (a.run.run_id < b.run.run_id ? 1 : -1));
}

/** Vault names per environment and the workflows whose runs used them (never values). */
function vaultUse(
  env: EnvironmentDefView,
  runs: RunListing[],
): { name: string; usedBy: string[] }[] {
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
        // A run on disk is listed without its inputs: its workflow's own use is shown above.
        if (r.environment !== env.name || !("scenario" in r)) continue;
        const run = r as RunRecord;
        if (JSON.stringify([run.inputs, run.scenario]).includes(needle))
          used.add(env.workflows.get(r.workflow_id)?.name ?? r.workflow_id);
      }
      return { name, usedBy: [...used].sort() };
    });
}

/** The run of the path, brought up to date; 404 when there is none. */
function runOf(ctx: AppContext): RunRecord {
  const run = ctx.host.run(ctx.params.env as string, ctx.params.runId as string);
  if (!run) throw new HttpError(404, CODE.RUN_NOT_FOUND, "run not found");
  return run;
}

const deliveriesOf = (ctx: AppContext, run: RunRecord) =>
  (ctx.host.environments().find((e) => e.def.name === run.environment)?.deliveries ?? []).filter(
    (a) => a.run_id === run.run_id,
  );

export function addPageRoutes(table: RouteTable<AppContext>): void {
  table
    .add(
      "GET",
      "/_app/oauth/authorize",
      "a connector's sign-in: the person's consent (OAuth)",
      (ctx) => {
        const consent = ctx.host.oauthConsent(ctx.query);
        if (!consent.ok) {
          if (consent.redirectTo) redirect(ctx.res, consent.redirectTo);
          else page(ctx.res, 400, "Sign-in refused", oauthRefusedPage(consent.message));
          return;
        }
        page(
          ctx.res,
          200,
          "Connect an agent",
          oauthConsentPage({
            clientName: consent.clientName,
            redirectUri: consent.redirectUri,
            request: ctx.query.toString(),
            environments: ctx.host
              .environments()
              .map((e) => ({ name: e.def.name, workspace: e.def.workspace })),
            csrf: ctx.csrf,
          }),
          undefined,
          // The form's answer redirects to the connector: form-action must allow its origin.
          { "Content-Security-Policy": consentPolicy(consent.redirectUri) },
        );
      },
    )
    .add("GET", "/_app/sign-out", "sign out (a form)", (ctx) => {
      page(ctx.res, 200, "Sign out", signOutPage(ctx.csrf), "sign-out");
    })
    .add("GET", "/", "run history", (ctx) => {
      const envs = ctx.host.environments();
      const filter = filterOf(ctx.query);
      page(
        ctx.res,
        200,
        "Runs",
        runListPage({
          rows: rows(ctx, filter),
          filter,
          workflows: envs.flatMap((e) =>
            [...e.def.workflows.values()].map((w) => ({
              id: w.id,
              name: w.name,
              environment: e.def.name,
            })),
          ),
          environments: envs.map((e) => e.def.name),
          now: ctx.host.now(),
        }),
        "runs",
      );
    })
    .add("GET", "/_app/runs/rows", "the run history's rows (polled)", (ctx) => {
      const text = runRows(rows(ctx, filterOf(ctx.query)), ctx.host.now()).text;
      send(ctx.res, 200, text, "text/html; charset=utf-8");
    })
    .add("GET", "/_app/runs/:env/:runId", "a run", (ctx) => {
      const run = runOf(ctx);
      const env = ctx.host.environments().find((e) => e.def.name === run.environment);
      const rec = ctx.host.recording(run);
      const deliveries = deliveriesOf(ctx, run);
      page(
        ctx.res,
        200,
        `Run ${run.run_id}`,
        runDetailPage({
          run,
          workflow: env?.def.workflows.get(run.workflow_id),
          links: ctx.host.links(run.environment),
          deliveries,
          version: runVersion(run, deliveries.length),
          csrf: ctx.csrf,
          now: ctx.host.now(),
          recordingState: rec.state,
          flash: ctx.query.get("msg"),
        }),
        "runs",
      );
    })
    .add("GET", "/_app/runs/:env/:runId/version", "whether a run's page changed", (ctx) => {
      // Changes whenever the page would: status, events, answers, deliveries.
      const run = runOf(ctx);
      const attempts = deliveriesOf(ctx, run).length;
      send(
        ctx.res,
        200,
        `${run.updated_at}:${run.status}:${run.events.length}:${attempts}`,
        "text/plain; charset=utf-8",
      );
    })
    .add("GET", "/_app/runs/:env/:runId/recording.mp4", "a run's recording", (ctx) => {
      const rec = ctx.host.recording(runOf(ctx));
      if (rec.bytes === null)
        throw new HttpError(404, CODE.RECORDING_NOT_FOUND, `the recording is ${rec.state}`);
      ctx.res.writeHead(200, {
        "Content-Type": "video/mp4",
        "Content-Length": rec.bytes.length,
        "Cache-Control": "no-store",
      });
      ctx.res.end(ctx.method === "HEAD" ? undefined : rec.bytes);
    })
    .add("GET", "/_app/docs", "API docs", (ctx) => docs(ctx, null))
    .add("GET", "/_app/docs/:env", "API docs of an environment", (ctx) =>
      docs(ctx, ctx.params.env as string),
    )
    .add("GET", "/_app/keys", "API keys", (ctx) => {
      page(
        ctx.res,
        200,
        "API keys",
        keysPage({
          keys: ctx.host.listKeys(),
          environments: ctx.host.environments().map((e) => e.def.name),
          scopes: ctx.host.scopes,
          csrf: ctx.csrf,
          created: null,
        }),
        "keys",
      );
    })
    .add("GET", "/_app/tokens", "personal access tokens", (ctx) => {
      page(
        ctx.res,
        200,
        "Personal access tokens",
        tokensPage({
          tokens: ctx.host.listTokens(),
          environments: ctx.host.environments().map((e) => e.def.name),
          csrf: ctx.csrf,
          created: null,
        }),
        "tokens",
      );
    })
    .add("GET", "/_app/api-faults", "API faults", (ctx) => {
      page(
        ctx.res,
        200,
        "API faults",
        apiFaultsPage({
          faults: ctx.host.listApiFaults(),
          environments: ctx.host.environments().map((e) => e.def.name),
          csrf: ctx.csrf,
          flash: ctx.query.get("msg"),
        }),
        "faults",
      );
    })
    .add("GET", "/_app/vault", "vault names", (ctx) => {
      const runs = ctx.host.runs();
      const envs = ctx.host.environments();
      page(
        ctx.res,
        200,
        "Vault",
        vaultPage(envs.map((e) => ({ name: e.def.name, entries: vaultUse(e.def, runs) }))),
        "vault",
      );
    })
    .add("GET", "/_app/workflows", "workflows", (ctx) => {
      page(
        ctx.res,
        200,
        "Workflows",
        workflowsPage({
          environments: ctx.host.environments().map((e) => ({
            name: e.def.name,
            workflows: [...e.def.workflows.values()].map((def) => ({
              def,
              scenario: e.scenarios.get(def.id) ?? def.scenario,
              custom: e.scenarios.has(def.id),
            })),
          })),
          csrf: ctx.csrf,
        }),
        "workflows",
      );
    });
}

function docs(ctx: AppContext, selected: string | null): void {
  const envs = ctx.host.environments();
  if (selected !== null && !envs.some((e) => e.def.name === selected))
    throw new HttpError(404, CODE.ENVIRONMENT_NOT_FOUND, "no such environment");
  page(
    ctx.res,
    200,
    "API docs",
    docsPage(
      envs.map((e) => ({
        name: e.def.name,
        workspace: e.def.workspace,
        apiBase: ctx.host.links(e.def.name).apiBase,
        envBase: ctx.host.links(e.def.name).envBase,
        workflows: [...e.def.workflows.values()],
      })),
      selected,
    ),
    "docs",
  );
}
