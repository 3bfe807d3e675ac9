// What makes the desk safe to copy into production, each a small piece the server mounts:
// a Host allow-list (DNS rebinding), same-origin POSTs (CSRF; `Origin: null` or a malformed one is
// refused, never a 500), login throttling with backoff per account and per address, and a
// Content-Disposition any file name can go into (RFC 6266 with the RFC 5987 `filename*`).
// Body limits are Hono's own middleware (`hono/body-limit`), set per route in server.ts.
import type { MiddlewareHandler } from "hono";

/** Host names (with port when not the default) the desk answers to; anything else is 421. */
export function hostAllowList(allowed: () => readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header("host") ?? "").toLowerCase();
    if (!allowed().some((h) => h.toLowerCase() === host))
      return c.text("misdirected request: this desk does not answer to that host name", 421);
    await next();
  };
}

/** The hosts a desk listening on `host:port` answers to by default, plus the configured ones. */
export function defaultAllowedHosts(
  host: string,
  port: number,
  extra: readonly string[] = [],
): string[] {
  const local = new Set([host, "127.0.0.1", "localhost", "[::1]"]);
  return [...[...local].map((h) => `${h}:${port}`), ...extra];
}

/**
 * POSTs only from this desk's own pages: an `Origin`, when sent, must be exactly this origin (a
 * cross-site form cannot act for a signed-in operator); `null` (sandboxed frames, some
 * redirects) and unparsable values are refused like a foreign one. Browsers that send no
 * `Origin` are still held to the CSRF token.
 */
export function sameOriginPosts(publicProtocol: () => "http" | "https"): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === "POST") {
      if (c.req.header("sec-fetch-site") === "cross-site")
        return c.text("cross-site request refused", 403);
      const origin = c.req.header("origin");
      if (origin !== undefined) {
        let parsed: URL | undefined;
        try {
          parsed = new URL(origin);
        } catch {
          parsed = undefined;
        }
        const expected = `${publicProtocol()}://${c.req.header("host") ?? ""}`;
        if (!parsed || origin === "null" || parsed.origin !== expected.toLowerCase())
          return c.text("cross-site request refused", 403);
      }
    }
    await next();
  };
}

export interface LoginThrottleOptions {
  /** Failures allowed before the backoff starts. Default 5 per account, 20 per address. */
  readonly accountFailures?: number;
  readonly addressFailures?: number;
  /** First lockout; doubles with each further failure. Default 1 s. */
  readonly baseLockMs?: number;
  /** Longest lockout. Default 15 minutes. */
  readonly maxLockMs?: number;
  readonly now?: () => number;
}

interface Counter {
  failures: number;
  lockedUntil: number;
}

/**
 * Failed sign-ins per account and per client address, with exponential backoff: once a key has
 * had its allowance of failures, every further attempt (even with the right password) is refused
 * until its lock ends, and each further failure doubles the lock. A success clears both keys.
 * In memory: each instance throttles what it sees (with several instances an attacker gets
 * one allowance per instance; the README says so).
 */
export class LoginThrottle {
  private readonly accounts = new Map<string, Counter>();
  private readonly addresses = new Map<string, Counter>();
  private readonly now: () => number;
  constructor(private readonly options: LoginThrottleOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds to wait before this account may try from this address, or 0. */
  retryAfterMs(account: string, address: string): number {
    const now = this.now();
    const wait = (c: Counter | undefined) => Math.max(0, (c?.lockedUntil ?? 0) - now);
    return Math.max(
      wait(this.accounts.get(account.toLowerCase())),
      wait(this.addresses.get(address)),
    );
  }

  failed(account: string, address: string): void {
    this.bump(this.accounts, account.toLowerCase(), this.options.accountFailures ?? 5);
    this.bump(this.addresses, address, this.options.addressFailures ?? 20);
    // Forget old, unlocked entries so the maps cannot grow without bound.
    if (this.accounts.size + this.addresses.size > 100_000) this.prune();
  }

  succeeded(account: string, address: string): void {
    this.accounts.delete(account.toLowerCase());
    this.addresses.delete(address);
  }

  private bump(map: Map<string, Counter>, key: string, allowance: number): void {
    const counter = map.get(key) ?? { failures: 0, lockedUntil: 0 };
    counter.failures += 1;
    const over = counter.failures - allowance;
    if (over > 0) {
      const lock = Math.min(
        (this.options.baseLockMs ?? 1_000) * 2 ** (over - 1),
        this.options.maxLockMs ?? 15 * 60_000,
      );
      counter.lockedUntil = this.now() + lock;
    }
    map.set(key, counter);
  }

  private prune(): void {
    const now = this.now();
    for (const map of [this.accounts, this.addresses])
      for (const [key, counter] of map) if (counter.lockedUntil < now) map.delete(key);
  }
}

/**
 * `attachment` with the file name for every browser: an ASCII `filename=` fallback (quotes,
 * backslashes, control characters and non-ASCII replaced) and, when the name is not plain ASCII,
 * the exact name as RFC 5987 `filename*=UTF-8''...`.
 */
export function contentDisposition(filename: string): string {
  const name = filename === "" ? "file" : filename;
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const needsExtended = fallback !== name;
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return needsExtended
    ? `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`
    : `attachment; filename="${fallback}"`;
}
