// Faults on the emulator's API itself, as Prism's chaos mode, mountebank or WireMock offer them:
// for a route pattern (and optionally an environment and a workspace), the next `count` matching
// requests (each with `probability`) answer 429 with Retry-After or a 5xx, have their body
// stalled, are delayed, or are handled and then lose their response (the connection closes
// before a byte is sent: the lost-response case a client's idempotent retry exists for).
// A team tests its own retry handling against the twin with these. Pure rules and matching here;
// the HTTP side (what each fault does to a response) is `applyApiFault` at the bottom.

import type { IncomingMessage, ServerResponse } from "node:http";
import { CODE } from "@wfr/protocol";
import { sendJson } from "../http/http-kit.js";

const API_FAULT_KINDS = ["status", "stall", "delay", "drop"] as const;
type ApiFaultKind = (typeof API_FAULT_KINDS)[number];
const API_FAULT_STATUSES = [429, 500, 502, 503] as const;
type ApiFaultStatus = (typeof API_FAULT_STATUSES)[number];
/** The longest stall or delay a rule may ask for (a test should not wait longer). */
const MAX_FAULT_MS = 120_000;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "*"] as const;

/** What a matching request gets. */
export type ApiFaultAction =
  | { kind: "status"; status: ApiFaultStatus; retry_after: number | null }
  | { kind: "stall"; ms: number }
  | { kind: "delay"; ms: number }
  | { kind: "drop" };

export interface ApiFaultRule {
  id: string;
  /** `METHOD /path` under the API base; `*` or `{name}` is one segment, `**` the rest; method `*` any. */
  route: string;
  environment: string | null;
  workspace: string | null;
  action: ApiFaultAction;
  /** Firings left; null: no limit (with a probability below 1). */
  remaining: number | null;
  probability: number;
  /** How many requests it answered. */
  hits: number;
}

export class ApiFaultError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A rule from the admin API's, the web app's or the command line's JSON; errors name the field. */
export function parseApiFault(body: Record<string, unknown>, id: string): ApiFaultRule {
  const route = body.route;
  if (typeof route !== "string" || parseRoute(route) === null)
    throw new ApiFaultError(
      "route",
      'route must be "METHOD /path" under the API base, e.g. "POST /automations/*/runs" or "* /**"',
    );
  const optionalName = (field: "environment" | "workspace"): string | null => {
    const v = body[field];
    if (v === undefined || v === null || v === "") return null;
    if (typeof v !== "string") throw new ApiFaultError(field, `${field} must be a string`);
    return v;
  };
  const kind = body.fault;
  if (typeof kind !== "string" || !(API_FAULT_KINDS as readonly string[]).includes(kind))
    throw new ApiFaultError("fault", `fault must be one of ${API_FAULT_KINDS.join(", ")}`);
  const ms = (): number => {
    const v = body.ms;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_FAULT_MS)
      throw new ApiFaultError("ms", `ms must be an integer from 1 to ${MAX_FAULT_MS}`);
    return v;
  };
  let action: ApiFaultAction;
  switch (kind as ApiFaultKind) {
    case "status": {
      const status = body.status;
      if (!(API_FAULT_STATUSES as readonly unknown[]).includes(status))
        throw new ApiFaultError("status", `status must be one of ${API_FAULT_STATUSES.join(", ")}`);
      const ra = body.retry_after;
      if (
        ra !== undefined &&
        ra !== null &&
        (typeof ra !== "number" || !Number.isInteger(ra) || ra < 0 || ra > 3600)
      )
        throw new ApiFaultError("retry_after", "retry_after must be whole seconds from 0 to 3600");
      // 429 always says when to come back (RFC 6585 suggests it; clients rely on it).
      const retryAfter = typeof ra === "number" ? ra : status === 429 ? 1 : null;
      action = { kind: "status", status: status as ApiFaultStatus, retry_after: retryAfter };
      break;
    }
    case "stall":
      action = { kind: "stall", ms: ms() };
      break;
    case "delay":
      action = { kind: "delay", ms: ms() };
      break;
    case "drop":
      action = { kind: "drop" };
      break;
  }
  const p = body.probability;
  if (p !== undefined && (typeof p !== "number" || !(p > 0 && p <= 1)))
    throw new ApiFaultError("probability", "probability must be a number above 0, at most 1");
  const probability = typeof p === "number" ? p : 1;
  const c = body.count;
  if (
    c !== undefined &&
    c !== null &&
    (typeof c !== "number" || !Number.isInteger(c) || c < 1 || c > 1_000_000)
  )
    throw new ApiFaultError("count", "count must be an integer from 1 to 1000000");
  // Without a count: once, unless a probability says "sometimes, until removed".
  const remaining = typeof c === "number" ? c : c === null || probability < 1 ? null : 1;
  return {
    id,
    route,
    environment: optionalName("environment"),
    workspace: optionalName("workspace"),
    action,
    remaining,
    probability,
    hits: 0,
  };
}

/** `METHOD /a/{b}/**` as a method and segments; null when it is not one. */
function parseRoute(route: string): { method: string; segments: string[] } | null {
  const m = /^(\S+)\s+(\/\S*)$/.exec(route.trim());
  if (!m) return null;
  const method = (m[1] as string).toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) return null;
  const segments = (m[2] as string).split("/").filter((s) => s !== "");
  if (segments.slice(0, -1).includes("**")) return null; // `**` only at the end
  return { method, segments };
}

