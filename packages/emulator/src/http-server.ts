// The thin node:http edge: routing, auth, CORS, body limits, and JSON responses.
import { createHash, randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { stringify as toYaml } from "yaml";
import { matchApiRoute, SCOPES, type Scope } from "./api-routes.js";
import { BackgroundCompactor, DEFAULT_COMPACT_AFTER_BYTES } from "./background-compaction.js";
import {
  type BrowserAccessGrant,
  BrowserAccessGrants,
  GRANT_TOKEN_PREFIX,
  GrantError,
  grantView,
  parseGrantRequest,
} from "./browser-access-grants.js";
import { CallbackDispatcher, type DeliveryAttempt, type PendingCallback } from "./callbacks.js";
import {
  type Clock,
  iso,
  LATEST_TIME_MS,
  MAX_ADVANCE_MS,
  RealClock,
  VirtualClock,
} from "./clock.js";
import { emitDefinition } from "./definition-emit.js";
import {
  DeliveryFaultError,
  type DeliveryFaultPlan,
  DeliveryFaults,
  isDeliveryFaultKind,
  parseDeliveryFault,
} from "./delivery-faults.js";
import {
  failResponse,
  HttpError,
  parseJsonBody,
  problemError,
  readBodyWithin,
  sendJson,
} from "./http-kit.js";
import { IdempotencyStore, idempotencyScope, requestFingerprint } from "./idempotency.js";
import { Journal, type JournalRecord, replayJournal } from "./journal.js";
import {
  applyRunDelta,
  callbackFromRecord,
  callbackRecord,
  frozenRun,
  type RunDelta,
  runDelta,
} from "./journal-records.js";
import { isObject } from "./json-text.js";
import {
  BODY_LIMIT,
  checkAttachments,
  checkCallback,
  checkMetadata,
  checkModel,
  checkTopLevel,
  idempotencyKeyOf,
} from "./launch-body.js";
import {
  hasBrowserRecording,
  RecordingRateLimiter,
  recordingBytes,
  recordingState,
} from "./recording.js";
import { allowedHostNames, checkAdminRequest, checkHost } from "./request-guard.js";
import { logRequest, noteRequest, type RequestLogFormat } from "./request-log.js";
import { type Fault, type NotifyType, newId, RunEngine } from "./run-engine.js";
import { envelope, eventsView, type Links, resultView } from "./run-views.js";
import { defaultScenario, parseScenario, parseStep } from "./scenario.js";
import { synthesizeOutputs } from "./synthesize-outputs.js";
import {
  type EnvironmentDef,
  isTerminal,
  type RunRecord,
  type Scenario,
  type WorkflowState,
} from "./types.js";
import { declaresFileInput, validateInputs } from "./validate-inputs.js";

export { SCOPES } from "./api-routes.js";

/** A stored API key: only the SHA-256 of the token is kept (memory and journal). */
export interface ApiKey {
  token_sha256: string;
  environment: string;
  workspace: string;
  scopes: Scope[];
}

export interface ServerConfig {
  environments: EnvironmentDef[];
  clock: "real" | "virtual";
  admin: boolean;
  allowLocalCallbacks: boolean;
  corsOrigins: string[];
  webhookSecret?: string;
  data?: string;
  requestLog?: RequestLogFormat;
  adminToken?: string;
  forwardCallbacks?: string;
  deliverPublic?: boolean;
  /** Extra Host names accepted besides the listening address and localhost. */
  allowedHosts?: string[];
  /** Background compaction once this many bytes were appended since the last (default 64 MiB). */
  compactAfterBytes?: number;
}

const QUERY_KEY_PARAMS = ["api_key", "apikey", "key", "token", "access_token"];
const HUMAN_INPUT_LIMIT = 1_048_576;

const ADMIN_LIMIT = 8_388_608;

export const tokenHash = (token: string): string =>
  createHash("sha256").update(token, "utf8").digest("hex");

interface EnvState {
  def: EnvironmentDef;
  scenarios: Map<string, Scenario>;
  deliveries: DeliveryAttempt[];
}

export class Emulator {
  readonly clock: Clock;
  readonly engine: RunEngine;
  private readonly envs = new Map<string, EnvState>();
  private readonly keys = new Map<string, ApiKey>();
  private readonly idem = new IdempotencyStore();
  private readonly limiter = new RecordingRateLimiter();
  private readonly dispatcher: CallbackDispatcher;
  private readonly pending = new Map<string, PendingCallback>();
  /** Callbacks sent since start, by event_id, for POST .../callbacks/{event_id}/resend. */
  private readonly sent = new Map<string, PendingCallback>();
  private readonly portalSessions = new Map<string, { environment: string; workspace: string }>();
  private readonly grants = new BrowserAccessGrants();
  private readonly deliveryFaults = new DeliveryFaults();
  private compactor: BackgroundCompactor | null = null;
  private journal: Journal | null = null;
  /** How many of each run's events are already in the journal (the rest go in its next delta). */
  private readonly eventsWritten = new Map<string, number>();
  /** Recording downloads counted against the hourly budget, as [workspace, time]. */
  private readonly recordingAttempts: [string, number][] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  origin = "http://127.0.0.1:0";
  private hostNames: Set<string> = new Set();
  private sameOrigins: Set<string> = new Set();

  constructor(private readonly cfg: ServerConfig) {
    this.clock = cfg.clock === "virtual" ? new VirtualClock() : new RealClock();
    for (const def of cfg.environments) {
      this.envs.set(def.name, { def, scenarios: new Map(), deliveries: [] });
    }
    this.engine = new RunEngine(this.clock, {
      persist: (run) => this.persistRun(run),
      notify: (run, type) => this.notify(run, type),
      vault: (env) => this.envs.get(env)?.def.vault ?? {},
      synthesize: (run) => this.synthesize(run),
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
        this.envs.get(env)?.deliveries.push(a);
        this.record({ t: "attempt", env, attempt: a });
      },
      onDone: (cb) => {
        this.pending.delete(cb.event_id);
        this.sent.set(cb.event_id, cb);
        this.record({ t: "cb_done", event_id: cb.event_id });
      },
    });
  }

  // ---------- persistence ----------

  private record(rec: JournalRecord): void {
    this.journal?.append(rec);
    this.compactor?.maybeStart();
  }

  private recordFaultPlan(runId: string): void {
    this.record({ t: "delivery_faults", run_id: runId, plan: this.deliveryFaults.plan(runId) });
  }

  /** The whole run when first accepted, afterwards only what changed (run-delta.ts). */
  private persistRun(run: RunRecord): void {
    const written = this.eventsWritten.get(run.run_id);
    if (written === undefined) this.record({ t: "run", run });
    else this.record(runDelta(run, written));
    this.eventsWritten.set(run.run_id, run.events.length);
  }

  private applyRecord(rec: JournalRecord): void {
    switch (rec.t) {
      case "key": {
        // Older journals stored the token itself; keep only its hash.
        const k = rec.key as ApiKey & { token?: string };
        const hash = k.token_sha256 ?? tokenHash(k.token ?? "");
        this.keys.set(hash, {
          token_sha256: hash,
          environment: k.environment,
          workspace: k.workspace,
          scopes: k.scopes,
        });
        break;
      }
      case "scenario": {
        const env = this.envs.get(rec.env as string);
        if (!env) break;
        if (rec.scenario) env.scenarios.set(rec.workflow as string, rec.scenario as Scenario);
        else env.scenarios.delete(rec.workflow as string);
        break;
      }
      case "state": {
        const wf = this.envs.get(rec.env as string)?.def.workflows.get(rec.workflow as string);
        if (wf) wf.state = rec.state as WorkflowState;
        break;
      }
      case "clock":
        if (this.clock instanceof VirtualClock) this.clock.set(rec.now as number);
        break;
      case "run": {
        const run = rec.run as RunRecord;
        if (this.clock instanceof VirtualClock) this.clock.set(run.updated_at);
        this.engine.restore(run);
        this.eventsWritten.set(run.run_id, run.events.length);
        break;
      }
      case "run_upd": {
        const d = rec as RunDelta;
        const run = this.engine.runs.get(d.run_id);
        if (!run) break;
        applyRunDelta(run, d);
        if (this.clock instanceof VirtualClock) this.clock.set(run.updated_at);
        this.engine.restore(run);
        this.eventsWritten.set(run.run_id, run.events.length);
        break;
      }
      case "cb": {
        const cb = callbackFromRecord(rec, this.engine.runs);
        this.pending.set(cb.event_id, cb);
        break;
      }
      case "reset":
        this.resetEnvironment(rec.env as string);
        break;
      case "cb_done":
        this.pending.delete(rec.event_id as string);
        break;
      case "attempt":
        this.envs.get(rec.env as string)?.deliveries.push(rec.attempt as DeliveryAttempt);
        break;
      case "recording_download":
        this.limiter.restore(rec.workspace as string, rec.at as number);
        this.recordingAttempts.push([rec.workspace as string, rec.at as number]);
        break;
      case "grant":
        this.grants.restore(rec.grant as BrowserAccessGrant);
        break;
      case "grant_deleted":
        this.grants.delete(rec.grant_id as string);
        break;
      case "delivery_faults":
        this.deliveryFaults.restore(rec.run_id as string, rec.plan as DeliveryFaultPlan | null);
        break;
    }
  }

  /**
   * Everything the journal must hold to rebuild the current state, one record at a time.
   * `frozen`: runs as copies later changes cannot reach (background compaction serializes
   * them while the server keeps changing the live ones).
   */
  private *snapshot(frozen = false): Generator<JournalRecord> {
    for (const key of this.keys.values()) yield { t: "key", key };
    for (const env of this.envs.values()) {
      for (const wf of env.def.workflows.values())
        yield { t: "state", env: env.def.name, workflow: wf.id, state: wf.state };
      for (const [workflow, scenario] of env.scenarios)
        yield { t: "scenario", env: env.def.name, workflow, scenario };
      for (const attempt of env.deliveries) yield { t: "attempt", env: env.def.name, attempt };
    }
    if (this.clock instanceof VirtualClock) yield { t: "clock", now: this.clock.now() };
    for (const run of this.engine.runs.values())
      yield { t: "run", run: frozen ? frozenRun(run) : run };
    for (const cb of this.pending.values()) yield callbackRecord(cb, JSON.parse(cb.body));
    const hourAgo = this.clock.now() - 3_600_000;
    for (const [workspace, at] of this.recordingAttempts)
      if (at > hourAgo) yield { t: "recording_download", workspace, at };
    for (const grant of this.grants.live(this.clock.now())) yield { t: "grant", grant };
    for (const [run_id, plan] of this.deliveryFaults.all())
      yield { t: "delivery_faults", run_id, plan: structuredClone(plan) };
  }

  private snapshotSize(): number {
    let n = this.keys.size + 1 + this.engine.runs.size + this.pending.size;
    for (const env of this.envs.values())
      n += env.def.workflows.size + env.scenarios.size + env.deliveries.length;
    n += this.grants.live(this.clock.now()).length + this.deliveryFaults.all().length;
    return n + this.recordingAttempts.length;
  }

  /** Replay the journal by streaming it; compact it when it holds superseded records. */
  private replay(file: string): void {
    const summary = replayJournal(file, (rec) => this.applyRecord(rec));
    for (const run of this.engine.runs.values()) {
      if (run.idempotency_key !== null) {
        this.idem.remember(
          idempotencyScope(run.workspace, run.environment, run.workflow_id, run.idempotency_key),
          run.run_id,
          run.fingerprint,
        );
      }
    }
    if (summary.records > this.snapshotSize()) Journal.rewrite(file, this.snapshot());
  }

  /** Compact the journal now, while serving (admin `POST /_emulator/journal/compact`). */
  compactJournal() {
    return this.compactor?.compactNow() ?? Promise.resolve(null);
  }

  // ---------- lifecycle ----------

  async listen(port: number, host: string): Promise<void> {
    if (this.cfg.data) {
      this.replay(this.cfg.data);
      this.journal = new Journal(this.cfg.data);
      this.compactor = new BackgroundCompactor(
        this.journal,
        () => this.snapshot(true),
        this.cfg.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES,
        statSync(this.cfg.data).size,
      );
    }
    const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
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
    this.sameOrigins = new Set([...this.hostNames].map((n) => `http://${n}:${addr.port}`));
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

  links(env: string): Links {
    return { apiBase: `${this.origin}/${env}/api/v1`, envBase: `${this.origin}/${env}` };
  }

  async close(): Promise<void> {
    this.engine.stop();
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

  // ---------- engine hooks ----------

  private synthesize(run: RunRecord): Record<string, unknown> {
    const wf = this.envs.get(run.environment)?.def.workflows.get(run.workflow_id);
    let n = 0;
    const base = this.links(run.environment).envBase;
    return synthesizeOutputs(wf?.outputs ?? {}, run.run_id, {
      file: (field) => {
        n += 1;
        const filename = `${(field.split(".").pop() ?? "file").replace(/[^A-Za-z0-9_-]/g, "_") || "file"}.pdf`;
        return {
          download_url: `${base}/_files/${encodeURIComponent(run.run_id)}/${n}/${filename}`,
          filename,
          mime_type: "application/pdf",
          size_bytes: fileBytes(run.run_id, n, filename).length,
          expires_at: iso(this.clock.now() + 3_600_000),
        };
      },
    });
  }

  private notify(run: RunRecord, type: NotifyType): void {
    if (!run.callback_url) return;
    const payload: Record<string, unknown> = {
      event_id: newId("evt"),
      type,
      run: envelope(run, this.links(run.environment)),
    };
    if (type === "workflow.run.completed") payload.result = resultView(run);
    const cb: PendingCallback = {
      event_id: payload.event_id as string,
      environment: run.environment,
      run_id: run.run_id,
      type,
      url: run.callback_url,
      body: JSON.stringify(payload),
    };
    this.pending.set(cb.event_id, cb);
    this.record(callbackRecord(cb, payload));
    // Delivery faults armed from the admin API (delivery-faults.ts): late, and/or twice.
    const fault = this.deliveryFaults.takeForCallback(run.run_id);
    if (fault === null) {
      this.dispatcher.send(cb);
      return;
    }
    this.recordFaultPlan(run.run_id);
    const late = fault.delayMs > 0 ? { delayMs: fault.delayMs, injected: "late" as const } : {};
    this.dispatcher.send(cb, 1, undefined, late);
    if (fault.twice) this.dispatcher.send(cb, 1, undefined, { ...late, injected: "twice" });
  }

  private cors(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    const allowed =
      typeof origin === "string" &&
      (this.cfg.corsOrigins.includes(origin) || this.grantPreflight(req, origin));
    if (allowed) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Vary", "Origin");
      res.setHeader("Access-Control-Expose-Headers", "Retry-After, X-Should-Retry");
    }
    if (req.method === "OPTIONS") {
      if (allowed) {
        // Spec "Authentication" 8: preflights from permitted origins allow Idempotency-Key.
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS");
        res.setHeader(
          "Access-Control-Allow-Headers",
          "Authorization, Content-Type, Idempotency-Key",
        );
        res.setHeader("Access-Control-Max-Age", "600");
      }
      res.writeHead(204, { "Content-Length": "0" });
      res.end();
      return true;
    }
    return false;
  }

  /**
   * A preflight for the live view from an origin a live grant of that run names (a preflight
   * carries no token, so the origin is all there is to check; the GET itself checks the grant).
   */
  private grantPreflight(req: IncomingMessage, origin: string): boolean {
    if (req.method !== "OPTIONS") return false;
    const m = /^\/([^/?]+)\/portal\/runs\/([^/?]+)\/live(?:\?|$)/.exec(req.url ?? "");
    if (!m) return false;
    return this.grants.permitsOrigin(
      decodeURIComponent(m[1] as string),
      decodeURIComponent(m[2] as string),
      origin,
      this.clock.now(),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const badHost = checkHost(req.headers, this.hostNames);
    if (badHost) throw new HttpError(badHost.status, badHost.code, badHost.message);
    if (this.cors(req, res)) return;
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
    this.refuseKeyInQuery(url.searchParams);
    if (parts[0] === "_emulator") {
      if (!this.cfg.admin) throw new HttpError(404, "NOT_FOUND", "no such route");
      const bad = checkAdminRequest(
        req.method ?? "GET",
        req.headers,
        this.sameOrigins,
        this.cfg.adminToken,
      );
      if (bad) throw new HttpError(bad.status, bad.code, bad.message);
      return this.admin(req, res, parts.slice(1));
    }
    const env = parts[0] !== undefined ? this.envs.get(parts[0]) : undefined;
    if (!env) throw new HttpError(404, "NOT_FOUND", "no such route");
    const rest = parts.slice(1);
    if (rest[0] === "api" && rest[1] === "v1") return this.api(req, res, env, rest.slice(2));
    if (rest[0] === "api-docs" && rest.length === 2 && req.method === "GET") {
      const doc = emitDefinition(env.def, this.links(env.def.name).apiBase);
      if (rest[1] === "openapi.json") return sendJson(res, 200, doc);
      if (rest[1] === "openapi.yaml" || rest[1] === "openapi.yml") {
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
      return this.liveView(req, res, env, rest[2] as string);
    }
    if (rest[0] === "_files" && rest.length === 4 && req.method === "GET") {
      const run = this.engine.runs.get(rest[1] as string);
      const n = Number(rest[2]);
      const link = `${this.links(env.def.name).envBase}/_files/${encodeURIComponent(rest[1] as string)}/${rest[2]}/${rest[3]}`;
      if (
        run &&
        run.environment === env.def.name &&
        JSON.stringify(run.outputs ?? {}).includes(JSON.stringify(link))
      ) {
        const bytes = fileBytes(run.run_id, n, rest[3] as string);
        res.writeHead(200, {
          "Content-Type": "application/pdf",
          "Content-Length": bytes.length,
          "Content-Disposition": `attachment; filename="${rest[3]}"`,
        });
        res.end(bytes);
        return;
      }
    }
    throw new HttpError(404, "NOT_FOUND", "no such route");
  }

  /**
   * Spec "Authentication" 5: a live view needs an authorized signed-in portal user; an API key
   * is not a portal session. Portal sessions exist only as cookies made by the admin API.
   */
  private liveView(req: IncomingMessage, res: ServerResponse, env: EnvState, runId: string): void {
    const cookie = req.headers.cookie ?? "";
    const m = /(?:^|;\s*)wfr_portal_session=([^;\s]+)/.exec(cookie);
    let session = m?.[1] ? this.portalSessions.get(m[1]) : undefined;
    // Spec "Authentication" 6: a browser may instead present a browser-access grant (header only,
    // never in the URL), from one of the grant's exact origins.
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    if (!session && bearer?.startsWith(GRANT_TOKEN_PREFIX)) {
      const origin = req.headers.origin;
      try {
        const g = this.grants.authorize(bearer, origin, env.def.name, runId, this.clock.now());
        session = { environment: g.environment, workspace: g.workspace };
      } catch (e) {
        if (e instanceof GrantError) throw new HttpError(e.status, e.code, e.message);
        throw e;
      }
      res.setHeader("Access-Control-Allow-Origin", origin as string);
      res.setHeader("Vary", "Origin");
    }
    if (!session || session.environment !== env.def.name) {
      throw new HttpError(
        401,
        "PORTAL_SESSION_REQUIRED",
        "the live view opens only for a signed-in portal user; an API key is not a portal session",
      );
    }
    const run = this.engine.runs.get(runId);
    if (!run || run.environment !== env.def.name || run.workspace !== session.workspace) {
      throw new HttpError(404, "RUN_NOT_FOUND", "run not found");
    }
    this.engine.process(run);
    const esc = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const html = `<!doctype html><meta charset="utf-8"><title>Live view ${esc(run.run_id)}</title><h1>Run ${esc(run.run_id)}</h1><p>Workflow ${esc(run.workflow_id)}: <strong>${esc(run.status)}</strong></p><p>Session ${esc(run.session_id ?? "not started")}</p>`;
    res.writeHead(200, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": Buffer.byteLength(html),
      "Cache-Control": "no-store",
    });
    res.end(html);
  }

  // ---------- public API ----------

  private authenticate(req: IncomingMessage, env: EnvState): ApiKey {
    const h = req.headers.authorization;
    const m = typeof h === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
    const key = m?.[1] ? this.keys.get(tokenHash(m[1])) : undefined;
    if (!key || key.environment !== env.def.name) {
      throw new HttpError(
        401,
        "UNAUTHENTICATED",
        "a valid API key is required: Authorization: Bearer <API_KEY>",
        {},
        {
          "WWW-Authenticate": 'Bearer realm="wfr"',
        },
      );
    }
    return key;
  }

  private requireScope(key: ApiKey, scope: Scope): void {
    // Spec "Authentication" 2: workflows:run for launch and human-input; runs:read for reads.
    if (!key.scopes.includes(scope)) {
      throw new HttpError(403, "INSUFFICIENT_SCOPE", `this API key lacks the ${scope} scope`, {
        required_scope: scope,
      });
    }
  }

  private findRun(key: ApiKey, runId: string): RunRecord {
    const run = this.engine.runs.get(runId);
    // Spec "Authentication" 3: 404 for a run outside the workspace or environment, no leak.
    if (!run || run.workspace !== key.workspace || run.environment !== key.environment) {
      throw new HttpError(404, "RUN_NOT_FOUND", "run not found");
    }
    this.engine.process(run);
    return run;
  }

  /**
   * Spec "Authentication" 4: keys never in a URL. Refused on every route: a parameter named like
   * a key, or any parameter whose value is an API key (issued here or shaped like one).
   */
  private refuseKeyInQuery(params: URLSearchParams): void {
    for (const [name, value] of params) {
      if (
        QUERY_KEY_PARAMS.includes(name.toLowerCase()) ||
        value.startsWith("wfr_") ||
        this.keys.has(tokenHash(value))
      ) {
        throw new HttpError(
          400,
          "API_KEY_IN_QUERY",
          "API keys are accepted only in the Authorization header, never in the URL",
        );
      }
    }
  }

  private async api(
    req: IncomingMessage,
    res: ServerResponse,
    env: EnvState,
    p: string[],
  ): Promise<void> {
    const match = matchApiRoute(req.method ?? "GET", p);
    if (match === null) throw new HttpError(404, "NOT_FOUND", "no such route");
    const key = this.authenticate(req, env);
    this.requireScope(key, match.route.scope);
    const route = match.route.name;
    const links = this.links(env.def.name);
    const id = match.param;
    if (route !== "launch") noteRequest(res, { run_id: id });
    switch (route) {
      case "launch":
        return this.launch(req, res, env, key, id);
      case "status":
        return sendJson(res, 200, envelope(this.findRun(key, id), links));
      case "result": {
        const run = this.findRun(key, id);
        // Spec "States and transitions" 1-2: 202 until terminal, 200 after (failures included).
        return sendJson(res, isTerminal(run.status) ? 200 : 202, resultView(run));
      }
      case "events":
        return sendJson(res, 200, eventsView(this.findRun(key, id)));
      case "recording":
        return this.recording(res, key, id);
      case "human":
        return this.humanInput(req, res, key, id, links);
      case "grant_create":
      case "grant_read":
      case "grant_delete":
        return this.grantRoute(req, res, key, route, id);
    }
  }

  /** Browser-access grants (browser-access-grants.ts); shape documented in the README. */
  private async grantRoute(
    req: IncomingMessage,
    res: ServerResponse,
    key: ApiKey,
    route: "grant_create" | "grant_read" | "grant_delete",
    id: string,
  ): Promise<void> {
    const now = this.clock.now();
    const iso_ = (ms: number) => iso(ms);
    if (route === "grant_create") {
      const body = parseJsonBody(await readBodyWithin(req, res, HUMAN_INPUT_LIMIT));
      const run = this.findRun(key, id);
      if (!isObject(body)) throw new HttpError(400, "INVALID_GRANT", "body must be a JSON object");
      let parsed: ReturnType<typeof parseGrantRequest>;
      try {
        parsed = parseGrantRequest(body);
      } catch (e) {
        if (!(e instanceof GrantError)) throw e;
        throw new HttpError(e.status, e.code, e.message, e.field ? { field: e.field } : {});
      }
      if (run.session_id === null) {
        throw new HttpError(
          409,
          "SESSION_NOT_STARTED",
          "the run has no browser session yet; poll the run until session_id is set",
        );
      }
      const { grant, token } = this.grants.create(
        {
          environment: run.environment,
          workspace: run.workspace,
          run_id: run.run_id,
          session_id: run.session_id,
        },
        parsed,
        now,
      );
      this.record({ t: "grant", grant });
      return sendJson(res, 201, { ...grantView(grant, now, iso_), token });
    }
    const grant = this.grants.find(id, key.environment, key.workspace);
    if (!grant) throw new HttpError(404, "GRANT_NOT_FOUND", "browser-access grant not found");
    if (route === "grant_read") return sendJson(res, 200, grantView(grant, now, iso_));
    this.grants.delete(grant.grant_id);
    this.record({ t: "grant_deleted", grant_id: grant.grant_id });
    res.writeHead(204, { "Content-Length": "0" });
    res.end();
  }

  private async launch(
    req: IncomingMessage,
    res: ServerResponse,
    env: EnvState,
    key: ApiKey,
    workflowId: string,
  ): Promise<void> {
    const buf = await readBodyWithin(req, res, BODY_LIMIT);
    const wf = env.def.workflows.get(workflowId);
    // Only a saved workflow id is valid; anything else (run or session ids) is not found.
    if (!wf || env.def.workspace !== key.workspace) {
      throw new HttpError(404, "WORKFLOW_NOT_FOUND", "workflow not found");
    }
    const body = parseJsonBody(buf);
    const top = checkTopLevel(body);
    if (top) throw problemError(top);
    const b = body as Record<string, unknown>;
    const idemKey = idempotencyKeyOf(b, req.headers["idempotency-key"]);
    if ("code" in idemKey) throw problemError(idemKey);
    // Only a keyed launch is ever compared with another, so only it pays for canonical JSON.
    const fingerprint = idemKey.key === null ? "" : requestFingerprint(b);
    const scope =
      idemKey.key === null
        ? null
        : idempotencyScope(key.workspace, env.def.name, wf.id, idemKey.key);
    if (scope !== null) {
      const hit = this.idem.check(scope, fingerprint);
      const prior = hit.kind === "new" ? undefined : this.engine.runs.get(hit.runId);
      if (hit.kind === "replay" && prior) {
        this.engine.process(prior);
        noteRequest(res, { run_id: prior.run_id, idempotency: "replay" });
        return sendJson(res, 202, envelope(prior, this.links(env.def.name)));
      }
      if (hit.kind === "conflict") {
        noteRequest(res, { idempotency: "conflict" });
        throw new HttpError(
          409,
          "IDEMPOTENCY_CONFLICT",
          "this idempotency key was used with a different request for this workflow",
        );
      }
    }
    if (wf.state !== "enabled") {
      throw new HttpError(
        409,
        "WORKFLOW_NOT_ENABLED",
        `workflow is ${wf.state}; only an enabled workflow can be launched`,
        {
          state: wf.state,
        },
      );
    }
    for (const check of [checkMetadata(b), checkModel(b, wf.model)])
      if (check) throw problemError(check);
    const cb = checkCallback(b, this.cfg.allowLocalCallbacks);
    if ("code" in cb) throw problemError(cb);
    const att = checkAttachments(b);
    if ("code" in att) throw problemError(att);
    if (att.meta.length > 0 && !declaresFileInput(wf.inputs)) {
      throw new HttpError(
        400,
        "INVALID_ATTACHMENTS",
        "this workflow declares no file input, so attachments cannot be used",
      );
    }
    const v = validateInputs(wf.inputs, b.inputs);
    if (!v.ok) {
      throw new HttpError(
        400,
        "INVALID_INPUTS",
        "inputs failed validation against the workflow's input schema",
        {
          details: v.details,
        },
      );
    }
    for (const ref of v.fileRefs) {
      if (!att.ids.has(ref.attachment_id)) {
        throw new HttpError(
          400,
          "INVALID_ATTACHMENTS",
          `input ${ref.field} references attachment ${JSON.stringify(ref.attachment_id)}, which is not in input_context.attachments`,
        );
      }
    }
    const scenario = structuredClone(env.scenarios.get(wf.id) ?? wf.scenario ?? defaultScenario());
    const run = this.engine.create({
      environment: env.def.name,
      workspace: key.workspace,
      workflow_id: wf.id,
      revision: wf.revision,
      inputs: v.value,
      metadata: isObject(b.metadata) ? b.metadata : {},
      model: typeof b.model === "string" ? b.model : null,
      callback_url: cb.url,
      idempotency_key: idemKey.key,
      fingerprint,
      attachments: att.meta,
      scenario,
    });
    if (scope !== null) this.idem.remember(scope, run.run_id, fingerprint);
    noteRequest(res, { run_id: run.run_id });
    sendJson(res, 202, envelope(run, this.links(env.def.name)));
  }

  private recording(res: ServerResponse, key: ApiKey, runId: string): void {
    const run = this.findRun(key, runId);
    const now = this.clock.now();
    const wait = this.limiter.attempt(key.workspace, now);
    if (wait === null) {
      while ((this.recordingAttempts[0]?.[1] ?? now) <= now - 3_600_000)
        this.recordingAttempts.shift();
      // Persisted, so a restart does not refill the hourly budget.
      this.recordingAttempts.push([key.workspace, now]);
      this.record({ t: "recording_download", workspace: key.workspace, at: now });
    }
    if (wait !== null) {
      throw new HttpError(
        429,
        "RECORDING_RATE_LIMITED",
        "more than 10 recording downloads this hour for this workspace",
        {},
        {
          "Retry-After": String(wait),
        },
      );
    }
    const st = recordingState(run, now);
    switch (st.kind) {
      case "not_found":
        throw new HttpError(404, "RECORDING_NOT_FOUND", `no recording is available: ${st.reason}`);
      case "processing":
        sendJson(
          res,
          202,
          { error: "the recording is still being assembled", code: "RECORDING_PROCESSING" },
          { "Retry-After": "3" },
        );
        return;
      case "too_large":
        throw new HttpError(
          413,
          "RECORDING_TOO_LARGE",
          `the recording is ${st.size} bytes, above the 128 MiB limit`,
        );
      case "ready": {
        const bytes = recordingBytes();
        // Plain GET only: a Range header still gets the whole file with 200.
        res.writeHead(200, {
          "Content-Type": "video/mp4",
          "Content-Length": bytes.length,
          "Content-Disposition": `attachment; filename="${run.run_id}.mp4"`,
          "Accept-Ranges": "none",
          "Cache-Control": "no-store",
        });
        res.end(bytes);
      }
    }
  }

  private async humanInput(
    req: IncomingMessage,
    res: ServerResponse,
    key: ApiKey,
    runId: string,
    links: Links,
  ): Promise<void> {
    const buf = await readBodyWithin(req, res, HUMAN_INPUT_LIMIT);
    const run = this.findRun(key, runId);
    const body = parseJsonBody(buf);
    if (!isObject(body) || !Object.hasOwn(body, "response")) {
      throw new HttpError(
        400,
        "INVALID_BODY",
        "body must be an object with `response` (and `checkpoint_id`)",
      );
    }
    if (body.checkpoint_id !== undefined && typeof body.checkpoint_id !== "string") {
      throw new HttpError(400, "INVALID_BODY", "checkpoint_id must be a string");
    }
    const out = this.engine.answer(run, body.checkpoint_id as string | undefined, body.response);
    switch (out.kind) {
      case "accepted":
      case "idempotent":
        return sendJson(res, 202, envelope(run, links));
      case "conflict":
        throw new HttpError(409, "HUMAN_WAIT_CONFLICT", out.message);
      case "not_waiting":
        throw new HttpError(
          409,
          "NOT_WAITING_FOR_HUMAN",
          "the run is not waiting for a human; nothing was stored",
        );
      case "expired":
        throw new HttpError(410, "HUMAN_WAIT_EXPIRED", "the human wait expired");
    }
  }

  // ---------- admin ----------

  private adminEnv(name: string | undefined): EnvState {
    const env = name === undefined ? undefined : this.envs.get(name);
    if (!env)
      throw new HttpError(404, "ENVIRONMENT_NOT_FOUND", `no environment ${JSON.stringify(name)}`);
    return env;
  }

  private async adminJson(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<Record<string, unknown>> {
    const body = parseJsonBody(await readBodyWithin(req, res, ADMIN_LIMIT));
    if (!isObject(body)) throw new HttpError(400, "INVALID_BODY", "body must be a JSON object");
    return body;
  }

  /** Body of POST .../runs/{id}/faults/{kind}; errors name the field. */
  private parseFault(kind: string, body: Record<string, unknown>): Fault {
    try {
      switch (kind) {
        case "checkpoint": {
          const s = parseStep({ human: { kind: "approval", reason: "injected", ...body } }, 0);
          if ("human" in s) return { kind: "checkpoint", human: s.human };
          break;
        }
        case "expire":
          return { kind: "expire" };
        case "fail": {
          const s = parseStep({ fail: body }, 0);
          if ("fail" in s) return { kind: "fail", status: s.fail.status, error: s.fail.error };
          break;
        }
        case "succeed": {
          const s = parseStep({ succeed: body }, 0);
          if ("succeed" in s)
            return {
              kind: "succeed",
              ...(s.succeed.outputs ? { outputs: s.succeed.outputs } : {}),
            };
          break;
        }
      }
    } catch (e) {
      throw new HttpError(400, "INVALID_FAULT", (e as Error).message);
    }
    throw new HttpError(404, "NOT_FOUND", "faults are checkpoint, expire, fail and succeed");
  }

  /** Forget an environment's runs, deliveries, pending callbacks and scenarios. */
  private resetEnvironment(name: string): void {
    const env = this.envs.get(name);
    if (!env) return;
    const gone = new Set<string>();
    for (const run of this.engine.runs.values()) if (run.environment === name) gone.add(run.run_id);
    for (const id of gone) {
      this.engine.forget(id);
      this.eventsWritten.delete(id);
    }
    this.idem.forgetRuns(gone);
    this.grants.forgetRuns(gone);
    this.deliveryFaults.forgetRuns(gone);
    for (const [id, cb] of this.pending) if (cb.environment === name) this.pending.delete(id);
    for (const [id, cb] of this.sent) if (cb.environment === name) this.sent.delete(id);
    env.deliveries.length = 0;
    env.scenarios.clear();
  }

  private runHistory(run: RunRecord): Record<string, unknown> {
    const links = this.links(run.environment);
    const rec = run.scenario.recording ?? { mode: "ready" };
    return {
      run_id: run.run_id,
      workflow_id: run.workflow_id,
      revision: run.revision,
      environment: run.environment,
      workspace: run.workspace,
      status: run.status,
      inputs: run.inputs,
      metadata: run.metadata,
      model: run.model,
      attachments: run.attachments,
      callback_url: run.callback_url,
      idempotency_key: run.idempotency_key,
      error: run.error,
      outputs: run.outputs,
      created_at: iso(run.created_at),
      finished_at: run.finished_at === null ? null : iso(run.finished_at),
      events: run.events,
      checkpoints: run.checkpoints.map((c) => ({
        checkpoint_id: c.checkpoint_id,
        kind: c.kind,
        reason: c.reason,
        expires_at: iso(c.expires_at),
        answered: c.answer !== undefined,
        answer: c.answer === undefined ? null : JSON.parse(c.answer),
        acknowledged: c.acknowledged === true,
        expired: c.expired === true,
      })),
      recording: {
        mode: rec.mode,
        session: run.scenario.session ?? "browser",
        state: recordingState(run, this.clock.now()).kind,
        url: hasBrowserRecording(run) ? `${links.apiBase}/runs/${run.run_id}/recording` : null,
        size_bytes: rec.size_bytes ?? recordingBytes().length,
      },
      envelope: envelope(run, links),
    };
  }

  private async admin(req: IncomingMessage, res: ServerResponse, p: string[]): Promise<void> {
    const m = req.method;
    if (m === "POST" && p.length === 1 && p[0] === "keys") {
      const b = await this.adminJson(req, res);
      const env = this.envs.get(b.environment as string);
      if (!env)
        throw new HttpError(
          400,
          "INVALID_ENVIRONMENT",
          `unknown environment ${JSON.stringify(b.environment)}`,
        );
      const scopes = b.scopes ?? [...SCOPES];
      if (
        !Array.isArray(scopes) ||
        scopes.some((s) => !(SCOPES as readonly string[]).includes(s))
      ) {
        throw new HttpError(400, "INVALID_SCOPE", `scopes must be a list of ${SCOPES.join(", ")}`);
      }
      if (b.workspace !== undefined && (typeof b.workspace !== "string" || b.workspace === "")) {
        throw new HttpError(400, "INVALID_BODY", "workspace must be a non-empty string");
      }
      const token = `wfr_test_${randomBytes(24).toString("base64url")}`;
      const key: ApiKey = {
        token_sha256: tokenHash(token),
        environment: env.def.name,
        workspace: (b.workspace as string | undefined) ?? env.def.workspace,
        scopes: [...new Set(scopes as Scope[])],
      };
      this.keys.set(key.token_sha256, key);
      this.record({ t: "key", key });
      return sendJson(res, 201, {
        token,
        environment: key.environment,
        workspace: key.workspace,
        scopes: key.scopes,
      });
    }
    if (m === "POST" && p.length === 1 && p[0] === "portal-sessions") {
      const b = await this.adminJson(req, res);
      const env = this.envs.get(b.environment as string);
      if (!env) {
        throw new HttpError(
          400,
          "INVALID_ENVIRONMENT",
          `unknown environment ${JSON.stringify(b.environment)}`,
        );
      }
      const id = randomBytes(24).toString("base64url");
      const workspace = typeof b.workspace === "string" ? b.workspace : env.def.workspace;
      this.portalSessions.set(id, { environment: env.def.name, workspace });
      return sendJson(res, 201, {
        cookie: `wfr_portal_session=${id}`,
        environment: env.def.name,
        workspace,
      });
    }
    if (m === "POST" && p[0] === "clock" && p[1] === "advance" && p.length === 2) {
      const b = await this.adminJson(req, res);
      if (!(this.clock instanceof VirtualClock)) {
        throw new HttpError(
          409,
          "CLOCK_NOT_VIRTUAL",
          "the clock is real; start with clock virtual to advance it",
        );
      }
      const ms = b.ms;
      const clock = this.clock;
      if (
        typeof ms !== "number" ||
        !Number.isFinite(ms) ||
        ms < 0 ||
        ms > MAX_ADVANCE_MS ||
        clock.now() + ms > LATEST_TIME_MS
      ) {
        throw new HttpError(
          400,
          "INVALID_BODY",
          `ms must be a number from 0 to ${MAX_ADVANCE_MS} (and keep the clock before year 9999)`,
          { field: "ms" },
        );
      }
      this.engine.advance(Math.floor(ms), (t) => clock.set(t));
      this.record({ t: "clock", now: clock.now() });
      return sendJson(res, 200, { now: iso(clock.now()) });
    }
    if (m === "POST" && p[0] === "journal" && p[1] === "compact" && p.length === 2) {
      await this.adminJson(req, res);
      const done = await this.compactJournal();
      if (!done)
        throw new HttpError(409, "NO_JOURNAL", "no journal to compact (start with --data)");
      return sendJson(res, 200, {
        bytes: done.bytes,
        longest_slice_ms: Math.round(done.longestSliceMs),
        total_ms: Math.round(done.totalMs),
        captured_records: done.capturedRecords,
      });
    }
    if (m === "GET" && p[0] === "clock" && p.length === 1) {
      return sendJson(res, 200, { now: iso(this.clock.now()), virtual: this.clock.virtual });
    }
    if (m === "GET" && p.length === 1 && p[0] === "environments") {
      return sendJson(res, 200, {
        environments: [...this.envs.values()].map((e) => ({
          name: e.def.name,
          workspace: e.def.workspace,
          base_url: this.links(e.def.name).apiBase,
          workflows: [...e.def.workflows.values()].map((w) => ({
            id: w.id,
            name: w.name,
            state: w.state,
            revision: w.revision,
          })),
        })),
      });
    }
    if (p[0] === "environments" && p.length >= 3) {
      if (!this.clock.virtual) this.engine.tick();
      const env = this.adminEnv(p[1]);
      if (m === "POST" && p[2] === "reset" && p.length === 3) {
        this.resetEnvironment(env.def.name);
        this.record({ t: "reset", env: env.def.name });
        return sendJson(res, 200, { environment: env.def.name, reset: true });
      }
      if (m === "POST" && p[2] === "runs" && p[4] === "faults" && p.length === 6) {
        const run = this.engine.runs.get(p[3] as string);
        if (!run || run.environment !== env.def.name)
          throw new HttpError(404, "RUN_NOT_FOUND", "run not found");
        // --- callback delivery faults (delivery-faults.ts) ---
        const kind = p[5] as string;
        if (isDeliveryFaultKind(kind)) {
          const body = await this.adminJson(req, res);
          if (!run.callback_url)
            throw new HttpError(409, "FAULT_NOT_APPLICABLE", "the run has no callback_url");
          let add: ReturnType<typeof parseDeliveryFault>;
          try {
            add = parseDeliveryFault(kind, body);
          } catch (e) {
            if (!(e instanceof DeliveryFaultError)) throw e;
            throw new HttpError(400, "INVALID_FAULT", e.message, { field: e.field });
          }
          const plan = this.deliveryFaults.arm(run.run_id, add);
          this.recordFaultPlan(run.run_id);
          return sendJson(res, 200, { run_id: run.run_id, delivery_faults: plan });
        }
        // --- end callback delivery faults ---
        const fault = this.parseFault(p[5] as string, await this.adminJson(req, res));
        const refused = this.engine.inject(run, fault);
        if (refused !== null) throw new HttpError(409, "FAULT_NOT_APPLICABLE", refused);
        return sendJson(res, 200, this.runHistory(run));
      }
      if (m === "POST" && p[2] === "callbacks" && p[4] === "resend" && p.length === 5) {
        const cb = this.sent.get(p[3] as string) ?? this.pending.get(p[3] as string);
        if (!cb || cb.environment !== env.def.name)
          throw new HttpError(404, "EVENT_NOT_FOUND", "no callback with this event_id was sent");
        const made = env.deliveries.filter((a) => a.event_id === cb.event_id).length;
        this.pending.set(cb.event_id, cb);
        this.record(callbackRecord(cb, JSON.parse(cb.body)));
        // Attempt numbers continue; a resend gets the usual three attempts.
        this.dispatcher.send(cb, made + 1, made + 3);
        return sendJson(res, 202, { event_id: cb.event_id, resent: true });
      }
      if (m === "GET" && p[2] === "callbacks" && p.length === 3) {
        return sendJson(res, 200, { deliveries: env.deliveries });
      }
      if (m === "GET" && p[2] === "runs" && p.length === 3) {
        const runs = [...this.engine.runs.values()].filter((r) => r.environment === env.def.name);
        for (const r of runs) this.engine.process(r);
        return sendJson(res, 200, { runs: runs.map((r) => this.runHistory(r)) });
      }
      if (m === "GET" && p[2] === "runs" && p.length === 4) {
        const run = this.engine.runs.get(p[3] as string);
        if (!run || run.environment !== env.def.name)
          throw new HttpError(404, "RUN_NOT_FOUND", "run not found");
        this.engine.process(run);
        return sendJson(res, 200, this.runHistory(run));
      }
      if (p[2] === "workflows" && p.length === 5) {
        const wf = env.def.workflows.get(p[3] as string);
        if (!wf) throw new HttpError(404, "WORKFLOW_NOT_FOUND", "workflow not found");
        if (m === "PUT" && p[4] === "scenario") {
          const b = await this.adminJson(req, res);
          let scenario: Scenario;
          try {
            scenario = parseScenario(b);
          } catch (e) {
            throw new HttpError(400, "INVALID_SCENARIO", (e as Error).message);
          }
          env.scenarios.set(wf.id, scenario);
          this.record({ t: "scenario", env: env.def.name, workflow: wf.id, scenario });
          return sendJson(res, 200, { workflow_id: wf.id, scenario });
        }
        if (m === "DELETE" && p[4] === "scenario") {
          env.scenarios.delete(wf.id);
          this.record({ t: "scenario", env: env.def.name, workflow: wf.id, scenario: null });
          return sendJson(res, 200, {
            workflow_id: wf.id,
            scenario: wf.scenario ?? defaultScenario(),
          });
        }
        if (m === "PUT" && p[4] === "state") {
          const b = await this.adminJson(req, res);
          if (!["enabled", "draft", "disabled"].includes(b.state as string)) {
            throw new HttpError(400, "INVALID_STATE", "state must be enabled, draft or disabled");
          }
          wf.state = b.state as WorkflowState;
          this.record({ t: "state", env: env.def.name, workflow: wf.id, state: wf.state });
          return sendJson(res, 200, { workflow_id: wf.id, state: wf.state });
        }
      }
    }
    throw new HttpError(404, "NOT_FOUND", "no such admin route");
  }
}

/** Deterministic bytes of a synthesized file output (a tiny PDF). */
export function fileBytes(runId: string, n: number, filename: string): Buffer {
  return Buffer.from(
    `%PDF-1.4\n% ${filename} (output ${n} of run ${runId}), synthesized by wfr-emulator\n%%EOF\n`,
  );
}
