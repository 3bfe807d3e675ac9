// The two operations of the callback event store that are not group-committed
// (callback-event-store.ts batches claims, completions and releases):
//
// - `extend`: renews a held lease. The receiver extends while it retries a
//   completion the store failed (@wfr/runtime, src/callback-completion.ts):
//   rare, so one statement of its own.
// - `completeWithin`: the caller's writes and the completion in ONE
//   transaction (the outbox pattern; packages/store-postgres/README.md,
//   "Transactional completion"). The completion is the transaction's last
//   statement, so the event row is locked only from there to the commit,
//   never while the caller's work runs: a duplicate delivery's claim, and
//   the other claims of its batch, do not wait on the handler.
import type { SqlClient, SqlQueryable } from "./sql-client.js";
import type { CompletedWithin } from "./store-contracts.js";

export interface LeaseOperations {
  /** Renews the lease of `token` to `leaseMs` from now; false unless it holds a live lease. */
  extend(eventId: string, token: number, leaseMs: number): Promise<boolean>;
  /**
   * Runs `work(tx)` in one transaction, marks the event done in it while
   * `token` holds a live lease, and commits. Work that throws rolls everything
   * back (the event stays `processing` under `token`); `{ held: false }`
   * when the lease ended first, with the work rolled back too.
   */
  completeWithin<T>(
    eventId: string,
    token: number,
    work: (tx: SqlQueryable) => Promise<T>,
  ): Promise<CompletedWithin<T>>;
}

/** Thrown inside the transaction to roll the caller's work back with the refused completion. */
class LeaseNotHeld extends Error {}

export function createLeaseOperations(
  client: SqlClient,
  options: { readonly table: string; readonly retentionMs: number },
): LeaseOperations {
  const { table } = options;
  const held = `event_id = $1 AND token = $2 AND state = 'processing'
         AND lease_expires_at > clock_timestamp()`;
  // retain_until moves with the lease: a claim keeps its id for the lease plus
  // the retention (README, "Retention"), an extended one too.
  const extendSql = `
    UPDATE ${table}
       SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond',
           retain_until = GREATEST(retain_until,
             clock_timestamp() + ($3 + $4) * interval '1 millisecond')
     WHERE ${held}
    RETURNING 1`;
  const completeSql = `UPDATE ${table} SET state = 'done' WHERE ${held} RETURNING 1`;
  const prepare = { prepare: true };

  return {
    async extend(eventId, token, leaseMs) {
      if (!Number.isFinite(leaseMs) || leaseMs <= 0)
        throw new RangeError(`leaseMs: must be a positive number of milliseconds, got ${leaseMs}`);
      if (!Number.isSafeInteger(token)) return false;
      const { rows } = await client.query(
        extendSql,
        [eventId, token, leaseMs, options.retentionMs],
        prepare,
      );
      return rows.length === 1;
    },
    async completeWithin(eventId, token, work) {
      if (!Number.isSafeInteger(token)) return { held: false };
      try {
        return await client.transaction(async (tx) => {
          const value = await work(tx);
          const { rows } = await tx.query(completeSql, [eventId, token], prepare);
          if (rows.length !== 1) throw new LeaseNotHeld();
          return { held: true, value } as const;
        });
      } catch (error) {
        if (error instanceof LeaseNotHeld) return { held: false };
        throw error;
      }
    },
  };
}
