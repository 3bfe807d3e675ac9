// The thin node:http edge: the server's lifecycle (start, replay, stop) and its shared state.
// What a request meets is surfaces.ts (the edge middleware of middleware.ts, then one route
// table per surface, router.ts); replay is persistence.ts and state-changes.ts, the web
// application's host web-app-host.ts, the engine's callbacks engine-hooks.ts.

import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { BrowserAccessGrants } from "../access/browser-access-grants.js";
import type { ApiKey } from "../access/credentials.js";
import { tokenHash } from "../access/credentials.js";
import { PORTAL_SESSION_TTL_MS } from "../access/portal-sessions.js";
import { SignInLinks } from "../access/sign-in.js";
import { AgentSurface } from "../agent/agent-surface.js";
import { allowedHostNames } from "../edge/request-guard.js";
import { CallbackDispatcher, type PendingCallback } from "../engine/callbacks.js";
import { type Clock, RealClock, VirtualClock } from "../engine/clock.js";
import { IdempotencyStore } from "../engine/idempotency.js";
import { RecordingRateLimiter } from "../engine/recording.js";
import { RunEngine } from "../engine/run-engine.js";
import type { Links } from "../engine/run-views.js";
import { parseScenario } from "../engine/scenario.js";
import { ApiFaults } from "../faults/api-faults.js";
import { DeliveryFaults } from "../faults/delivery-faults.js";
import {
  BackgroundCompactor,
  DEFAULT_COMPACT_AFTER_BYTES,
} from "../journal/background-compaction.js";
import { Journal } from "../journal/journal.js";
import type { JournalRecord } from "../journal/journal-records.js";
import { RunArchive } from "../journal/run-archive.js";
import type { EnvState, EnvView, PortalSession, ServerConfig } from "../state/emulator-state.js";
import { holdCallback, resendCallback, useDeliveryFault } from "../state/emulator-state.js";
import { persistRun, replay, snapshot } from "../state/persistence.js";
import { commit } from "../state/state-changes.js";
import type { WebAppHost } from "../web-app/host.js";
import { holdUntilDurable } from "./durable-responses.js";
import { fileOutputs, notify, synthesize } from "./engine-hooks.js";
import { requestListener, type SurfaceHost } from "./surfaces.js";
import { webAppHost } from "./web-app-host.js";

// An idle keep-alive connection is kept longer than any client's own idle timer (undici
// reuses a socket for up to the server's hint minus one second): with 5 s, a loaded
// machine's delayed timers let a client reuse a socket the server was closing (ECONNRESET).
// close() destroys every socket, so a long idle time never delays a stop.
const KEEP_ALIVE_MS = 65_000;

export class Emulator implements SurfaceHost {
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
  readonly webApp: WebAppHost;
  private journal: Journal | null = null;
  /** Finished runs beyond the limit, on disk (with --data; run-archive.ts). */
  archive: RunArchive | null = null;
  readonly finishedInMemory = new Set<string>();
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  origin = "http://127.0.0.1:0";
  private hostNameSet: Set<string> = new Set();
  private readonly portalSessionTtlMs: number;
  private sameOriginSet: Set<string> = new Set();

  constructor(readonly cfg: ServerConfig) {
    this.portalSessionTtlMs = cfg.portalSessionTtlMs ?? PORTAL_SESSION_TTL_MS;
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
      archived: (runId) => this.archive?.get(runId),
    });
    this.dispatcher = new CallbackDispatcher({
      ...(cfg.webhookSecret ? { secret: cfg.webhookSecret } : {}),
      policy: {
        allowLocal: cfg.allowLocalCallbacks,
        deliverPublic: cfg.deliverPublic ?? false,
        ...(cfg.forwardCallbacks ? { forwardTo: cfg.forwardCallbacks } : {}),
      },
      durable: () => this.journal?.durable() ?? null,
      injectFailure: (cb) =>
        useDeliveryFault(this, cb.run_id, this.deliveryFaults.forAttempt(cb.run_id)),
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
      commit: (rec) => commit(this, rec),
      now: () => this.clock.now(),
      sameOrigins: () => this.sameOriginSet,
      isApiKey: (token) => this.keys.has(tokenHash(token)),
      origin: () => this.origin,
      tokenHash,
      sessionsPerWorkspace: this.cfg.mcpSessionsPerWorkspace,
    });
    this.webApp = webAppHost(this);
  }

  commit(rec: JournalRecord): void {
    commit(this, rec);
  }

  record(rec: JournalRecord): void {
    this.journal?.append(rec);
    this.compactor?.maybeStart();
  }

  openPortalSession(session: PortalSession): string {
    const id = randomBytes(24).toString("base64url");
    this.portalSessions.set(id, { ...session, expiresAt: Date.now() + this.portalSessionTtlMs });
    return id;
  }

  /** Ends a portal session (the web application's sign-out). */
  closePortalSession(id: string): void {
    this.portalSessions.delete(id);
  }

  holdCallback(cb: PendingCallback, payload: Record<string, unknown>): void {
    holdCallback(this, cb, payload);
  }

  resendCallback(env: EnvView, eventId: string): boolean {
    return resendCallback(this, env, eventId);
  }

  /** Compact the journal now, while serving (admin `POST /_emulator/journal/compact`). */
  compactJournal() {
    return this.compactor?.compactNow() ?? Promise.resolve(null);
  }

  sameOrigins(): ReadonlySet<string> {
    return this.sameOriginSet;
  }

  hostNames(): ReadonlySet<string> {
    return this.hostNameSet;
  }

  // ---------- lifecycle ----------

  async listen(port: number, host: string): Promise<void> {
    if (this.cfg.data) {
      this.archive = new RunArchive(`${this.cfg.data}.runs`);
      await replay(this, this.cfg.data);
      this.journal = new Journal(this.cfg.data);
      const archive = this.archive;
      this.compactor = new BackgroundCompactor(
        this.journal,
        () => snapshot(this, true),
        this.cfg.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES,
        statSync(this.cfg.data).size,
        undefined,
        () => archive.durable(),
      );
    }
    // Everything a request meets is in surfaces.ts: the edge middleware, then the surfaces.
    const listener = requestListener(this);
    const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) => {
      // With --data, no answer leaves before the journal holds what it shows (journal.ts).
      if (this.journal) holdUntilDurable(res, () => this.journal?.durable() ?? null);
      listener(req, res);
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
    this.hostNameSet = allowedHostNames(host, this.cfg.allowedHosts);
    this.sameOriginSet = new Set([...this.hostNameSet].map((n) => `http://${n}:${addr.port}`));
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
    await this.journal?.close();
    this.journal = null;
    await this.archive?.close();
  }

  /** A new one-time sign-in link to the web application. */
  createSignInLink(): string {
    return this.signIn.create(this.origin, this.clock.now());
  }
}
