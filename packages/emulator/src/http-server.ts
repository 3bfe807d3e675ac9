// The thin node:http edge: the server's lifecycle, its shared state and the top-level dispatch.
// The public API's routes and handlers are in api-routes.ts / api-handlers.ts, auth in auth.ts,
// CORS in cors.ts, the admin API in admin-routes.ts, replay in persistence.ts, the web
// application's host in web-app-host.ts, the engine's callbacks in engine-hooks.ts.

import { statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { CODE, DEFINITION_FILE } from "@wfr/protocol";
import { stringify as toYaml } from "yaml";
import { handleAdmin } from "./admin-routes.js";
import { AgentSurface } from "./agent-surface.js";
import { ApiFaults, applyApiFault, faultLabel } from "./api-faults.js";
import { matchApiRoute } from "./api-routes.js";
import { authenticate, portalSession, refuseKeyInQuery, requireScope } from "./auth.js";
import { BackgroundCompactor, DEFAULT_COMPACT_AFTER_BYTES } from "./background-compaction.js";
import { BrowserAccessGrants } from "./browser-access-grants.js";
import { CallbackDispatcher, type PendingCallback } from "./callbacks.js";
import { type Clock, RealClock, VirtualClock } from "./clock.js";
import { cors } from "./cors.js";
import { emitDefinition } from "./definition-emit.js";
import { DeliveryFaults } from "./delivery-faults.js";
import type {
  ApiKey,
  EmulatorState,
  EnvState,
  PortalSession,
  ServerConfig,
} from "./emulator-state.js";
import { tokenHash } from "./emulator-state.js";
import { fileBytes, fileOutputs, notify, scenarioFile, synthesize } from "./engine-hooks.js";
import { markerBytes } from "./file-markers.js";
import { attachmentDisposition, failResponse, HttpError, sendJson } from "./http-kit.js";
import { IdempotencyStore } from "./idempotency.js";
import { Journal } from "./journal.js";
import type { JournalRecord } from "./journal-records.js";
import { liveView } from "./live-view.js";
import { persistRun, replay, snapshot } from "./persistence.js";
import { RecordingRateLimiter } from "./recording.js";
import { allowedHostNames, checkAdminRequest, checkHost } from "./request-guard.js";
import { logRequest, noteRequest } from "./request-log.js";
import { newId, RunEngine } from "./run-engine.js";
import type { Links } from "./run-views.js";
import { parseScenario } from "./scenario.js";
import { commit } from "./state-changes.js";
import { SignInLinks } from "./web-app/sign-in.js";
import { handleWebApp, type WebAppHost } from "./web-app/web-app.js";
import { webAppHost } from "./web-app-host.js";

export { SCOPES } from "./api-routes.js";
export type { ApiKey, ServerConfig } from "./emulator-state.js";
export { tokenHash } from "./emulator-state.js";
export { fileBytes } from "./engine-hooks.js";

export class Emulator implements EmulatorState {
  readonly clock: Clock;
  readonly engine: RunEngine;
  readonly envs = new Map<string, EnvState>();
  readonly keys = new Map<string, ApiKey>();
  readonly idem = new IdempotencyStore();
  readonly limiter = new RecordingRateLimiter();
  readonly dispatcher: CallbackDispatcher;
  readonly pending = new Map<string, PendingCallback>();
  /** Callbacks sent since start, by event_id, for POST .../callbacks/{event_id}/resend. */
  readonly sent = new Map<string, PendingCallback>();
  /**
   * Portal sessions: made by the admin API for one environment, or by the web application's
   * sign-in link for the local developer (`everywhere`: a portal user in every environment).
   */
  readonly portalSessions = new Map<string, PortalSession>();
  /** One-time sign-in links and CSRF tokens of the web application. */
  readonly signIn = new SignInLinks();
  /** The link printed at start-up. */
  signInUrl = "";
  /** The agent surface: /mcp, personal access tokens, authoring (agent-surface.ts). */
  readonly agents: AgentSurface;
  /** How many of each run's events are already in the journal (the rest go in its next delta). */
  readonly eventsWritten = new Map<string, number>();
  /** Recording downloads counted against the hourly budget, as [workspace, time]. */
  readonly recordingAttempts: [string, number][] = [];
  /** Browser-access grants (browser-access-grants.ts). */
  readonly grants = new BrowserAccessGrants();
  /** Callback delivery faults armed from the admin API or the web app (delivery-faults.ts). */
  readonly deliveryFaults = new DeliveryFaults();
  /** Faults on the API itself, from the admin API, the web app or flags (api-faults.ts). */
  readonly apiFaults = new ApiFaults();
  /** Background journal compaction, with --data (background-compaction.ts). */
  private compactor: BackgroundCompactor | null = null;
  /** The web application's view of the emulator (web-app-host.ts). */
  private readonly webApp: WebAppHost;
  private journal: Journal | null = null;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  origin = "http://127.0.0.1:0";
  private hostNames: Set<string> = new Set();
  private sameOriginSet: Set<string> = new Set();

  constructor(readonly cfg: ServerConfig) {
    this.clock = cfg.clock === "virtual" ? new VirtualClock() : new RealClock();
    for (const def of cfg.environments) {
      this.envs.set(def.name, { def, scenarios: new Map(), deliveries: [] });
    }
    this.engine = new RunEngine(this.clock, {
      persist: (run) => persistRun(this, run),
      notify: (run, type) => notify(this, run, type),
      vault: (env) => this.envs.get(env)?.def.vault ?? {},
      synthesize: (run) => synthesize(this, run),
      fileOutputs: (run, outputs) => fileOutputs(this, run, outputs),
    });
    this.dispatcher = new CallbackDispatcher({
      ...(cfg.webhookSecret ? { secret: cfg.webhookSecret } : {}),
      policy: {
        allowLocal: cfg.allowLocalCallbacks,
        deliverPublic: cfg.deliverPublic ?? false,
        ...(cfg.forwardCallbacks ? { forwardTo: cfg.forwardCallbacks } : {}),
      },
      injectFailure: (cb) => {
        const status = this.deliveryFaults.takeFailure(cb.run_id);
        if (status !== null) this.recordFaultPlan(cb.run_id);
        return status;
      },
      onAttempt: (env, a) => {
        commit(this, { t: "attempt", env, attempt: a });
      },
      onDone: (cb) => {
        commit(this, { t: "cb_done", event_id: cb.event_id });
        this.sent.set(cb.event_id, cb); // since start only: not journalled
      },
    });
    // ---- the agent surface sees the emulator only through this host ----
    this.agents = new AgentSurface({
      environment: (name) => this.envs.get(name)?.def,
      links: (env) => this.links(env),
      record: (rec) => this.record(rec),
      now: () => this.clock.now(),
      sameOrigins: () => this.sameOriginSet,
      portalSession: (req) => portalSession(this, req),
      isApiKey: (token) => this.keys.has(tokenHash(token)),
      tokenHash,
    });
    this.webApp = webAppHost(this);
  }

  record(rec: JournalRecord): void {
    this.journal?.append(rec);
    this.compactor?.maybeStart();
  }

  /** Persist a run's armed delivery faults (after arming, or after one was used). */
  recordFaultPlan(runId: string): void {
    this.record({ t: "delivery_faults", run_id: runId, plan: this.deliveryFaults.plan(runId) });
  }

  /** Compact the journal now, while serving (admin `POST /_emulator/journal/compact`). */
  compactJournal() {
    return this.compactor?.compactNow() ?? Promise.resolve(null);
  }

  sameOrigins(): ReadonlySet<string> {
    return this.sameOriginSet;
  }

  // ---------- lifecycle ----------

  async listen(port: number, host: string): Promise<void> {
    if (this.cfg.data) {
      replay(this, this.cfg.data);
      this.journal = new Journal(this.cfg.data);
      this.compactor = new BackgroundCompactor(
        this.journal,
        () => snapshot(this, true),
        this.cfg.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES,
        statSync(this.cfg.data).size,
      );
    }
    const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
      // One id per request on every answer, as a real API gateway sends it: clients
      // (the runtime's `_requestId`, `error.requestId`) quote it in support requests.
      res.setHeader("X-Request-Id", newId("req"));
      logRequest(this.cfg.requestLog ?? "off", req, res);
      this.handle(req, res).catch((e) => failResponse(res, e));
    });
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    const h = host.includes(":") ? `[${host}]` : host;
    this.origin = `http://${h}:${addr.port}`;
    this.hostNames = allowedHostNames(host, this.cfg.allowedHosts);
    this.sameOriginSet = new Set([...this.hostNames].map((n) => `http://${n}:${addr.port}`));
    this.signInUrl = this.signIn.create(this.origin, this.clock.now());
    // Runs continue after a restart: catch up on due steps, resend pending callbacks.
    this.engine.tick();
    for (const cb of this.pending.values()) {
      const env = this.envs.get(cb.environment);
      const made = env?.deliveries.filter((a) => a.event_id === cb.event_id).length ?? 0;
      this.dispatcher.send(cb, made + 1);
    }
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  environmentNames(): string[] {
    return [...this.envs.keys()];
  }

  /** What the admin API's scenario PUT does, for a scenario given at start (a recorded run). */
  setScenario(environment: string, workflowId: string, raw: unknown): void {
    const env = this.envs.get(environment);
    if (!env)
      throw new Error(
        `no environment ${JSON.stringify(environment)} (it has ${this.environmentNames().join(", ")})`,
      );
    if (!env.def.workflows.has(workflowId))
      throw new Error(`environment ${environment} has no workflow ${JSON.stringify(workflowId)}`);
    const scenario = parseScenario(raw);
    commit(this, { t: "scenario", env: environment, workflow: workflowId, scenario });
  }

  links(env: string): Links {
    return { apiBase: `${this.origin}/${env}/api/v1`, envBase: `${this.origin}/${env}` };
  }

  async close(): Promise<void> {
    this.engine.stop();
    await this.agents.close(); // agent (MCP) sessions
    await this.dispatcher.close();
    await this.compactor?.stop();
    const server = this.server;
    this.server = null;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of this.sockets) s.destroy();
      });
    }
    this.journal?.close();
    this.journal = null;
  }

  /** A new one-time sign-in link to the web application. */
  createSignInLink(): string {
    return this.signIn.create(this.origin, this.clock.now());
  }

  // ---------- top-level dispatch ----------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const badHost = checkHost(req.headers, this.hostNames, req.rawHeaders);
    if (badHost) throw new HttpError(badHost.status, badHost.code, badHost.message);
    if (cors(this, req, res)) return;
    // Split by hand: `new URL("//host/x", base)` would read "host" as an authority.
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    const url = {
      pathname: q < 0 ? raw : raw.slice(0, q),
      searchParams: new URLSearchParams(q < 0 ? "" : raw.slice(q + 1)),
    };
    const parts = url.pathname
      .split("/")
      .filter((p) => p !== "")
      .map((p) => {
        try {
          return decodeURIComponent(p);
        } catch {
          return p;
        }
      });
    refuseKeyInQuery(this, url.searchParams);
    if (parts.length === 0 || parts[0] === "_app") {
      if (await handleWebApp(this.webApp, req, res, parts, url.searchParams)) return;
    }
    if (parts[0] === "mcp" && parts.length === 1) return this.agents.mcp(req, res);
    if (parts[0] === "_emulator") {
      if (!this.cfg.admin) throw new HttpError(404, CODE.NOT_FOUND, "no such route");
      const bad = checkAdminRequest(
        req.method ?? "GET",
        req.headers,
        this.sameOriginSet,
        this.cfg.adminToken,
      );
      if (bad) throw new HttpError(bad.status, bad.code, bad.message);
      return handleAdmin(this, req, res, parts.slice(1));
    }
    const env = parts[0] !== undefined ? this.envs.get(parts[0]) : undefined;
    if (!env) throw new HttpError(404, CODE.NOT_FOUND, "no such route");
    const rest = parts.slice(1);
    if (rest[0] === "api" && rest[1] === "v1") return this.api(req, res, env, rest.slice(2));
    if (rest[0] === "api-docs" && rest.length === 2 && req.method === "GET") {
      const doc = emitDefinition(env.def, this.links(env.def.name).apiBase);
      if (rest[1] === DEFINITION_FILE.json) return sendJson(res, 200, doc);
      if (rest[1] === DEFINITION_FILE.yaml || rest[1] === DEFINITION_FILE.yml) {
        const text = toYaml(doc, { aliasDuplicateObjects: false });
        res.writeHead(200, {
          "Content-Type": "application/yaml; charset=utf-8",
          "Content-Length": Buffer.byteLength(text),
        });
        res.end(text);
        return;
      }
    }
    if (rest[0] === "portal" && rest[1] === "runs" && rest[3] === "live" && rest.length === 4) {
      return liveView(this, req, res, env, rest[2] as string);
    }
    if (await this.agents.portal(req, res, env.def, rest)) return; // portal authoring

    if (rest[0] === "_files" && rest.length === 4 && req.method === "GET") {
      const run = this.engine.runs.get(rest[1] as string);
      const n = Number(rest[2]);
      const link = `${this.links(env.def.name).envBase}/_files/${encodeURIComponent(rest[1] as string)}/${rest[2]}/${rest[3]}`;
      if (
        run &&
        run.environment === env.def.name &&
        JSON.stringify(run.outputs ?? {}).includes(JSON.stringify(link))
      ) {
        const given = scenarioFile(run, n, rest[3] as string);
        const bytes = given ? markerBytes(given) : fileBytes(run.run_id, n, rest[3] as string);
        res.writeHead(200, {
          "Content-Type": given?.mime_type ?? "application/pdf",
          "Content-Length": bytes.length,
          "Content-Disposition": attachmentDisposition(rest[3] as string),
        });
        res.end(bytes);
        return;
      }
    }
    throw new HttpError(404, CODE.NOT_FOUND, "no such route");
  }

  /** /{env}/api/v1/...: the route table (api-routes.ts), then auth, scope and the handler. */
  private async api(
    req: IncomingMessage,
    res: ServerResponse,
    env: EnvState,
    p: string[],
  ): Promise<void> {
    const match = matchApiRoute(req.method ?? "GET", p);
    if (match === null) throw new HttpError(404, CODE.NOT_FOUND, "no such route");
    const key = authenticate(this, req, env);
    requireScope(key, match.route.scope);
    const id = match.param;
    // The log names the run; a grant route's parameter is a grant id, not a run id.
    if (match.route.path.includes("{runId}")) noteRequest(res, { run_id: id });
    const handle = () =>
      match.route.handler({
        st: this,
        req,
        res,
        env,
        key,
        param: id,
        links: this.links(env.def.name),
      });
    const fault = this.apiFaults.take({
      method: req.method ?? "GET",
      path: p,
      environment: env.def.name,
      workspace: key.workspace,
    });
    if (fault === null) return handle();
    commit(this, { t: "api_fault", id: fault.id, rule: structuredClone(fault) });
    noteRequest(res, { fault: `${fault.id}:${faultLabel(fault.action)}` });
    return applyApiFault(fault, req, res, handle);
  }
}
