// Browser-access grants (docs/service-rules.md#portal-sessions-and-browser-access, "Authentication" 6): short-lived, bound to
// one run's browser session and to exact origins, so an embedded viewer or browser SDK never holds
// a workspace key. The spec does not show the schema; the shape chosen here is in the README.
// docs/service-rules.md#portal-sessions-and-browser-access: deleting a grant does not cancel the run, so nothing here
// reaches the run engine.

import { createHash, randomBytes } from "node:crypto";
import { CODE } from "@wfr/protocol";

export const GRANT_TOKEN_PREFIX = "wfr_grant_";
const GRANT_DEFAULT_SECONDS = 600;
/** Short-lived: at most one hour. */
const GRANT_MAX_SECONDS = 3600;
const GRANT_MAX_ORIGINS = 10;

/** A stored grant: only the SHA-256 of its token is kept (memory and journal). */
export interface BrowserAccessGrant {
  grant_id: string;
  token_sha256: string;
  environment: string;
  workspace: string;
  run_id: string;
  session_id: string;
  origins: string[];
  created_at: number;
  expires_at: number;
}

/** A refusal, mapped one to one onto an HTTP error by the server. */
export class GrantError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const sha256 = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");

/**
 * An exact origin: `http(s)://host[:port]` and nothing else. No wildcard, no `null` (sandboxed
 * frames and file: pages send it, so it identifies nobody), no path, query or credentials.
 */
function parseExactOrigin(value: unknown, field: string): string {
  const bad = (why: string) =>
    new GrantError(400, CODE.INVALID_GRANT, `${field} ${JSON.stringify(value)}: ${why}`, field);
  if (typeof value !== "string" || value === "") throw bad("must be a non-empty string");
  if (value === "null") throw bad("the null origin identifies no site");
  if (value.includes("*")) throw bad("wildcards are not allowed; list each exact origin");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad("not an origin (scheme://host[:port])");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw bad("scheme must be https or http");
  if (url.origin !== value) throw bad(`not an exact origin; did you mean ${url.origin}?`);
  return value;
}

interface GrantRequest {
  origins: string[];
  expires_in_seconds: number;
}

/** Body of POST /runs/{runId}/browser-access-grants; errors name the field. */
export function parseGrantRequest(body: Record<string, unknown>): GrantRequest {
  for (const k of Object.keys(body)) {
    if (k !== "origins" && k !== "expires_in_seconds")
      throw new GrantError(400, CODE.INVALID_GRANT, `unknown field ${JSON.stringify(k)}`, k);
  }
  const { origins, expires_in_seconds: secs = GRANT_DEFAULT_SECONDS } = body;
  if (!Array.isArray(origins) || origins.length === 0 || origins.length > GRANT_MAX_ORIGINS) {
    throw new GrantError(
      400,
      CODE.INVALID_GRANT,
      `origins must be a list of 1 to ${GRANT_MAX_ORIGINS} exact origins`,
      "origins",
    );
  }
  const exact = origins.map((o, i) => parseExactOrigin(o, `origins[${i}]`));
  if (typeof secs !== "number" || !Number.isInteger(secs) || secs < 1 || secs > GRANT_MAX_SECONDS) {
    throw new GrantError(
      400,
      CODE.INVALID_GRANT,
      `expires_in_seconds must be an integer from 1 to ${GRANT_MAX_SECONDS}`,
      "expires_in_seconds",
    );
  }
  return { origins: [...new Set(exact)], expires_in_seconds: secs };
}

interface GrantTarget {
  environment: string;
  workspace: string;
  run_id: string;
  session_id: string;
}

export class BrowserAccessGrants {
  private readonly byId = new Map<string, BrowserAccessGrant>();
  private readonly byHash = new Map<string, BrowserAccessGrant>();

  /**
   * A new grant, not stored yet (the caller commits it: state-changes.ts); the token is returned
   * here only (stored hashed).
   */
  mint(
    target: GrantTarget,
    req: GrantRequest,
    now: number,
  ): { grant: BrowserAccessGrant; token: string } {
    const token = `${GRANT_TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    const grant: BrowserAccessGrant = {
      grant_id: `bag_${randomBytes(9).toString("base64url")}`,
      token_sha256: sha256(token),
      ...target,
      origins: req.origins,
      created_at: now,
      expires_at: now + req.expires_in_seconds * 1000,
    };
    return { grant, token };
  }

  restore(grant: BrowserAccessGrant): void {
    this.byId.set(grant.grant_id, grant);
    this.byHash.set(grant.token_sha256, grant);
  }

  /** The grant with this id if the caller's workspace and environment own it. */
  find(id: string, environment: string, workspace: string): BrowserAccessGrant | undefined {
    const g = this.byId.get(id);
    return g && g.environment === environment && g.workspace === workspace ? g : undefined;
  }

  delete(id: string): boolean {
    const g = this.byId.get(id);
    if (!g) return false;
    this.byId.delete(id);
    this.byHash.delete(g.token_sha256);
    return true;
  }

  /** Grants still worth keeping (the journal's compacted form drops expired ones). */
  live(now: number): BrowserAccessGrant[] {
    return [...this.byId.values()].filter((g) => g.expires_at > now);
  }

  forgetRuns(runIds: Set<string>): void {
    for (const g of [...this.byId.values()]) if (runIds.has(g.run_id)) this.delete(g.grant_id);
  }

  /** Does a live grant of this run permit `origin`? (answers a CORS preflight, no token there) */
  permitsOrigin(environment: string, runId: string, origin: string, now: number): boolean {
    for (const g of this.byId.values()) {
      if (
        g.environment === environment &&
        g.run_id === runId &&
        g.expires_at > now &&
        g.origins.includes(origin)
      )
        return true;
    }
    return false;
  }

  /**
   * Check a grant token presented for the live view of `runId` from `origin`. The Origin must
   * match one of the grant's origins exactly; a grant for another run opens nothing (404, so a
   * grant does not reveal whether another run exists).
   */
  authorize(
    token: string,
    origin: string | undefined,
    environment: string,
    runId: string,
    now: number,
  ): BrowserAccessGrant {
    const g = this.byHash.get(sha256(token));
    if (!g || g.environment !== environment || g.expires_at <= now) {
      throw new GrantError(
        401,
        CODE.BROWSER_GRANT_INVALID,
        "the browser-access grant is unknown, deleted or expired",
      );
    }
    if (origin === undefined || origin === "null" || !g.origins.includes(origin)) {
      throw new GrantError(
        403,
        CODE.ORIGIN_NOT_PERMITTED,
        "this page's Origin is not one of the grant's exact origins",
      );
    }
    if (g.run_id !== runId) throw new GrantError(404, CODE.RUN_NOT_FOUND, "run not found");
    return g;
  }
}

/** The public view of a grant (never the token or its hash). */
export function grantView(g: BrowserAccessGrant, now: number, iso: (ms: number) => string) {
  return {
    grant_id: g.grant_id,
    run_id: g.run_id,
    session_id: g.session_id,
    origins: g.origins,
    created_at: iso(g.created_at),
    expires_at: iso(g.expires_at),
    expired: g.expires_at <= now,
  };
}
