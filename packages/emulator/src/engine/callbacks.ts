// docs/service-rules.md#callbacks: POST JSON {event_id, type, run, result?} to callback_url; best effort, up to
// three attempts, 10 s timeout each, retried on network errors, HTTP 429 and 5xx only.
// Signing (spec: not shown) follows Standard Webhooks when a secret is configured.
//
// Where a delivery goes (callbacks never leave the machine unless asked):
// - with forwardTo (--forward-callbacks), every delivery goes to that local receiver, with the
//   original callback_url in the X-Wfr-Callback-Url header;
// - otherwise the name is resolved at delivery time and every address checked; the connection
//   goes to the checked address only (no second lookup) and redirects are never followed;
// - a public destination is held (recorded, not sent) unless deliverPublic (--deliver-public);
//   a private one is sent only when local callbacks are allowed.
import { createHmac } from "node:crypto";
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { LIMITS } from "@wfr/protocol";
import { isPrivateAddress } from "./callback-url.js";

export const CALLBACK_ATTEMPTS: number = LIMITS.callbackAttempts;
const CALLBACK_TIMEOUT_MS: number = LIMITS.callbackAttemptTimeoutMs;

export interface PendingCallback {
  event_id: string;
  environment: string;
  run_id: string;
  type: string;
  url: string;
  body: string;
}

export interface DeliveryAttempt {
  event_id: string;
  type: string;
  url: string;
  run_id: string;
  attempt: number;
  status: number | null;
  error: string | null;
  started_at: string;
  duration_ms: number;
  /** Not sent: a public destination without --deliver-public (or a refused address). */
  held?: boolean;
  /** Where it was actually sent, when forwarded (--forward-callbacks). */
  forwarded_to?: string;
  /** A delivery fault armed from the admin API shaped this attempt (delivery-faults.ts). */
  injected?: "twice" | "late" | "fail";
}

interface DeliveryPolicy {
  allowLocal: boolean;
  forwardTo?: string;
  deliverPublic: boolean;
}

type Target =
  | { kind: "send"; url: URL; address?: string; family?: number; forwarded?: string }
  | { kind: "held"; reason: string }
  | { kind: "refused"; reason: string };

/** Decide where one delivery goes; resolves the name (when it must) and checks every address. */
export async function deliveryTarget(cbUrl: string, policy: DeliveryPolicy): Promise<Target> {
  if (policy.forwardTo)
    return { kind: "send", url: new URL(policy.forwardTo), forwarded: policy.forwardTo };
  const url = new URL(cbUrl);
  if (!policy.allowLocal && !policy.deliverPublic) {
    // Launch accepted only public URLs; none is sent without being asked to.
    return {
      kind: "held",
      reason: "held: public callbacks are not sent without --deliver-public or --forward-callbacks",
    };
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses =
    isIP(host) !== 0
      ? [{ address: host, family: isIP(host) }]
      : await dnsLookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) return { kind: "refused", reason: `${host} did not resolve` };
  const anyPrivate = addresses.some((a) => isPrivateAddress(a.address));
  if (anyPrivate && !policy.allowLocal) {
    return { kind: "refused", reason: `refused: ${host} resolves to a private address` };
  }
  if (!anyPrivate && !policy.deliverPublic) {
    return {
      kind: "held",
      reason: "held: public callbacks are not sent without --deliver-public or --forward-callbacks",
    };
  }
  const first = addresses[0] as { address: string; family: number };
  return { kind: "send", url, address: first.address, family: first.family };
}

