// Spec, Callbacks delivery rule 3: "Duplicates are possible; receivers store
// event_id before non-repeatable downstream actions". Claims are leases:
//
//   (absent) --claim--> processing(token, lease) --complete(token)--> done
//                         |  extend(token): the same token, a new lease
//                         |  release(token) or lease expiry: claimable again
//
// A crash between claim and side effect leaves `processing` until the lease
// expires; the next delivery (or the polling fallback) then claims it with a
// higher fencing token, and the crashed holder's late complete/release is
// refused (returns false). Side effects that must not run twice should carry
// the token (or be idempotent) because a lease can expire mid-work.
//
// The interface is what shared stores implement (Redis: a Lua script over a
// hash + INCR for tokens; PostgreSQL: INSERT ... ON CONFLICT DO UPDATE ...
// WHERE lease_expires_at < now() RETURNING token). `verifyCallbackEventStore`
// is the conformance check any implementation runs.

export type ClaimResult =
  /** This caller owns the event until `leaseExpiresAt`; pass `token` to complete/release. */
  | { readonly outcome: "claimed"; readonly token: number; readonly leaseExpiresAt: number }
  /** Another holder is working on it; answer "retry later". */
  | { readonly outcome: "processing"; readonly leaseExpiresAt: number }
  /** Handled for good; answer 2xx. */
  | { readonly outcome: "done" };

export interface CallbackEventStore {
  /**
   * Atomically claims `eventId` for `leaseMs`: succeeds when the id is
   * unknown, released, or its lease has expired. Tokens increase strictly
   * across all claims of the store (fencing).
   */
  claim(eventId: string, leaseMs: number): Promise<ClaimResult>;
  /** Marks the event done; false (and no change) unless `token` holds the current lease. */
  complete(eventId: string, token: number): Promise<boolean>;
  /** Gives the claim back so a redelivery can take it; false unless `token` is current. */
  release(eventId: string, token: number): Promise<boolean>;
  /**
   * Renews the lease of `token` to `leaseMs` from now; false (and no change)
   * unless `token` holds a live lease. The receiver extends its lease while it
   * retries a completion the store failed. Optional so that stores written
   * before it keep compiling; every store of this project has it, and
   * `verifyCallbackEventStore` checks it where it exists.
   */
  extend?(eventId: string, token: number, leaseMs: number): Promise<boolean>;
}

/** What {@link TransactionalCallbackEventStore.completeWithin} resolves to. */
export type CompletedWithin<T> =
  /** The work and the completion committed together. */
  | { readonly held: true; readonly value: T }
  /** `token` no longer held a live lease at commit: the work was rolled back with it. */
  | { readonly held: false };

/**
 * A store that can mark an event done in the same transaction as the
 * caller's own writes (the outbox pattern): both commit, or neither, so a
 * database side effect happens once whatever fails. `Tx` is what the work
 * receives: a SQL client bound to that transaction (PostgreSQL and PGlite).
 */
export interface TransactionalCallbackEventStore<Tx> extends CallbackEventStore {
  /**
   * Runs `work(tx)` in one transaction, then marks the event done in it while
   * `token` holds a live lease, and commits. Work that throws rolls everything
   * back and the event stays `processing` under `token` (release it).
   */
  completeWithin<T>(
    eventId: string,
    token: number,
    work: (tx: Tx) => Promise<T>,
  ): Promise<CompletedWithin<T>>;
}

export interface MemoryEventStoreOptions {
  /**
   * How long an id is remembered after its last change. Default 24 hours,
   * far beyond the service's retry span (3 attempts of at most 10 s).
   */
  readonly retentionMs?: number;
  readonly now?: () => number;
}

interface Entry {
  state: "processing" | "done";
  token: number;
  leaseExpiresAt: number;
  retainUntil: number;
}

/**
 * An in-process store with O(1) (amortised) operations: a Map of entries and
 * a FIFO of expiry times (every entry gets the same retention, so the FIFO
 * is in expiry order and is trimmed from the head). One process only; use a
 * shared store when several processes receive callbacks.
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): CallbackEventStore {
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionMs ?? 24 * 60 * 60 * 1000;
  const entries = new Map<string, Entry>();
  const expiryIds: string[] = [];
  const expiryTimes: number[] = [];
  let head = 0;
  let lastToken = 0;

  const remember = (eventId: string, entry: Entry) => {
    entries.set(eventId, entry);
    expiryIds.push(eventId);
    expiryTimes.push(entry.retainUntil);
  };
  const trim = (time: number) => {
    while (head < expiryIds.length && (expiryTimes[head] as number) <= time) {
      const id = expiryIds[head] as string;
      const entry = entries.get(id);
      if (entry && entry.retainUntil <= time) entries.delete(id);
      head += 1;
    }
    if (head > 1024 && head * 2 > expiryIds.length) {
      expiryIds.splice(0, head);
      expiryTimes.splice(0, head);
      head = 0;
    }
  };
  const holds = (eventId: string, token: number, time: number) => {
    const entry = entries.get(eventId);
    return entry?.state === "processing" && entry.token === token && entry.leaseExpiresAt > time
      ? entry
      : undefined;
  };

  return {
    async claim(eventId, leaseMs) {
      const time = now();
      trim(time);
      const entry = entries.get(eventId);
      if (entry?.state === "done") return { outcome: "done" };
      if (entry?.state === "processing" && entry.leaseExpiresAt > time)
        return { outcome: "processing", leaseExpiresAt: entry.leaseExpiresAt };
      lastToken += 1;
      const claimed: Entry = {
        state: "processing",
        token: lastToken,
        leaseExpiresAt: time + leaseMs,
        retainUntil: time + Math.max(retentionMs, leaseMs),
      };
      remember(eventId, claimed);
      return { outcome: "claimed", token: claimed.token, leaseExpiresAt: claimed.leaseExpiresAt };
    },
    async complete(eventId, token) {
      const time = now();
      const entry = holds(eventId, token, time);
      if (!entry) return false;
      remember(eventId, { ...entry, state: "done", retainUntil: time + retentionMs });
      return true;
    },
    async release(eventId, token) {
      if (!holds(eventId, token, now())) return false;
      entries.delete(eventId);
      return true;
    },
    async extend(eventId, token, leaseMs) {
      const time = now();
      const entry = holds(eventId, token, time);
      if (!entry || !(leaseMs > 0)) return false;
      const retainUntil = Math.max(entry.retainUntil, time + Math.max(retentionMs, leaseMs));
      remember(eventId, { ...entry, leaseExpiresAt: time + leaseMs, retainUntil });
      return true;
    },
  };
}
