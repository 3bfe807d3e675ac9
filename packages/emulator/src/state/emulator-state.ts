// The emulator's shared state, as the modules around http-server.ts see it: environments, keys,
// runs (through the engine), callbacks, portal sessions and the journal. Each module takes this
// narrow view instead of the whole server, and the few actions shared by the admin API, the web
// application and replay live here.

import { randomBytes } from "node:crypto";
import { CODE, type Scope } from "@wfr/protocol";
import type { BrowserAccessGrants } from "../access/browser-access-grants.js";
import { type ApiKey, tokenHash } from "../access/credentials.js";
import type { SignInLinks } from "../access/sign-in.js";
import type { AgentSurface } from "../agent/agent-surface.js";
import {
  CALLBACK_ATTEMPTS,
  type CallbackDispatcher,
  type DeliveryAttempt,
  type PendingCallback,
} from "../engine/callbacks.js";
import type { Clock } from "../engine/clock.js";
import type { IdempotencyStore } from "../engine/idempotency.js";
import type { RecordingRateLimiter } from "../engine/recording.js";
import type { RunEngine } from "../engine/run-engine.js";
import type { Links } from "../engine/run-views.js";
import {
  ApiFaultError,
  type ApiFaultRule,
  type ApiFaults,
  parseApiFault,
} from "../faults/api-faults.js";
import {
  DeliveryFaultError,
  type DeliveryFaultKind,
  type DeliveryFaultPlan,
  type DeliveryFaults,
  type FaultUse,
  parseDeliveryFault,
} from "../faults/delivery-faults.js";
import { HttpError } from "../http/http-kit.js";
import type { RequestLogFormat } from "../http/request-log.js";
import type { CompactionReport } from "../journal/background-compaction.js";
import type { JournalRecord } from "../journal/journal-records.js";
import { callbackRecord } from "../journal/journal-records.js";
import type { RunArchive } from "../journal/run-archive.js";
import type {
  EnvironmentDef,
  EnvironmentDefView,
  RunRecord,
  Scenario,
  WorkflowState,
} from "../model/types.js";

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
  /** How long a portal session signs its bearer in (default access/portal-sessions.ts). */
  portalSessionTtlMs?: number;
  forwardCallbacks?: string;
  deliverPublic?: boolean;
  /** Extra Host names accepted besides the listening address and localhost. */
  allowedHosts?: string[];
  /** Background compaction once this many bytes were appended since the last (default 64 MiB). */
  compactAfterBytes?: number;
  /** Open agent (MCP) sessions per workspace before its oldest is closed (default 1,000). */
  mcpSessionsPerWorkspace?: number;
  /**
   * With --data: finished runs kept in memory; older ones live on disk (run-archive.ts) and are
   * read back on demand (default DEFAULT_FINISHED_RUNS_IN_MEMORY, persistence.ts).
   */
  finishedRunsInMemory?: number;
}

/** An environment as the state holds it; changed only by the change functions (state-changes.ts). */
export interface EnvState {
  def: EnvironmentDef;
  scenarios: Map<string, Scenario>;
  deliveries: DeliveryAttempt[];
}

/**
 * An environment as the route modules see it: read-only, so that its scenarios, workflow states
 * and delivery log change only by `commit` (the same function replay uses).
 */
export interface EnvView {
  readonly def: EnvironmentDefView;
  readonly scenarios: ReadonlyMap<string, Readonly<Scenario>>;
  readonly deliveries: readonly Readonly<DeliveryAttempt>[];
}

/** A portal session: one environment, or the local developer's (`everywhere`). */
export interface PortalSession {
  environment: string;
  workspace: string;
  everywhere?: true;
  /** Wall-clock ms after which the session no longer signs anyone in (access/portal-sessions.ts). */
  expiresAt?: number;
}

