// Shared stores on Redis: each operation is one atomic Lua script on one key
// (plus the set of open intents), so its cost does not grow with the data.

import { Redis, type RedisOptions } from "ioredis";
import {
  CHANGE_INTENT,
  CLAIM_EVENT,
  COMPLETE_EVENT,
  EXTEND_EVENT,
  LIST_OPEN_INTENTS,
  RECORD_INTENT,
  RELEASE_EVENT,
} from "./lua-scripts.js";
import {
  type CallbackClaim,
  type CallbackEventStore,
  type LaunchIntent,
  type LaunchJournal,
  LaunchJournalInvariantError,
} from "./store-contracts.js";

export interface RedisStoresOptions {
  /** `redis://...`; or pass `client`. */
  readonly url?: string;
  /** A client the app already has; not closed by `close()`. */
  readonly client?: Redis;
  /** Prefix of every key this package writes. Default `wfr:`. */
  readonly keyPrefix?: string;
  /** How long finished callback event ids are remembered. Default 7 days. */
  readonly callbackRetentionMs?: number;
  readonly redisOptions?: RedisOptions;
  /**
   * A connection error of the client this package creates from `url` (Redis restarting, the
   * network gone): ioredis reconnects by itself and each command meanwhile fails with its own
   * error, so by default nothing is done; give a function to log them. Without any listener,
   * ioredis would print every failed reconnection as an "Unhandled error event".
   */
  readonly onConnectionError?: (error: Error) => void;
}

export interface RedisStores {
  readonly callbackEvents: CallbackEventStore;
  readonly launchJournal: LaunchJournal;
  readonly client: Redis;
  close(): Promise<void>;
}

// The service retries a delivery up to three times within minutes
// (docs/service-rules.md#callbacks); a week covers that and any redelivery a person triggers.
const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

type Scripted = Redis & {
  wfrClaimEvent(
    key: string,
    tokenKey: string,
    leaseMs: number,
    retentionMs: number,
  ): Promise<[string, number?, number?]>;
  wfrCompleteEvent(key: string, token: number, retentionMs: number): Promise<number>;
  wfrReleaseEvent(key: string, token: number): Promise<number>;
  wfrExtendEvent(key: string, token: number, leaseMs: number, retentionMs: number): Promise<number>;
  wfrRecordIntent(
    key: string,
    open: string,
    id: string,
    idemKey: string,
    fingerprint: string,
  ): Promise<string[]>;
  wfrChangeIntent(
    key: string,
    open: string,
    id: string,
    state: string,
    runId: string,
    failure: string,
  ): Promise<string>;
  wfrListOpenIntents(open: string, olderThanMs: number, limit: number): Promise<string[]>;
};

