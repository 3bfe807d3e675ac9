// A Web-standard receiver for callback deliveries (spec, Callbacks). A
// callback is a hint: "A callback confirms only that a notification
// occurred". The receiver bounds the body, optionally verifies the Standard
// Webhooks signature, claims event_id with a lease, confirms with the API
// (status, and for completed the result) and acts only on what the API says.
// It answers within `respondWithinMs` (below the service's 10 s timeout):
// 2xx when done, 5xx/Retry-After when the service should deliver again.
import { completeWhileLeaseHeld } from "./callback-completion.js";
import {
  type CallbackEventStore,
  createMemoryEventStore,
  type TransactionalCallbackEventStore,
} from "./callback-event-store.js";
import { createRedactingLog, type Logger } from "./logger.js";
import { toRunEnvelope } from "./run-envelope.js";
import type { RunResult } from "./run-result.js";
import { isTerminalStatus } from "./run-status.js";
import { awaitsPerson } from "./wait-for-run.js";
import { verifyStandardWebhook } from "./webhook-signature.js";
import type {
  CallbackBody,
  CallbackEventType,
  RunEnvelope,
  WireRunEnvelope,
} from "./wire-types.js";

const CALLBACK_TYPES: readonly CallbackEventType[] = [
  "workflow.run.requires_action",
  "workflow.run.completed",
];

/** What a handler receives: the delivery as sent, and the run (and result) as read back from the API. */
export interface CallbackContext {
  readonly callback: CallbackBody;
  readonly run: RunEnvelope;
  /** For workflow.run.completed: the result as the API reports it (terminal). */
  readonly result?: RunResult<Record<string, unknown>>;
  /** The lease's fencing token: pass it to downstream writes that must not run twice. */
  readonly fencingToken: number;
}

export interface CallbackHandlerOptions {
  /** Used to confirm the run with the API before calling a handler. */
  readonly client: {
    getRun(runId: string): Promise<RunEnvelope>;
    getResult(runId: string): Promise<RunResult<Record<string, unknown>>>;
  };
  readonly store?: CallbackEventStore;
  readonly onRequiresAction?: (context: CallbackContext) => Promise<void> | void;
  readonly onCompleted?: (context: CallbackContext) => Promise<void> | void;
  readonly logger?: Logger;
  /** Lease of a claim while it is confirmed and handled. Default 5 minutes. */
  readonly leaseMs?: number;
  /** Answer by then even if the handler still runs (503, retry later). Default 8,000 ms (service timeout 10 s). */
  readonly respondWithinMs?: number;
  /** Bodies above this are refused (413) before being read whole. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Opt-in Standard Webhooks verification (several secrets for rotation). */
  readonly webhookSecret?: string | readonly string[];
}

/** What a transactional handler receives: the context and the store's transaction. */
export interface TransactionalCallbackContext<Tx> extends CallbackContext {
  /** The store's transaction (PostgreSQL, PGlite: a SQL client bound to it); commits with the completion. */
  readonly tx: Tx;
}

/**
 * A receiver whose handlers run inside the store's transaction: their writes
 * through `tx` and the event's completion commit together, or not at all
 * (the outbox pattern). A handler that throws rolls them back and the event
 * is released for redelivery; a process or connection that dies before the
 * commit leaves nothing written, and the delivery after the lease runs the
 * handler once more.
 */
export interface TransactionalCallbackHandlerOptions<Tx>
  extends Omit<CallbackHandlerOptions, "store" | "onCompleted" | "onRequiresAction"> {
  readonly store: TransactionalCallbackEventStore<Tx>;
  readonly transactional: true;
  readonly onRequiresAction?: (context: TransactionalCallbackContext<Tx>) => Promise<void> | void;
  readonly onCompleted?: (context: TransactionalCallbackContext<Tx>) => Promise<void> | void;
}

export type ParsedCallback =
  | { readonly ok: true; readonly callback: CallbackBody }
  | { readonly ok: false; readonly reason: string };