/** What the route modules, persistence and the web application's host share. */
export interface EmulatorState {
  readonly cfg: ServerConfig;
  readonly clock: Clock;
  readonly engine: RunEngine;
  readonly envs: Map<string, EnvState>;
  readonly keys: Map<string, ApiKey>;
  readonly idem: IdempotencyStore;
  readonly limiter: RecordingRateLimiter;
  readonly dispatcher: CallbackDispatcher;
  readonly pending: Map<string, PendingCallback>;
  /** Callbacks sent since start, by event_id, for POST .../callbacks/{event_id}/resend. */
  readonly sent: Map<string, PendingCallback>;
  /**
   * Portal sessions: made by the admin API for one environment, or by the web application's
   * sign-in link for the local developer (`everywhere`: a portal user in every environment).
   */
  readonly portalSessions: Map<string, PortalSession>;
  /** One-time sign-in links and CSRF tokens of the web application. */
  readonly signIn: SignInLinks;
  /** The agent surface: /mcp, personal access tokens, authoring (agent-surface.ts). */
  readonly agents: AgentSurface;
  /** How many of each run's events are already in the journal (the rest go in its next delta). */
  readonly eventsWritten: Map<string, number>;
  /** Recording downloads counted against the hourly budget, as [workspace, time]. */
  readonly recordingAttempts: [string, number][];
  /** Browser-access grants (browser-access-grants.ts). */
  readonly grants: BrowserAccessGrants;
  /** Callback delivery faults armed from the admin API or the web app (delivery-faults.ts). */
  readonly deliveryFaults: DeliveryFaults;
  /** Faults on the API itself (api-faults.ts). */
  readonly apiFaults: ApiFaults;
  readonly origin: string;
  sameOrigins(): ReadonlySet<string>;
  links(env: string): Links;
  record(rec: JournalRecord): void;
  /** Journal a change, then make it (state-changes.ts); the only way route modules change state. */
  commit(rec: JournalRecord): void;
  /** Open a portal session (not journalled: sessions end with the process); its cookie value. */
  openPortalSession(session: PortalSession): string;
  closePortalSession(id: string): void;
  /**
   * Hold a callback for delivery and journal it: the one change made outside `commit`, because
   * the live callback keeps the run metadata its record leaves out (state-changes.ts).
   */
  holdCallback(cb: PendingCallback, payload: Record<string, unknown>): void;
  /** Send a callback of `env` again (sent since start, or pending); false when there is none. */
  resendCallback(env: EnvView, eventId: string): boolean;
  /** Compact the journal now (null without --data); background-compaction.ts. */
  compactJournal(): Promise<CompactionReport | null>;
  /** Finished runs beyond `finishedRunsInMemory`, on disk (with --data; run-archive.ts). */
  readonly archive: RunArchive | null;
  /** Finished runs in memory, oldest first: the next to move to the archive (persistence.ts). */
  readonly finishedInMemory: Set<string>;
}

// ---------- what each route module sees (a narrow view, checked by the compiler) ----------
// Collections are read-only in every view (ReadonlyMap, readonly arrays): a route module changes
// state only by `commit` (state-changes.ts) or through the few methods it is given.

/** The run engine with the given methods; its runs read-only (they change inside the engine). */
export type EngineView<K extends keyof RunEngine = never> = Pick<RunEngine, K | "find"> & {
  readonly runs: ReadonlyMap<string, Readonly<RunRecord>>;
};

/** The public API's handlers (api-handlers.ts): runs, grants, idempotency, the recording budget. */
export type ApiState = Pick<EmulatorState, "cfg" | "clock" | "links" | "commit"> & {
  readonly engine: EngineView<"create" | "process" | "answer">;
  readonly grants: Pick<BrowserAccessGrants, "mint" | "find">;
  readonly idem: Pick<IdempotencyStore, "check" | "remember">;
  readonly limiter: Pick<RecordingRateLimiter, "wait">;
};

/** Authentication (auth.ts): keys and portal sessions, the agent surface's keys and refusals. */
export interface AuthState {
  readonly keys: ReadonlyMap<string, ApiKey>;
  readonly portalSessions: ReadonlyMap<string, PortalSession>;
  readonly agents: Pick<AgentSurface, "apiKeyByHash" | "refusalMessage">;
}

/** The live view (live-view.ts): a portal session or a grant, and the run. */
export type LiveViewState = AuthState &
  Pick<EmulatorState, "clock"> & {
    readonly engine: EngineView<"process">;
    readonly grants: Pick<BrowserAccessGrants, "authorize">;
  };

/** CORS (cors.ts): the configured origins and the grants' origins. */
export interface CorsState {
  readonly cfg: Pick<ServerConfig, "corsOrigins">;
  readonly clock: Clock;
  readonly grants: Pick<BrowserAccessGrants, "permitsOrigin">;
}

/** The environments as the route modules read them (changed only by `commit`). */
export interface EnvironmentsView {
  readonly envs: ReadonlyMap<string, EnvView>;
}

/** Arming callback delivery faults: the plan with the new faults added; `commit` stores it. */
type FaultArming = Pick<EmulatorState, "commit"> & {
  readonly deliveryFaults: Pick<DeliveryFaults, "armed">;
};