export function routeMatches(route: string, method: string, path: readonly string[]): boolean {
  const r = parseRoute(route);
  if (r === null) return false;
  if (r.method !== "*" && r.method !== method.toUpperCase()) return false;
  for (let i = 0; i < r.segments.length; i++) {
    const s = r.segments[i] as string;
    if (s === "**") return true;
    const p = path[i];
    if (p === undefined) return false;
    if (s === "*" || /^\{[^}]+\}$/.test(s)) continue;
    if (s !== p) return false;
  }
  return r.segments.length === path.length;
}

/** The armed rules, in the order they were added; the first that matches and fires answers. */
export class ApiFaults {
  private readonly rules = new Map<string, ApiFaultRule>();

  constructor(private readonly random: () => number = Math.random) {}

  add(rule: ApiFaultRule): void {
    this.rules.set(rule.id, rule);
  }

  remove(id: string): boolean {
    return this.rules.delete(id);
  }

  clear(): void {
    this.rules.clear();
  }

  list(): ApiFaultRule[] {
    return [...this.rules.values()];
  }

  /** Replay: a rule as it was journalled (null: removed). */
  restore(id: string, rule: ApiFaultRule | null): void {
    if (rule === null) this.rules.delete(id);
    else this.rules.set(id, structuredClone(rule));
  }

  /**
   * The rule that fires for this request as it is once counted (hits + 1, remaining - 1), or
   * null. A copy: nothing changes until the caller commits it (middleware.ts), so a firing is
   * counted only once the journal holds it. A rule with no firings left stays listed
   * (remaining 0) until removed.
   */
  firing(q: {
    method: string;
    path: readonly string[];
    environment: string;
    workspace: string;
  }): ApiFaultRule | null {
    for (const rule of this.rules.values()) {
      if (rule.remaining === 0) continue;
      if (rule.environment !== null && rule.environment !== q.environment) continue;
      if (rule.workspace !== null && rule.workspace !== q.workspace) continue;
      if (!routeMatches(rule.route, q.method, q.path)) continue;
      if (rule.probability < 1 && this.random() >= rule.probability) continue;
      const counted = structuredClone(rule);
      counted.hits++;
      if (counted.remaining !== null) counted.remaining--;
      return counted;
    }
    return null;
  }
}

/** How the request log names a fault. */
export function faultLabel(a: ApiFaultAction): string {
  switch (a.kind) {
    case "status":
      return `status:${a.status}`;
    case "stall":
      return `stall:${a.ms}ms`;
    case "delay":
      return `delay:${a.ms}ms`;
    case "drop":
      return "drop";
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Apply a fired rule around `handle` (the route's normal handling):
 * - status: answered at once, `{ error, code: INJECTED }`, `Retry-After` when set; not handled;
 * - delay: handled after `ms`;
 * - stall: handled; the headers and the first half of the body are sent, the rest `ms` later;
 * - drop: handled (the change is made, and journalled), then the connection is closed before
 *   any byte of the answer is sent.
 */
export async function applyApiFault(
  rule: ApiFaultRule,
  req: IncomingMessage,
  res: ServerResponse,
  handle: () => Promise<void> | void,
): Promise<void> {
  const a = rule.action;
  switch (a.kind) {
    case "status":
      return sendJson(
        res,
        a.status,
        {
          error: `injected by the emulator's API fault ${rule.id}`,
          code: CODE.INJECTED,
          fault_id: rule.id,
        },
        a.retry_after === null ? {} : { "Retry-After": String(a.retry_after) },
      );
    case "delay":
      await sleep(a.ms);
      return handle();
    case "stall": {
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      (res as { end: unknown }).end = (chunk?: unknown) => {
        const body = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer | undefined);
        if (!body || body.length < 2) {
          setTimeout(() => end(body), a.ms);
          return res;
        }
        const half = Math.floor(body.length / 2);
        res.write(body.subarray(0, half));
        setTimeout(() => end(body.subarray(half)), a.ms);
        return res;
      };
      return handle();
    }
    case "drop": {
      (res as { end: unknown }).end = () => {
        req.socket.destroy();
        return res;
      };
      // A refusal (an HttpError answered by the edge) is lost the same way.
      return handle();
    }
  }
}

/**
 * A rule as written on the command line (`--api-fault`), as the JSON body of the admin API or
 * in short: `<what> <METHOD> <path> [count=N] [probability=P] [workspace=W] [environment=E]
 * [retry_after=S]`, where `<what>` is 429, 500, 502, 503, `stall=MS`, `delay=MS` or `drop`:
 * `503 POST /automations/*\/runs count=2`.
 */
export function apiFaultFromFlag(text: string): Record<string, unknown> {
  const t = text.trim();
  if (t.startsWith("{")) {
    const v = JSON.parse(t) as unknown;
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw new ApiFaultError("route", "a JSON API fault must be an object");
    return v as Record<string, unknown>;
  }
  const [what = "", method = "", path = "", ...rest] = t.split(/\s+/);
  const body: Record<string, unknown> = { route: `${method} ${path}` };
  const ms = /^(stall|delay)=(\d+)$/.exec(what);
  if (/^\d{3}$/.test(what)) {
    body.fault = "status";
    body.status = Number(what);
  } else if (ms) {
    body.fault = ms[1];
    body.ms = Number(ms[2]);
  } else if (what === "drop") body.fault = "drop";
  else
    throw new ApiFaultError(
      "fault",
      `unknown fault ${JSON.stringify(what)}: 429, 500, 502, 503, stall=MS, delay=MS or drop`,
    );
  for (const kv of rest) {
    const m = /^(count|probability|workspace|environment|retry_after)=(.+)$/.exec(kv);
    if (!m) throw new ApiFaultError("route", `unknown option ${JSON.stringify(kv)}`);
    const [, k, v] = m as unknown as [string, string, string];
    body[k] = k === "workspace" || k === "environment" ? v : Number(v);
  }
  return body;
}