/** Parses and checks a delivery body: event_id, a known type, and run.run_id are required. */
export function parseCallbackBody(text: string): ParsedCallback {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: "body is not JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { ok: false, reason: "body is not an object" };
  const record = body as Record<string, unknown>;
  if (typeof record.event_id !== "string" || record.event_id === "")
    return { ok: false, reason: "event_id is missing" };
  if (!CALLBACK_TYPES.includes(record.type as CallbackEventType))
    return { ok: false, reason: "type is not a known callback type" };
  const run = record.run as Record<string, unknown> | null | undefined;
  if (
    typeof run !== "object" ||
    run === null ||
    typeof run.run_id !== "string" ||
    run.run_id === ""
  ) {
    return { ok: false, reason: "run.run_id is missing" };
  }
  const wire = body as Omit<CallbackBody, "run"> & { run: WireRunEnvelope };
  return { ok: true, callback: { ...wire, run: toRunEnvelope(wire.run) } };
}

const json = (
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

const DEFAULT_MAX_CALLBACK_BODY_BYTES = 1_048_576;

class BodyTooLarge extends Error {}

/** Reads at most `limit` bytes; refuses by Content-Length first, then while streaming. */
async function readBounded(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

type Outcome = { readonly status: number; readonly body: Record<string, unknown> };
type Handler<Context> = (context: Context) => Promise<void> | void;

/**
 * A callback receiver: `(Request) => Promise<Response>`, plus `drain()`, which
 * resolves once every completion written behind an answer is stored (call it
 * before closing the store on shutdown).
 */
export interface CallbackHandler {
  (request: Request): Promise<Response>;
  /** Waits for the completions of answered deliveries still being written. */
  drain(): Promise<void>;
}

/** Creates a callback receiver (see {@link CallbackHandler}) whose handlers run in the store's transaction. */
export function createCallbackHandler<Tx>(
  options: TransactionalCallbackHandlerOptions<Tx>,
): CallbackHandler;
/** Creates a callback receiver (see {@link CallbackHandler}). */
export function createCallbackHandler(options: CallbackHandlerOptions): CallbackHandler;
export function createCallbackHandler(
  options: CallbackHandlerOptions | TransactionalCallbackHandlerOptions<unknown>,
): CallbackHandler {
  const transactional = "transactional" in options && options.transactional === true;
  const store: CallbackEventStore = options.store ?? createMemoryEventStore();
  const log = createRedactingLog(options.logger, []);
  const leaseMs = options.leaseMs ?? 5 * 60 * 1000;
  const respondWithinMs = options.respondWithinMs ?? 8_000;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_CALLBACK_BODY_BYTES;

  // The event is marked done without the answer waiting for that write
  // (docs/service-rules.md#callbacks: the id is stored before the action, by
  // the claim; the completion only tells a later delivery of the same id
  // "done" instead of "processing"). Until it lands, such a delivery reads
  // processing and is answered 503, so the service tries it again later. A
  // completion the store fails is tried again, with the lease extended, while
  // the lease can be held (callback-completion.ts): the service, answered 200,
  // does not deliver it again, and a redelivery of its own meanwhile reads
  // processing, never a second run. On a store with a round trip per
  // statement, the write goes with the claims of the next deliveries instead
  // of costing one of its own.
  const completing = new Set<Promise<unknown>>();
  function completeBehind(eventId: string, token: number, leaseEndsAt: number): void {
    const write = completeWhileLeaseHeld({ store, eventId, token, leaseMs, leaseEndsAt, log });
    completing.add(write);
    void write.finally(() => completing.delete(write));
  }

  /** Confirms with the API and runs the handler; the claim ends done, or released on failure. */
  async function process(
    callback: CallbackBody,
    token: number,
    leaseEndsAt: number,
  ): Promise<Outcome> {
    const eventId = callback.event_id;
    try {
      const runId = callback.run.run_id;
      const run = await options.client.getRun(runId);
      const completed = callback.type === "workflow.run.completed";
      let result: RunResult<Record<string, unknown>> | undefined;
      // An unrecognized status may be terminal: the result endpoint decides (200 = terminal).
      let agrees = completed
        ? isTerminalStatus(run.status) || run.status === "unrecognized"
        : awaitsPerson(run, new Set());
      if (agrees && completed) {
        result = await options.client.getResult(runId);
        agrees = result.state === "terminal";
      }
      if (!agrees) {
        // Acknowledged, logged, not acted on: the API is the truth; the
        // polling fallback (or a later callback) will see the real state.
        log("warn", "callback disagrees with the API; not acted on", {
          eventId,
          runId,
          type: callback.type,
          apiStatus: run.serverStatus,
        });
        completeBehind(eventId, token, leaseEndsAt);
        return { status: 200, body: { received: true, acted: false } };
      }
      const context: CallbackContext = {
        callback,
        run,
        fencingToken: token,
        ...(result ? { result } : {}),
      };
      const handle: Handler<TransactionalCallbackContext<unknown>> | undefined = completed
        ? options.onCompleted
        : options.onRequiresAction;
      if (transactional) return await handleInTransaction(context, handle);
      // Not transactional: the options' handlers take a CallbackContext, which has no `tx`.
      await (handle as Handler<CallbackContext> | undefined)?.(context);
      completeBehind(eventId, token, leaseEndsAt);
      return { status: 200, body: { received: true, acted: true } };
    } catch (error) {
      await store.release(eventId, token).catch(() => false);
      log("error", "callback handling failed; released for redelivery", { eventId, error });
      return { status: 500, body: { error: "handler failed" } };
    }
  }

  /** The handler and the completion in one transaction of the store: both commit, or neither. */
  async function handleInTransaction(
    context: CallbackContext,
    handle: Handler<TransactionalCallbackContext<unknown>> | undefined,
  ): Promise<Outcome> {
    const eventId = context.callback.event_id;
    const committed = await (store as TransactionalCallbackEventStore<unknown>).completeWithin(
      eventId,
      context.fencingToken,
      async (tx) => {
        await handle?.({ ...context, tx });
      },
    );
    if (committed.held) return { status: 200, body: { received: true, acted: true } };
    // Rolled back: the lease ended before the commit. The delivery comes back
    // and reads processing (another holder) or claims the event anew.
    log("warn", "lease lost before the commit; the handler's writes were rolled back", { eventId });
    return { status: 503, body: { processing: true } };
  }

  const receive = async (request: Request): Promise<Response> => {
    if (request.method !== "POST") {
      return json(405, { error: "method not allowed" }, { allow: "POST" });
    }
    let raw: Uint8Array;
    try {
      raw = await readBounded(request, maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge)
        return json(413, { error: `body exceeds ${maxBodyBytes} bytes` });
      throw error;
    }
    if (options.webhookSecret !== undefined) {
      const verified = await verifyStandardWebhook({
        secret: options.webhookSecret,
        headers: request.headers,
        body: raw,
      });
      if (!verified.ok) {
        log("warn", "callback signature rejected", { reason: verified.reason });
        return json(401, { error: "invalid signature" });
      }
    }
    const parsed = parseCallbackBody(new TextDecoder().decode(raw));
    if (!parsed.ok) return json(400, { error: parsed.reason });
    const { callback } = parsed;
    const claimSent = Date.now();
    let claim: Awaited<ReturnType<CallbackEventStore["claim"]>>;
    try {
      claim = await store.claim(callback.event_id, leaseMs);
    } catch (error) {
      // Nothing was acted on: the service delivers again later.
      log("error", "event store unavailable; delivery answered 503", {
        eventId: callback.event_id,
        error,
      });
      return json(503, { error: "event store unavailable" }, { "retry-after": "5" });
    }
    if (claim.outcome === "done") {
      log("debug", "duplicate callback delivery", { eventId: callback.event_id });
      return json(200, { duplicate: true });
    }
    if (claim.outcome === "processing") {
      // Not "done": if the first attempt fails, this delivery must come back.
      const seconds = Math.max(1, Math.ceil((claim.leaseExpiresAt - Date.now()) / 1000));
      return json(503, { processing: true }, { "retry-after": String(Math.min(seconds, 60)) });
    }
    const work = process(callback, claim.token, claimSent + leaseMs);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), respondWithinMs);
    });
    const outcome = await Promise.race([work, late]);
    clearTimeout(timer);
    if (!outcome) {
      // The handler keeps its lease and finishes on its own; the service
      // retries, and the retry reads processing (503) or done (200).
      return json(503, { processing: true }, { "retry-after": "5" });
    }
    return json(outcome.status, outcome.body);
  };
  async function drain(): Promise<void> {
    while (completing.size > 0) await Promise.all(completing);
  }
  return Object.assign(receive, { drain });
}