/** Listing and removing API faults: removal is a `commit`. */
type ApiFaultList = Pick<EmulatorState, "commit"> & {
  readonly apiFaults: Pick<ApiFaults, "list">;
};

/**
 * The admin API (admin-routes.ts): read-only environments and fault lists; changes by `commit`
 * or the state's actions (portal sessions, resent callbacks); the engine, clock, sign-in links
 * and agent surface through their own methods.
 */
export type AdminState = EnvironmentsView &
  FaultArming &
  ApiFaultList &
  Pick<
    EmulatorState,
    | "clock"
    | "links"
    | "origin"
    | "signIn"
    | "compactJournal"
    | "openPortalSession"
    | "resendCallback"
  > & {
    readonly engine: EngineView<"advance" | "inject" | "nextDueAt" | "process" | "tick">;
    readonly limiter: Pick<RecordingRateLimiter, "reopensAt">;
    /** Waited on before the clock moves to its next event (admin/clock-routes.ts). */
    readonly dispatcher: Pick<CallbackDispatcher, "idle">;
    readonly agents: Pick<
      AgentSurface,
      "createTokenRoute" | "listTokensRoute" | "revokeTokenRoute"
    >;
    /** The run history includes finished runs on disk, read back one at a time. */
    readonly archive: Pick<RunArchive, "listings"> | null;
  };

/** The web application's host (web-app-host.ts): the admin API's view, keys and sessions read-only. */
export type WebAppState = EnvironmentsView &
  FaultArming &
  ApiFaultList &
  Pick<
    EmulatorState,
    | "clock"
    | "links"
    | "sameOrigins"
    | "signIn"
    | "openPortalSession"
    | "closePortalSession"
    | "resendCallback"
    | "origin"
  > & {
    readonly engine: EngineView<"answer" | "inject" | "process" | "tick">;
    readonly agents: Pick<AgentSurface, "appKey" | "personalAccessTokens" | "oauth">;
    /** The run history lists finished runs on disk too. */
    readonly archive: Pick<RunArchive, "listings"> | null;
    readonly keys: ReadonlyMap<string, ApiKey>;
    readonly portalSessions: ReadonlyMap<string, PortalSession>;
  };

/**
 * The run engine's hooks (engine-hooks.ts): links and outputs, and callbacks (held and
 * journalled by `holdCallback`, sent by the dispatcher, with the run's armed delivery faults,
 * whose use is a `commit`).
 */
export type EngineHookState = EnvironmentsView &
  Pick<EmulatorState, "clock" | "links" | "holdCallback" | "commit"> & {
    readonly dispatcher: Pick<CallbackDispatcher, "send">;
    readonly deliveryFaults: Pick<DeliveryFaults, "forCallback">;
  };

/** The environment named in an admin path or web form; 404 when there is none. */
export function adminEnv(st: EnvironmentsView, name: string | undefined): EnvView {
  const env = name === undefined ? undefined : st.envs.get(name);
  if (!env)
    throw new HttpError(404, CODE.ENVIRONMENT_NOT_FOUND, `no environment ${JSON.stringify(name)}`);
  return env;
}

// ---------- shared by the admin API and the web application ----------

export function createKey(
  st: Pick<EmulatorState, "commit">,
  env: EnvView,
  workspace: string,
  scopes: Scope[],
): { token: string; key: ApiKey } {
  const token = `wfr_test_${randomBytes(24).toString("base64url")}`;
  const key: ApiKey = {
    token_sha256: tokenHash(token),
    environment: env.def.name,
    workspace,
    scopes: [...new Set(scopes)],
  };
  st.commit({ t: "key", key });
  return { token, key };
}

/** The state's `holdCallback`: journalled, then pending (again). */
export function holdCallback(
  st: Pick<EmulatorState, "pending" | "record">,
  cb: PendingCallback,
  payload: Record<string, unknown>,
): void {
  st.record(callbackRecord(cb, payload));
  st.pending.set(cb.event_id, cb);
}

/** The state's `resendCallback`. */
export function resendCallback(st: EmulatorState, env: EnvView, eventId: string): boolean {
  const cb = st.sent.get(eventId) ?? st.pending.get(eventId);
  if (!cb || cb.environment !== env.def.name) return false;
  const made = env.deliveries.filter((a) => a.event_id === cb.event_id).length;
  holdCallback(st, cb, JSON.parse(cb.body));
  // Attempt numbers continue; a resend gets the usual three attempts.
  st.dispatcher.send(cb, made + 1, made + CALLBACK_ATTEMPTS);
  return true;
}