/** POST once to the target; the socket connects to the checked address only, no redirects. */
function post(
  target: Extract<Target, { kind: "send" }>,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  const pinned: LookupFunction | undefined =
    target.address === undefined
      ? undefined
      : (_host, opts, cb) => {
          const address = target.address as string;
          const family = target.family ?? 4;
          if ((opts as { all?: boolean }).all) cb(null, [{ address, family }]);
          else cb(null, address, family);
        };
  const requestFn = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = requestFn(
      target.url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        ...(pinned ? { lookup: pinned } : {}),
        signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, secret `whsec_<base64>`. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = secret.startsWith("whsec_")
    ? Buffer.from(secret.slice("whsec_".length), "base64")
    : Buffer.from(secret, "utf8");
  const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** Retry only on network errors, 429 and 5xx (docs/service-rules.md#callbacks). */
export function shouldRetry(status: number | null): boolean {
  return status === null || status === 429 || status >= 500;
}

interface DispatcherHooks {
  secret?: string;
  policy?: DeliveryPolicy;
  onAttempt(env: string, attempt: DeliveryAttempt): void;
  onDone(cb: PendingCallback): void;
  retryDelayMs?: (attempt: number) => number;
  /** An injected receiver failure for this attempt (a 5xx status), or null to really send. */
  injectFailure?: (cb: PendingCallback) => number | null;
  /**
   * Settles once the state a callback tells of is durable (null: it already is). With --data
   * the journal writes in batches off the event loop; a receiver is told nothing the emulator
   * could forget in a crash, as an API answer is not.
   */
  durable?: () => Promise<void> | null;
}

interface SendOptions {
  /** Wait this long (real time) before the first attempt: a late delivery. */
  delayMs?: number;
  /** Marks every attempt of this delivery in the log. */
  injected?: "twice" | "late";
}

export class CallbackDispatcher {
  private readonly inflight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(private readonly hooks: DispatcherHooks) {}

  /** Deliver `cb`; after a restart, `firstAttempt` continues the count where it stopped. */
  send(
    cb: PendingCallback,
    firstAttempt = 1,
    lastAttempt = CALLBACK_ATTEMPTS,
    opts: SendOptions = {},
  ): void {
    const p = this.deliver(cb, firstAttempt, lastAttempt, opts).finally(() =>
      this.inflight.delete(p),
    );
    this.inflight.add(p);
  }

  private async deliver(
    cb: PendingCallback,
    firstAttempt: number,
    lastAttempt: number,
    opts: SendOptions,
  ): Promise<void> {
    try {
      await this.hooks.durable?.();
    } catch {
      return; // the journal failed: the state it would tell of is not kept, so it is not told
    }
    if (opts.delayMs) await this.sleep(opts.delayMs);
    for (let attempt = firstAttempt; attempt <= lastAttempt && !this.closed; attempt++) {
      const started = Date.now();
      let status: number | null = null;
      let error: string | null = null;
      let held = false;
      let forwarded: string | undefined;
      let injected: DeliveryAttempt["injected"] = opts.injected;
      const failWith = this.closed ? null : (this.hooks.injectFailure?.(cb) ?? null);
      if (failWith !== null) {
        status = failWith;
        error = `injected: the receiver answered ${failWith}`;
        injected = "fail";
      } else
        try {
          const ts = Math.floor(started / 1000);
          const headers: Record<string, string> = {
            "content-type": "application/json",
            "user-agent": "wfr-emulator",
            "webhook-id": cb.event_id,
            "webhook-timestamp": String(ts),
          };
          if (this.hooks.secret) {
            headers["webhook-signature"] = signWebhook(this.hooks.secret, cb.event_id, ts, cb.body);
          }
          const target = await deliveryTarget(
            cb.url,
            this.hooks.policy ?? { allowLocal: true, deliverPublic: true },
          );
          if (target.kind === "send") {
            if (target.forwarded) {
              headers["x-wfr-callback-url"] = cb.url;
              forwarded = target.forwarded;
            }
            status = await post(target, headers, cb.body);
          } else {
            held = true;
            error = target.reason;
          }
        } catch (e) {
          const err = e as Error & { code?: string; cause?: { code?: string } };
          error =
            err.name === "TimeoutError" || err.name === "AbortError"
              ? "timeout after 10000 ms"
              : (err.code ?? err.cause?.code ?? err.message);
        }
      this.hooks.onAttempt(cb.environment, {
        event_id: cb.event_id,
        type: cb.type,
        url: cb.url,
        run_id: cb.run_id,
        attempt,
        status,
        error,
        started_at: new Date(started).toISOString(),
        duration_ms: Date.now() - started,
        ...(held ? { held } : {}),
        ...(forwarded ? { forwarded_to: forwarded } : {}),
        ...(injected ? { injected } : {}),
      });
      if (held || !shouldRetry(status)) break;
      if (attempt < lastAttempt) {
        await this.sleep(this.hooks.retryDelayMs?.(attempt) ?? 200 * attempt);
      }
    }
    if (!this.closed) this.hooks.onDone(cb);
  }

  /**
   * Resolves once no delivery is in flight (attempts, the waits between them, a late delivery's
   * delay), also those started meanwhile. A test's time skipping waits here before it moves a
   * virtual clock, so that no attempt is skipped over (next-event.ts).
   */
  async idle(): Promise<void> {
    while (this.inflight.size > 0 && !this.closed) await Promise.allSettled([...this.inflight]);
  }

  /** A timer that close() cancels (it then resolves at once, and nothing more is sent). */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((r) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.wakers.delete(r);
        r();
      }, ms);
      this.timers.add(t);
      this.wakers.add(r);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const wake of this.wakers) wake();
    this.wakers.clear();
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((r) => setTimeout(r, 200)),
    ]);
  }
}
