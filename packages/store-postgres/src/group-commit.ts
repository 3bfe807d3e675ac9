// Group commit: calls that arrive while a write is in flight wait and go
// together in the next one; under load, one statement (one round trip, one
// transaction) carries every intent that queued meanwhile. Before each write
// the queue yields once to the event loop (setImmediate): PGlite runs its
// statements synchronously on this thread, so without that turn no I/O
// callback (a launch's answer) could ever queue behind a write, and every
// batch had one item (measured: 1,200 batches of 1 for 400 rows at
// concurrency 32). The turn costs microseconds at concurrency 1.

/** One item's own outcome from a batch write: its value, or its own error. */
export type ItemOutcome<R> = { readonly value: R } | { readonly error: unknown };

export interface GroupCommitOptions {
  /** At most this many items in one write. */
  readonly maxBatch?: number;
  /** Called when the queue is empty after a write (nothing in flight); the next item starts a new run. */
  readonly onIdle?: () => void;
}

/**
 * One write in flight at a time: the items that queue while it is out go
 * together in the next. (Until 2026-11-29 a pool could have several in
 * flight and a round could leave in halves; for the callback receiver each
 * extra statement cost its thread more than the overlap saved: README,
 * "Batching".)
 */
export function groupCommit<T, R>(
  writeBatch: (items: readonly T[]) => Promise<readonly ItemOutcome<R>[]>,
  options: GroupCommitOptions = {},
): (item: T) => Promise<R> {
  const maxBatch = options.maxBatch ?? 256;
  type Waiter = { item: T; resolve: (value: R) => void; reject: (error: unknown) => void };
  let pending: Waiter[] = [];
  let writing = false;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const writer = async () => {
    writing = true;
    try {
      for (;;) {
        await turn();
        if (pending.length === 0) break;
        const batch = pending.slice(0, maxBatch);
        pending = pending.slice(batch.length);
        try {
          const outcomes = await writeBatch(batch.map((w) => w.item));
          batch.forEach((waiter, i) => {
            const outcome = outcomes[i];
            if (outcome && "value" in outcome) waiter.resolve(outcome.value);
            else
              waiter.reject(outcome ? outcome.error : new Error("no outcome for a batched write"));
          });
        } catch (error) {
          for (const waiter of batch) waiter.reject(error);
        }
      }
    } finally {
      writing = false;
      options.onIdle?.();
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!writing) void writer();
    });
}

/** Runs `each` for every item, one outcome per item (its value or its own error). */
export async function settleEach<T, R>(
  items: readonly T[],
  each: (item: T) => Promise<R>,
): Promise<ItemOutcome<R>[]> {
  return Promise.all(
    items.map((item) =>
      each(item).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
}
