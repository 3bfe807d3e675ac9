// Spec "Callbacks": POST JSON {event_id, type, run, result?} to callback_url; best effort, up to
// three attempts, 10 s timeout each, retried on network errors, HTTP 429 and 5xx only.
// Signing (spec: not shown) follows Standard Webhooks when a secret is configured.
import { createHmac } from "node:crypto";

export const CALLBACK_ATTEMPTS = 3;
export const CALLBACK_TIMEOUT_MS = 10_000;

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
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, secret `whsec_<base64>`. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = secret.startsWith("whsec_")
    ? Buffer.from(secret.slice("whsec_".length), "base64")
    : Buffer.from(secret, "utf8");
  const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** Retry only on network errors, 429 and 5xx (spec "Delivery rules" 1). */
export function shouldRetry(status: number | null): boolean {
  return status === null || status === 429 || status >= 500;
}

export interface DispatcherHooks {
  secret?: string;
  onAttempt(env: string, attempt: DeliveryAttempt): void;
  onDone(cb: PendingCallback): void;
  retryDelayMs?: (attempt: number) => number;
}

export class CallbackDispatcher {
  private readonly inflight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly hooks: DispatcherHooks) {}

  /** Deliver `cb`; after a restart, `firstAttempt` continues the count where it stopped. */
  send(cb: PendingCallback, firstAttempt = 1): void {
    const p = this.deliver(cb, firstAttempt).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private async deliver(cb: PendingCallback, firstAttempt: number): Promise<void> {
    for (let attempt = firstAttempt; attempt <= CALLBACK_ATTEMPTS && !this.closed; attempt++) {
      const started = Date.now();
      let status: number | null = null;
      let error: string | null = null;
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
        const res = await fetch(cb.url, {
          method: "POST",
          headers,
          body: cb.body,
          redirect: "manual",
          signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
        });
        status = res.status;
        await res.arrayBuffer().catch(() => undefined);
      } catch (e) {
        const err = e as Error & { cause?: { code?: string } };
        error =
          err.name === "TimeoutError" ? "timeout after 10000 ms" : (err.cause?.code ?? err.message);
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
      });
      if (!shouldRetry(status)) break;
      if (attempt < CALLBACK_ATTEMPTS) {
        const delay = this.hooks.retryDelayMs?.(attempt) ?? 200 * attempt;
        await new Promise<void>((r) => {
          const t = setTimeout(() => {
            this.timers.delete(t);
            r();
          }, delay);
          this.timers.add(t);
        });
      }
    }
    if (!this.closed) this.hooks.onDone(cb);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.race([
      Promise.allSettled([...this.inflight]),
      new Promise((r) => setTimeout(r, 200)),
    ]);
  }
}
