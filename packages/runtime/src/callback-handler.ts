// A Web-standard receiver for callback deliveries (spec, Callbacks): parse,
// dedupe on event_id, confirm the run with getRun ("A callback confirms only
// that a notification occurred"), call the handler, answer 2xx fast; on
// handler failure release the claim and answer 500 so the delivery is retried.
import { type CallbackEventStore, createMemoryEventStore } from "./callback-event-store.js";
import { createRedactingLog, type Logger } from "./logger.js";
import type { CallbackBody, CallbackEventType, RunEnvelope } from "./wire-types.js";

const CALLBACK_TYPES: readonly CallbackEventType[] = [
  "workflow.run.requires_action",
  "workflow.run.completed",
];

/** What a handler receives: the delivery as sent, and the run as read back from the API. */
export interface CallbackContext {
  readonly callback: CallbackBody;
  readonly run: RunEnvelope;
}

export interface CallbackHandlerOptions {
  /** Used to confirm the run (`getRun`) before calling a handler. */
  readonly client: { getRun(runId: string): Promise<RunEnvelope> };
  readonly store?: CallbackEventStore;
  readonly onRequiresAction?: (context: CallbackContext) => Promise<void> | void;
  readonly onCompleted?: (context: CallbackContext) => Promise<void> | void;
  readonly logger?: Logger;
  /** How long a claim lasts while its handler runs. Default 5 minutes. */
  readonly claimTtlMs?: number;
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
  return { ok: true, callback: body as CallbackBody };
}

const json = (status: number, body: Record<string, unknown>) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Creates a `(Request) => Promise<Response>` callback receiver. */
export function createCallbackHandler(
  options: CallbackHandlerOptions,
): (request: Request) => Promise<Response> {
  const store = options.store ?? createMemoryEventStore();
  const log = createRedactingLog(options.logger, []);
  const claimTtlMs = options.claimTtlMs ?? 5 * 60 * 1000;
  return async (request) => {
    if (request.method !== "POST") {
      return new Response(JSON.stringify({ error: "method not allowed" }), {
        status: 405,
        headers: { allow: "POST", "content-type": "application/json" },
      });
    }
    const parsed = parseCallbackBody(await request.text());
    if (!parsed.ok) return json(400, { error: parsed.reason });
    const { callback } = parsed;
    if (!(await store.claim(callback.event_id, claimTtlMs))) {
      log("debug", "duplicate callback delivery", { eventId: callback.event_id });
      return json(200, { duplicate: true });
    }
    try {
      const run = await options.client.getRun(callback.run.run_id);
      const handle =
        callback.type === "workflow.run.completed" ? options.onCompleted : options.onRequiresAction;
      await handle?.({ callback, run });
      await store.complete(callback.event_id);
      return json(200, { received: true });
    } catch (error) {
      await store.release(callback.event_id);
      log("error", "callback handling failed; released for redelivery", {
        eventId: callback.event_id,
        error,
      });
      return json(500, { error: "handler failed" });
    }
  };
}
