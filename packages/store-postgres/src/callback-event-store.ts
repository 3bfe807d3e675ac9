// docs/service-rules.md#callbacks: duplicates happen, so a receiver stores
// event_id before any action that must not repeat. Each operation is one
// statement on the primary key, so its cost does not grow with the table.
// Claims and completions are group-committed: concurrent ones go in one
// statement (one round trip), with the same per-event outcome as one each.
import { groupCommit, settleEach } from "./group-commit.js";
import { quoteIdentifier } from "./migrations.js";
import type { SqlClient } from "./sql-client.js";
import type { CallbackClaim, CallbackEventStore } from "./store-contracts.js";

export interface PostgresCallbackEventStoreOptions {
  readonly schema: string;
  /** How long a finished event id is remembered; longer than the service's retry span. */
  readonly retentionMs: number;
}

/** What a claim that did not win reads from the row it lost to. */
function stateClaim(row: { state: string; lease_expires_at: number }): CallbackClaim {
  if (row.state === "done") return { outcome: "done" };
  return { outcome: "processing", leaseExpiresAt: Number(row.lease_expires_at) };
}

export function createPostgresCallbackEventStore(
  client: SqlClient,
  options: PostgresCallbackEventStoreOptions,
): CallbackEventStore & { prune(limit?: number): Promise<number> } {
  const table = `${quoteIdentifier(options.schema)}.wfr_callback_events`;
  const tokens = `${quoteIdentifier(options.schema)}.wfr_callback_event_tokens`;
  const epochMs = (column: string) => `(EXTRACT(EPOCH FROM ${column}) * 1000)::float8`;
  // A new row, or a takeover of a released event or of a lease that ran out,
  // in one statement: the row lock makes concurrent claims take turns, and
  // only the one whose WHERE still holds gets a row back. (A claim that loses
  // still draws a number from the sequence; tokens only need to increase.)
  const claimSql = `
    INSERT INTO ${table} AS e (event_id, state, token, lease_expires_at, retain_until)
    VALUES ($1, 'processing', nextval('${tokens}'),
            clock_timestamp() + $2 * interval '1 millisecond',
            clock_timestamp() + $3 * interval '1 millisecond')
    ON CONFLICT (event_id) DO UPDATE
      SET state = 'processing',
          token = EXCLUDED.token,
          lease_expires_at = EXCLUDED.lease_expires_at,
          retain_until = EXCLUDED.retain_until
      WHERE e.state = 'released'
         OR (e.state = 'processing' AND e.lease_expires_at <= clock_timestamp())
         OR e.retain_until <= clock_timestamp()
    RETURNING token::float8 AS token, ${epochMs("lease_expires_at")} AS lease_expires_at`;
  const stateSql = `
    SELECT state, ${epochMs("lease_expires_at")} AS lease_expires_at FROM ${table} WHERE event_id = $1`;
  const completeSql = `
    UPDATE ${table} SET state = 'done', retain_until = clock_timestamp() + $3 * interval '1 millisecond'
     WHERE event_id = $1 AND token = $2::bigint AND state = 'processing' AND lease_expires_at > clock_timestamp()
     RETURNING 1 AS ok`;
  const releaseSql = `
    UPDATE ${table} SET state = 'released', lease_expires_at = clock_timestamp()
     WHERE event_id = $1 AND token = $2::bigint AND state = 'processing' AND lease_expires_at > clock_timestamp()
     RETURNING 1 AS ok`;
  const completeBatchSql = `
    UPDATE ${table} AS e SET state = 'done', retain_until = clock_timestamp() + $3 * interval '1 millisecond'
      FROM unnest($1::text[], $2::bigint[]) AS v(event_id, token)
     WHERE e.event_id = v.event_id AND e.token = v.token AND e.state = 'processing'
       AND e.lease_expires_at > clock_timestamp()
     RETURNING e.event_id`;
  const completeOne = async ({ eventId, token }: { eventId: string; token: number }) => {
    const { rows } = await client.query(
      completeSql,
      [eventId, token, options.retentionMs],
      prepare,
    );
    return rows.length === 1;
  };
  const batching = { inFlight: client.parallelStatements ?? 1 };
  const prepare = { prepare: true };
  const complete = groupCommit<{ eventId: string; token: number }, boolean>(async (items) => {
    if (items.length === 1) return settleEach(items, completeOne);
    // A repeat of an event id within the batch runs alone afterwards, as it
    // would have run after the first unbatched.
    const seen = new Set<string>();
    const first = items.map((item) => !seen.has(item.eventId) && Boolean(seen.add(item.eventId)));
    const batch = items.filter((_, i) => first[i]);
    const { rows } = await client.query<{ event_id: string }>(
      completeBatchSql,
      [batch.map((item) => item.eventId), batch.map((item) => item.token), options.retentionMs],
      prepare,
    );
    const completed = new Set(rows.map((row) => row.event_id));
    return settleEach(
      items.map((item, i) => ({ item, i })),
      async ({ item, i }) => (first[i] ? completed.has(item.eventId) : completeOne(item)),
    );
  }, batching);
  // The batch form of claimSql: rows are inserted in event-id order, so two
  // receivers' batches lock shared rows in the same order and cannot deadlock.
  const claimBatchSql = `
    INSERT INTO ${table} AS e (event_id, state, token, lease_expires_at, retain_until)
    SELECT v.event_id, 'processing', nextval('${tokens}'),
           clock_timestamp() + v.lease_ms * interval '1 millisecond',
           clock_timestamp() + $3 * interval '1 millisecond'
      FROM unnest($1::text[], $2::float8[]) AS v(event_id, lease_ms)
     ORDER BY v.event_id
    ON CONFLICT (event_id) DO UPDATE
      SET state = 'processing',
          token = EXCLUDED.token,
          lease_expires_at = EXCLUDED.lease_expires_at,
          retain_until = EXCLUDED.retain_until
      WHERE e.state = 'released'
         OR (e.state = 'processing' AND e.lease_expires_at <= clock_timestamp())
         OR e.retain_until <= clock_timestamp()
    RETURNING e.event_id, token::float8 AS token, ${epochMs("lease_expires_at")} AS lease_expires_at`;
  const stateBatchSql = `
    SELECT event_id, state, ${epochMs("lease_expires_at")} AS lease_expires_at
      FROM ${table} WHERE event_id = ANY($1::text[])`;
  const claimOne = async ({
    eventId,
    leaseMs,
  }: {
    eventId: string;
    leaseMs: number;
  }): Promise<CallbackClaim> => {
    // A row can disappear between the two statements (pruned); then claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await client.query<{ token: number; lease_expires_at: number }>(
        claimSql,
        [eventId, leaseMs, options.retentionMs],
        prepare,
      );
      const won = claimed.rows[0];
      if (won)
        return {
          outcome: "claimed",
          token: Number(won.token),
          leaseExpiresAt: Number(won.lease_expires_at),
        };
      const current = await client.query<{ state: string; lease_expires_at: number }>(
        stateSql,
        [eventId],
        prepare,
      );
      const row = current.rows[0];
      if (!row) continue;
      return stateClaim(row);
    }
    throw new Error(`claim of callback event ${JSON.stringify(eventId)} kept racing with pruning`);
  };
  const claim = groupCommit<{ eventId: string; leaseMs: number }, CallbackClaim>(async (items) => {
    if (items.length === 1) return settleEach(items, claimOne);
    // A repeat of an event id within the batch claims alone afterwards, as
    // it would have after the first unbatched (one row cannot be inserted
    // twice by one statement).
    const seen = new Set<string>();
    const first = items.map((item) => !seen.has(item.eventId) && Boolean(seen.add(item.eventId)));
    const batch = items.filter((_, i) => first[i]);
    const ids = batch.map((item) => item.eventId);
    const { rows: won } = await client.query<{
      event_id: string;
      token: number;
      lease_expires_at: number;
    }>(claimBatchSql, [ids, batch.map((item) => item.leaseMs), options.retentionMs], prepare);
    const claimed = new Map(won.map((row) => [row.event_id, row]));
    const lost = ids.filter((id) => !claimed.has(id));
    const { rows: current } =
      lost.length === 0
        ? { rows: [] }
        : await client.query<{ event_id: string; state: string; lease_expires_at: number }>(
            stateBatchSql,
            [lost],
            prepare,
          );
    const states = new Map(current.map((row) => [row.event_id, row]));
    const outcomes: CallbackClaim[] = [];
    for (const item of batch) {
      const row = claimed.get(item.eventId);
      const state = states.get(item.eventId);
      outcomes.push(
        row
          ? {
              outcome: "claimed",
              token: Number(row.token),
              leaseExpiresAt: Number(row.lease_expires_at),
            }
          : state
            ? stateClaim(state)
            : await claimOne(item), // pruned between the statements: claim alone
      );
    }
    const byId = new Map(batch.map((item, i) => [item.eventId, outcomes[i] as CallbackClaim]));
    return settleEach(
      items.map((item, i) => ({ item, i })),
      async ({ item, i }) =>
        first[i] ? (byId.get(item.eventId) as CallbackClaim) : claimOne(item),
    );
  }, batching);
  const pruneSql = `
    DELETE FROM ${table} WHERE event_id IN (
      SELECT event_id FROM ${table} WHERE retain_until <= clock_timestamp() LIMIT $1)`;

  return {
    claim: (eventId, leaseMs) => claim({ eventId, leaseMs }),
    complete: (eventId, token) => complete({ eventId, token }),
    async release(eventId, token) {
      const { rows } = await client.query(releaseSql, [eventId, token], prepare);
      return rows.length === 1;
    },
    /** Deletes up to `limit` ids past their retention; returns how many. */
    async prune(limit = 1000) {
      const { rows } = await client.query(`${pruneSql} RETURNING 1`, [limit]);
      return rows.length;
    },
  };
}
