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
  /**
   * Writes that may be in flight at once. One (the default) suits PGlite,
   * which runs one statement at a time anyway. Over a pool of connections,
   * more lets the next batch go out while one is still on the wire, instead
   * of every caller waiting for the batch before it: at a receiver's
   * concurrency of 16, the difference between one round trip per batch and
   * two or more in parallel.
   */
  readonly inFlight?: number;
  /**
   * With `inFlight` > 1: a batch goes as soon as half as many items as were
   * last queued or in flight together are waiting, without waiting for the
   * event loop's turn, while the caller still works on the rest of its round.
   * Deliveries to a receiver arrive as rounds (16 at once, in the
   * callback-receiver bench); sent whole, each round's statement waits for
   * the last one to be parsed, and the caller then sits idle for the round
   * trip. Sent in halves, the first half's round trip overlaps the work on
   * the second: one more statement a round, and a fifth more deliveries per
   * second in that bench.
   */
  readonly sendEarly?: boolean;
}

export function groupCommit<T, R>(
  writeBatch: (items: readonly T[]) => Promise<readonly ItemOutcome<R>[]>,
  options: GroupCommitOptions = {},
): (item: T) => Promise<R> {
  const maxBatch = options.maxBatch ?? 256;
  const inFlight = Math.max(1, options.inFlight ?? 1);
  const sendEarly = options.sendEarly === true && inFlight > 1;
  type Waiter = { item: T; resolve: (value: R) => void; reject: (error: unknown) => void };
  let pending: Waiter[] = [];
  let writers = 0;
  let sending = 0;
  /** Items in batches that are on their way. */
  let outstanding = 0;
  /** The most items recently queued or in flight together (a round), decaying batch by batch. */
  let round = 0;
  /** Writers waiting for their turn (with sendEarly): calling one sends its batch now. */
  const waiting: (() => void)[] = [];
  const turn = () =>
    new Promise<void>((resolve) => {
      if (!sendEarly) {
        setImmediate(resolve);
        return;
      }
      const go = () => {
        clearImmediate(immediate);
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        resolve();
      };
      const immediate = setImmediate(go);
      waiting.push(go);
    });
  const writer = async () => {
    writers += 1;
    try {
      for (;;) {
        await turn();
        if (pending.length === 0) break;
        const batch = pending.slice(0, maxBatch);
        pending = pending.slice(batch.length);
        sending += 1;
        outstanding += batch.length;
        round *= 0.9;
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
        } finally {
          sending -= 1;
          outstanding -= batch.length;
        }
      }
    } finally {
      writers -= 1;
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      round = Math.max(round, outstanding + pending.length);
      if (writers < inFlight) void writer();
      if (sendEarly && sending < inFlight && pending.length >= Math.max(2, Math.ceil(round / 2)))
        waiting[0]?.();
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
