// Spec, Callbacks delivery rule 3: "Duplicates are possible; receivers store
// event_id before non-repeatable downstream actions". The store is the
// interface a Redis (SET NX PX) or SQL (INSERT ... ON CONFLICT DO NOTHING)
// implementation provides.

export interface CallbackEventStore {
  /**
   * Atomically claims an event id for `ttlMs`. True when this caller now
   * owns it; false when it is already claimed or completed.
   */
  claim(eventId: string, ttlMs: number): Promise<boolean> | boolean;
  /** Marks a claimed event as handled for good. */
  complete(eventId: string): Promise<void> | void;
  /** Gives a claim back after a failed handler, so a redelivery is handled. */
  release(eventId: string): Promise<void> | void;
}

export interface MemoryEventStoreOptions {
  /** How long a completed id is remembered. Default 24 hours. */
  readonly completedTtlMs?: number;
  readonly now?: () => number;
}

/** An in-process store: enough for one process; use a shared store when several run. */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): CallbackEventStore {
  const now = options.now ?? Date.now;
  const completedTtlMs = options.completedTtlMs ?? 24 * 60 * 60 * 1000;
  const expiries = new Map<string, number>();
  const sweep = () => {
    const time = now();
    for (const [id, expiry] of expiries) if (expiry <= time) expiries.delete(id);
  };
  return {
    claim(eventId, ttlMs) {
      sweep();
      if (expiries.has(eventId)) return false;
      expiries.set(eventId, now() + ttlMs);
      return true;
    },
    complete(eventId) {
      expiries.set(eventId, now() + completedTtlMs);
    },
    release(eventId) {
      expiries.delete(eventId);
    },
  };
}