/**
 * Arm a callback delivery fault on a run (delivery-faults.ts): its next callback twice, late, or
 * its next attempts failing. Errors are HTTP errors naming the field; the plan is journalled.
 */
export function armDeliveryFault(
  st: FaultArming,
  run: RunRecord,
  kind: DeliveryFaultKind,
  body: Record<string, unknown>,
): DeliveryFaultPlan {
  if (!run.callback_url)
    throw new HttpError(409, CODE.FAULT_NOT_APPLICABLE, "the run has no callback_url");
  let add: ReturnType<typeof parseDeliveryFault>;
  try {
    add = parseDeliveryFault(kind, body);
  } catch (e) {
    if (!(e instanceof DeliveryFaultError)) throw e;
    throw new HttpError(400, CODE.INVALID_FAULT, e.message, { field: e.field });
  }
  const plan = st.deliveryFaults.armed(run.run_id, add);
  st.commit({ t: "delivery_faults", run_id: run.run_id, plan });
  return plan;
}

/**
 * Use a delivery fault taken from a run's plan (delivery-faults.ts): the plan left after it is
 * committed first, so a fault is used only once the journal holds its use (a restart neither
 * uses it again nor loses what is left). The fault, or null when the plan held none.
 */
export function useDeliveryFault<F>(
  st: Pick<EmulatorState, "commit">,
  runId: string,
  use: FaultUse<F> | null,
): F | null {
  if (use === null) return null;
  st.commit({ t: "delivery_faults", run_id: runId, plan: use.left });
  return use.fault;
}

/** Arm a fault on the API itself (api-faults.ts); journalled; errors name the field. */
export function armApiFault(
  st: Pick<EmulatorState, "commit">,
  body: Record<string, unknown>,
  id = `flt_${randomBytes(6).toString("hex")}`,
): ApiFaultRule {
  let rule: ApiFaultRule;
  try {
    rule = parseApiFault(body, id);
  } catch (e) {
    if (!(e instanceof ApiFaultError)) throw e;
    throw new HttpError(400, CODE.INVALID_FAULT, e.message, { field: e.field });
  }
  st.commit({ t: "api_fault", id: rule.id, rule });
  return rule;
}

export function removeApiFault(st: ApiFaultList, id: string): boolean {
  if (!st.apiFaults.list().some((r) => r.id === id)) return false;
  st.commit({ t: "api_fault", id, rule: null });
  return true;
}

export function setWorkflowState(
  st: Pick<EmulatorState, "commit">,
  env: EnvView,
  wf: { id: string; state: WorkflowState },
  state: WorkflowState,
): void {
  st.commit({ t: "state", env: env.def.name, workflow: wf.id, state });
}

/**
 * Move the virtual clock forward by `ms`, running the steps that fall due on the way, in time
 * order. Each step of the clock is a `clock` record committed before the clock shows it (the
 * same change replay makes), so the live clock is never ahead of its journal; the runs stepped
 * on the way are journalled by the engine (persistence.ts). The caller refuses a real clock.
 */
export function advanceClock(
  st: Pick<EmulatorState, "clock" | "commit"> & { readonly engine: EngineView<"advance"> },
  ms: number,
): void {
  st.engine.advance(ms, (now) => {
    if (now > st.clock.now()) st.commit({ t: "clock", now });
  });
}

/** Forget an environment's runs, deliveries, pending callbacks and scenarios. */
export function resetEnvironment(st: EmulatorState, name: string): void {
  const env = st.envs.get(name);
  if (!env) return;
  const gone = new Set<string>();
  for (const run of st.engine.runs.values()) if (run.environment === name) gone.add(run.run_id);
  for (const id of gone) {
    st.engine.forget(id);
    st.eventsWritten.delete(id);
    st.finishedInMemory.delete(id);
  }
  for (const id of st.archive?.forgetEnvironment(name) ?? []) gone.add(id);
  st.idem.forgetRuns(gone);
  st.grants.forgetRuns(gone);
  st.deliveryFaults.forgetRuns(gone);
  for (const [id, cb] of st.pending) if (cb.environment === name) st.pending.delete(id);
  for (const [id, cb] of st.sent) if (cb.environment === name) st.sent.delete(id);
  env.deliveries.length = 0;
  env.scenarios.clear();
}