export function openRedisStores(options: RedisStoresOptions): RedisStores {
  const retentionMs = options.callbackRetentionMs ?? DEFAULT_RETENTION_MS;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 60_000) {
    throw new RangeError(
      "callbackRetentionMs: must be a whole number of milliseconds, at least 60000",
    );
  }
  const prefix = options.keyPrefix ?? "wfr:";
  let client: Redis;
  if (options.client) client = options.client;
  else if (options.url && /^rediss?:\/\//i.test(options.url)) {
    client = new Redis(options.url, options.redisOptions ?? {});
    client.on("error", (error: Error) => options.onConnectionError?.(error));
  }
  // Never echo the URL: it may carry a password.
  else throw new TypeError("url: expected redis://... or rediss://..., or pass client");
  const redis = client as Scripted;
  redis.defineCommand("wfrClaimEvent", { numberOfKeys: 2, lua: CLAIM_EVENT });
  redis.defineCommand("wfrCompleteEvent", { numberOfKeys: 1, lua: COMPLETE_EVENT });
  redis.defineCommand("wfrReleaseEvent", { numberOfKeys: 1, lua: RELEASE_EVENT });
  redis.defineCommand("wfrExtendEvent", { numberOfKeys: 1, lua: EXTEND_EVENT });
  redis.defineCommand("wfrRecordIntent", { numberOfKeys: 2, lua: RECORD_INTENT });
  redis.defineCommand("wfrChangeIntent", { numberOfKeys: 2, lua: CHANGE_INTENT });
  redis.defineCommand("wfrListOpenIntents", { numberOfKeys: 1, lua: LIST_OPEN_INTENTS });

  const eventKey = (eventId: string) => `${prefix}callback-event:${eventId}`;
  const intentKey = (intentId: string) => `${prefix}launch-intent:${intentId}`;
  const openIntents = `${prefix}launch-intents:open`;
  const tokenCounter = `${prefix}callback-event-tokens`;

  const callbackEvents: CallbackEventStore = {
    async claim(eventId, leaseMs): Promise<CallbackClaim> {
      const [outcome, first, second] = await redis.wfrClaimEvent(
        eventKey(eventId),
        tokenCounter,
        leaseMs,
        retentionMs,
      );
      if (outcome === "claimed")
        return { outcome, token: Number(first), leaseExpiresAt: Number(second) };
      if (outcome === "processing") return { outcome, leaseExpiresAt: Number(first) };
      return { outcome: "done" };
    },
    async complete(eventId, token) {
      return (await redis.wfrCompleteEvent(eventKey(eventId), token, retentionMs)) === 1;
    },
    async release(eventId, token) {
      return (await redis.wfrReleaseEvent(eventKey(eventId), token)) === 1;
    },
    async extend(eventId, token, leaseMs) {
      if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0)
        throw new RangeError(
          `leaseMs: must be a whole positive number of milliseconds, got ${leaseMs}`,
        );
      const extended = await redis.wfrExtendEvent(eventKey(eventId), token, leaseMs, retentionMs);
      return extended === 1;
    },
  };

  const change = async (
    intentId: string,
    state: LaunchIntent["state"],
    runId: string,
    failure: string,
  ) => {
    const answer = await redis.wfrChangeIntent(
      intentKey(intentId),
      openIntents,
      intentId,
      state,
      runId,
      failure,
    );
    if (answer === "unknown") throw LaunchJournalInvariantError.unknownIntent(intentId);
    return answer;
  };
  const launchJournal: LaunchJournal = {
    async record(intent) {
      const flat = await redis.wfrRecordIntent(
        intentKey(intent.intentId),
        openIntents,
        intent.intentId,
        intent.idempotencyKey,
        intent.bodyFingerprint,
      );
      return toIntent(flat);
    },
    async markSent(intentId) {
      await change(intentId, "sent", "", "");
    },
    async markAcknowledged(intentId, runId) {
      const answer = await change(intentId, "acknowledged", runId, "");
      if (answer.startsWith("acknowledged:")) {
        const stored = answer.slice("acknowledged:".length);
        if (stored !== runId) throw LaunchJournalInvariantError.secondRun(intentId, stored, runId);
      }
    },
    async markFailed(intentId, failure) {
      // An empty failure text would read back as "no failure".
      await change(intentId, "failed", "", failure === "" ? "(no reason given)" : failure);
    },
    async get(intentId) {
      const flat = await redis.hgetall(intentKey(intentId));
      return Object.keys(flat).length === 0 ? undefined : toIntent(flat);
    },
    async listUnacknowledged(listOptions = {}) {
      const ids = await redis.wfrListOpenIntents(
        openIntents,
        listOptions.olderThanMs ?? 0,
        listOptions.limit ?? 100,
      );
      if (ids.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hgetall(intentKey(id));
      const results = (await pipeline.exec()) ?? [];
      const intents: LaunchIntent[] = [];
      for (const [error, flat] of results) {
        if (error) throw error;
        const fields = flat as Record<string, string>;
        if (Object.keys(fields).length > 0) intents.push(toIntent(fields));
      }
      return intents;
    },
  };

  return {
    callbackEvents,
    launchJournal,
    client,
    async close() {
      if (!options.client) await client.quit();
    },
  };
}

function toIntent(source: string[] | Record<string, string>): LaunchIntent {
  const fields: Record<string, string> = {};
  if (Array.isArray(source))
    for (let i = 0; i + 1 < source.length; i += 2)
      fields[source[i] as string] = source[i + 1] as string;
  else Object.assign(fields, source);
  return {
    intentId: fields.intent_id ?? "",
    idempotencyKey: fields.idempotency_key ?? "",
    bodyFingerprint: fields.body_fingerprint ?? "",
    state: (fields.state ?? "recorded") as LaunchIntent["state"],
    runId: fields.run_id ?? null,
    failure: fields.failure ?? null,
    createdAt: new Date(Number(fields.created_at)),
    updatedAt: new Date(Number(fields.updated_at)),
  };
}
