// docs/service-rules.md#callbacks: duplicates happen, so a receiver stores
// event_id before any action that must not repeat. Every operation works on
// the primary key, so its cost does not grow with the table.
//
// Claims, completions and releases are group-committed: the operations that
// queue while a statement is in flight go together in the next one. Over a
// network (a server), they share one queue whatever their kind, and a batch
// is ONE statement (one round trip, one transaction): a receiver's delivery
// is a claim and then a completion, so under load one round trip carries the
// claims of new deliveries and the completions of earlier ones, and the state
// of a claim that lost comes back in the same statement. In-process (PGlite)
// there is no round trip to save, and claims and finishes (completions and
// releases) queue apart, one statement per batch each. A lone operation is one
// statement, sent without waiting for a timer.
import { groupCommit, type ItemOutcome } from "./group-commit.js";
import { createLeaseOperations } from "./lease-operations.js";
import { quoteIdentifier } from "./migrations.js";
import type { SqlClient, SqlQueryable } from "./sql-client.js";
import type { CallbackClaim, TransactionalCallbackEventStore } from "./store-contracts.js";

/** The store on PostgreSQL or PGlite: its transactions bind a `SqlQueryable`. */
export type PostgresCallbackEventStore = TransactionalCallbackEventStore<SqlQueryable> & {
  extend(eventId: string, token: number, leaseMs: number): Promise<boolean>;
  /** Deletes up to `limit` ids past their retention; returns how many. */
  prune(limit?: number): Promise<number>;
};

export interface PostgresCallbackEventStoreOptions {
  readonly schema: string;
  /** How long a finished event id is remembered; longer than the service's retry span. */
  readonly retentionMs: number;
}

type Operation =
  | { readonly kind: "claim"; readonly eventId: string; readonly leaseMs: number }
  | { readonly kind: "complete" | "release"; readonly eventId: string; readonly token: number };

type Answer = CallbackClaim | boolean;

/**
 * The statement that carried an operation failed (the server is down, a
 * constraint, a trigger): it is one transaction, rolled back whole, so none
 * of its batch's operations took effect. (Only a connection lost while the
 * statement ran leaves its outcome unknown, as for any statement; a claim
 * then stays held until its lease runs out.) The operation may be tried again.
 */
export class CallbackEventStoreError extends Error {
  override readonly name = "CallbackEventStoreError";
  constructor(
    readonly operation: Operation["kind"],
    readonly eventId: string,
    readonly batchSize: number,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `callback event store: ${operation} of event ${JSON.stringify(eventId)} failed with the ${batchSize} operation(s) of its statement, which was rolled back: ${reason}`,
      { cause },
    );
  }
}

/** One row of the batch statement's answer. */
interface BatchRow {
  readonly event_id: string;
  /** "claimed", "finished" (a completion or release that held), or a losing claim's row state. */
  readonly state: string;
  readonly token: number | null;
  readonly lease_expires_at: number | null;
  /** For a losing claim: whether its row, as the statement read it, explains the loss. */
  readonly settled: boolean | null;
}

/** A row of the batch statement's answer as its JSON array carries it. */
type BatchTuple = [string, string, number | null, number | null, boolean | null];

/** An element of a PostgreSQL array literal: quoted, with `"` and `\\` escaped. */
function quoteArrayElement(text: string): string {
  return NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, "\\$&")}"` : `"${text}"`;
}
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/** What a claim that did not win reads from the row it lost to. */
function stateClaim(row: { state: string; lease_expires_at: number | null }): CallbackClaim {
  if (row.state === "done") return { outcome: "done" };
  return { outcome: "processing", leaseExpiresAt: Number(row.lease_expires_at) };
}

/** Splits a batch into each event id's first operation and the repeats, in order. */
function firstPerEvent(operations: readonly Operation[]): {
  first: Operation[];
  repeats: Operation[];
} {
  const seen = new Set<string>();
  const first: Operation[] = [];
  const repeats: Operation[] = [];
  for (const operation of operations) {
    if (seen.has(operation.eventId)) repeats.push(operation);
    else {
      seen.add(operation.eventId);
      first.push(operation);
    }
  }
  return { first, repeats };
}

// PostgreSQL aborts one of two statements that wait on each other's rows
// (two batches in flight, each claiming an event the other completes); the
// aborted one changed nothing and is sent again.
const RETRYABLE_SQLSTATES = new Set(["40P01", "40001"]);
const STATEMENT_ATTEMPTS = 3;
const isRetryable = (error: unknown) =>
  typeof error === "object" &&
  error !== null &&
  RETRYABLE_SQLSTATES.has(String((error as { code?: unknown }).code));

export function createPostgresCallbackEventStore(
  client: SqlClient,
  options: PostgresCallbackEventStoreOptions,
): PostgresCallbackEventStore {
  const table = `${quoteIdentifier(options.schema)}.wfr_callback_events`;
  const tokens = `${quoteIdentifier(options.schema)}.wfr_callback_event_tokens`;
  const epochMs = (column: string) => `(EXTRACT(EPOCH FROM ${column}) * 1000)::float8`;
  // A batch's operations, each event id at most once, as rows `v`.
  const operationRows = `unnest($1::text[], $2::text[], $3::bigint[], $4::float8[])
    AS v(kind, event_id, token, lease_ms)`;
  // Completions and releases, each only while its token holds a live lease.
  const finishSql = (from: string) => `
      UPDATE ${table} AS e
         SET state = CASE v.kind WHEN 'complete' THEN 'done' ELSE 'released' END,
             lease_expires_at = CASE v.kind
               WHEN 'complete' THEN e.lease_expires_at ELSE clock_timestamp() END
        FROM ${from}
       WHERE v.kind IN ('complete', 'release') AND e.event_id = v.event_id
         AND e.token = v.token AND e.state = 'processing'
         AND e.lease_expires_at > clock_timestamp()
      RETURNING e.event_id, 'finished' AS state, NULL::float8 AS token,
                NULL::float8 AS lease_expires_at, NULL::boolean AS settled`;
  // Claims: a new row, or a takeover of a released event, of a lease that
  // ran out or of an id past retention. The row lock makes concurrent claims
  // take turns, and only the one whose WHERE still holds gets a row back.
  // Rows go in event-id order, so two batches claiming the same ids lock them
  // in the same order. (A claim that loses still draws a number from the
  // sequence; tokens only need to increase.) A claim keeps the id for its
  // lease plus the retention: a completion, which only lands within the
  // lease, then leaves it remembered for at least the retention without
  // touching retain_until. That keeps the completion off both indexes (a
  // heap-only update where the page has room): measured in the
  // callback-receiver bench's load, the server's CPU fell by a fifth.
  const claimSql = (from: string) => `
      INSERT INTO ${table} AS e (event_id, state, token, lease_expires_at, retain_until)
      SELECT v.event_id, 'processing', nextval('${tokens}'),
             clock_timestamp() + v.lease_ms * interval '1 millisecond',
             clock_timestamp() + (v.lease_ms + $5) * interval '1 millisecond'
        FROM ${from}
       WHERE v.kind = 'claim'
       ORDER BY v.event_id
      ON CONFLICT (event_id) DO UPDATE
        SET state = 'processing',
            token = EXCLUDED.token,
            lease_expires_at = EXCLUDED.lease_expires_at,
            retain_until = EXCLUDED.retain_until
        WHERE e.state = 'released'
           OR (e.state = 'processing' AND e.lease_expires_at <= clock_timestamp())
           OR e.retain_until <= clock_timestamp()
      RETURNING e.event_id, 'claimed' AS state, e.token::float8 AS token,
                ${epochMs("e.lease_expires_at")} AS lease_expires_at, NULL::boolean AS settled`;
  // Where a statement costs a round trip: the whole batch in one statement,
  // whose last branch returns the row each losing claim lost to, as of the
  // statement's start. A row committed by another transaction since then is
  // not there, and one read released or expired no longer says why the
  // claim lost (settled = false): those few are read again afterwards.
  // The answers come back as one row: a JSON array of [event_id, state, token,
  // lease_expires_at, settled] (README, "What a delivery costs on a server").
  const batchSql = `
    WITH input AS (SELECT * FROM ${operationRows}),
    finished AS (${finishSql("input AS v")}),
    claimed AS (${claimSql("input AS v")}),
    answers AS (
      SELECT * FROM claimed
      UNION ALL
      SELECT * FROM finished
      UNION ALL
      SELECT e.event_id, e.state, NULL, ${epochMs("e.lease_expires_at")},
             e.retain_until > clock_timestamp()
               AND (e.state = 'done'
                    OR (e.state = 'processing' AND e.lease_expires_at > clock_timestamp()))
        FROM ${table} AS e JOIN input AS v ON v.event_id = e.event_id AND v.kind = 'claim'
       WHERE NOT EXISTS (SELECT 1 FROM claimed AS c WHERE c.event_id = e.event_id))
    SELECT json_agg(json_build_array(event_id, state, token, lease_expires_at, settled))::text
           AS answers
      FROM answers`;
  // Where a statement is a call on this thread (PGlite), a batch holds one
  // kind (see `submit`) and goes as that kind's part alone; every losing
  // claim then reads its row in one more statement.
  const finishOnlySql = finishSql(operationRows);
  const claimOnlySql = claimSql(operationRows);
  const stateSql = `
    SELECT event_id, state, ${epochMs("lease_expires_at")} AS lease_expires_at
      FROM ${table} WHERE event_id = ANY($1::text[])`;
  const prepare = { prepare: true };

  const paramsOf = (operations: readonly Operation[]) => [
    operations.map((op) => op.kind),
    operations.map((op) => op.eventId),
    operations.map((op) => (op.kind === "claim" ? null : op.token)),
    operations.map((op) => (op.kind === "claim" ? op.leaseMs : null)),
    options.retentionMs,
  ];
  const sendCombined = async (operations: readonly Operation[]): Promise<BatchRow[]> => {
    const { rows } = await batchClient.query<{ answers: string | null }>(
      batchSql,
      arrayLiteralParamsOf(operations),
      prepare,
    );
    const answers = rows[0]?.answers;
    if (!answers) return [];
    return (JSON.parse(answers) as BatchTuple[]).map(
      ([event_id, state, token, lease_expires_at, settled]) => ({
        event_id,
        state,
        token,
        lease_expires_at,
        settled,
      }),
    );
  };
  // On a server, the arrays go as PostgreSQL array literals built here: `pg`
  // serializes a JS array element by element with two regular expressions
  // each, a cost per operation on the receiver's thread.
  const arrayLiteralParamsOf = (operations: readonly Operation[]) => {
    let kinds = "{";
    let ids = "{";
    let tokens = "{";
    let leases = "{";
    for (let i = 0; i < operations.length; i++) {
      const op = operations[i] as Operation;
      const separator = i === 0 ? "" : ",";
      kinds += separator + op.kind;
      ids += separator + quoteArrayElement(op.eventId);
      tokens += separator + (op.kind === "claim" ? "NULL" : String(op.token));
      leases += separator + (op.kind === "claim" ? String(op.leaseMs) : "NULL");
    }
    return [`${kinds}}`, `${ids}}`, `${tokens}}`, `${leases}}`, options.retentionMs];
  };
  const sendOneKind = async (operations: readonly Operation[]) => {
    const params = paramsOf(operations);
    const { rows } =
      operations[0]?.kind === "claim"
        ? await client.query<BatchRow>(claimOnlySql, params, prepare)
        : // No $5 here: PostgreSQL refuses a parameter it cannot type.
          await client.query<BatchRow>(finishOnlySql, params.slice(0, 4), prepare);
    return rows;
  };
  const inProcess = client.roundTrip === "in-process";
  // On a server, the queue's statements (one in flight at a time) keep one connection while the
  // queue is busy, given back when it empties (see `queue` below).
  const pinned = inProcess ? undefined : client.pin?.();
  const batchClient: SqlQueryable = pinned ?? client;
  const send = inProcess ? sendOneKind : sendCombined;

  const sendBatch = async (operations: readonly Operation[]): Promise<BatchRow[]> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send(operations);
      } catch (error) {
        if (attempt >= STATEMENT_ATTEMPTS || !isRetryable(error)) throw error;
      }
    }
  };

  /** The answers for operations with distinct event ids, `pruneRaces` claims re-run so far. */
  const runDistinct = async (
    operations: readonly Operation[],
    pruneRaces: number,
  ): Promise<ItemOutcome<Answer>[]> => {
    let rows: BatchRow[];
    try {
      rows = await sendBatch(operations);
    } catch (error) {
      return operations.map((op) => ({
        error: new CallbackEventStoreError(op.kind, op.eventId, operations.length, error),
      }));
    }
    const byId = new Map(rows.map((row) => [row.event_id, row]));
    // Losing claims whose row the statement could not explain: read as committed now.
    const unexplained = operations.filter((op) => {
      const row = byId.get(op.eventId);
      return op.kind === "claim" && row?.state !== "claimed" && row?.settled !== true;
    });
    const current = new Map<string, { state: string; lease_expires_at: number }>();
    if (unexplained.length > 0) {
      try {
        const { rows: read } = await batchClient.query<{
          event_id: string;
          state: string;
          lease_expires_at: number;
        }>(stateSql, [unexplained.map((op) => op.eventId)], prepare);
        for (const row of read) current.set(row.event_id, row);
      } catch (error) {
        // Those claims lost (nothing of theirs was written) but their answer is unknown.
        const failed = new Set(unexplained);
        return operations.map((op) =>
          failed.has(op)
            ? { error: new CallbackEventStoreError(op.kind, op.eventId, failed.size, error) }
            : { value: answerFrom(op, byId.get(op.eventId)) },
        );
      }
    }
    // A row pruned between the two statements: that claim runs again.
    const pruned = unexplained.filter((op) => !current.has(op.eventId));
    const again =
      pruned.length === 0
        ? []
        : pruneRaces >= 2
          ? pruned.map((op) => ({
              error: new CallbackEventStoreError(
                op.kind,
                op.eventId,
                pruned.length,
                new Error("the row it lost to was pruned before it could be read, three times"),
              ),
            }))
          : await runDistinct(pruned, pruneRaces + 1);
    const againById = new Map(pruned.map((op, i) => [op.eventId, again[i]]));
    return operations.map((op) => {
      const rerun = againById.get(op.eventId);
      if (rerun) return rerun;
      const read = current.get(op.eventId);
      if (read) return { value: stateClaim(read) };
      return { value: answerFrom(op, byId.get(op.eventId)) };
    });
  };

  const answerFrom = (op: Operation, row: BatchRow | undefined): Answer => {
    if (op.kind !== "claim") return row?.state === "finished";
    if (row?.state === "claimed")
      return {
        outcome: "claimed",
        token: Number(row.token),
        leaseExpiresAt: Number(row.lease_expires_at),
      };
    return stateClaim(row as BatchRow);
  };

  // A repeat of an event id within a batch runs after it, as it would have
  // run after the first unbatched (one statement cannot change a row twice).
  const runBatch = async (operations: readonly Operation[]): Promise<ItemOutcome<Answer>[]> => {
    const { first, repeats } = firstPerEvent(operations);
    const firstOutcomes = await runDistinct(first, 0);
    const repeatOutcomes = repeats.length === 0 ? [] : await runBatch(repeats);
    const firstOf = new Map(first.map((op, i) => [op, firstOutcomes[i]]));
    const repeatOf = new Map(repeats.map((op, i) => [op, repeatOutcomes[i]]));
    return operations.map((op) => (firstOf.get(op) ?? repeatOf.get(op)) as ItemOutcome<Answer>);
  };

  // One queue where a statement costs a round trip: every kind shares it.
  // In-process, one queue per kind, as two writers: in the callback-receiver
  // bench's delivery loop on PGlite, one shared queue (with the combined
  // statement, or with each kind's part in turn) delivered about a fifth
  // less per CPU-second than a queue per kind.
  // One statement in flight per queue, on a server too: a round of deliveries
  // then goes in one statement, where two in flight (a round sent in halves)
  // cost a statement more per round, and each statement costs the receiver's
  // thread more than the overlap saved (README, "Throughput").
  const queue = () => groupCommit<Operation, Answer>(runBatch, { onIdle: () => pinned?.release() });
  const shared = inProcess ? undefined : queue();
  const claims = shared ?? queue();
  const finishes = shared ?? queue();
  const submit = (op: Operation) => (op.kind === "claim" ? claims : finishes)(op);
  const lease = createLeaseOperations(client, { table, retentionMs: options.retentionMs });
  const pruneSql = `
    DELETE FROM ${table} WHERE event_id IN (
      SELECT event_id FROM ${table} WHERE retain_until <= clock_timestamp() LIMIT $1)`;

  return {
    async claim(eventId, leaseMs) {
      checkEventId(eventId);
      if (!Number.isFinite(leaseMs) || leaseMs <= 0)
        throw new RangeError(`leaseMs: must be a positive number of milliseconds, got ${leaseMs}`);
      return (await submit({ kind: "claim", eventId, leaseMs })) as CallbackClaim;
    },
    async complete(eventId, token) {
      checkEventId(eventId);
      // No lease carries such a token; sent along, it would fail its whole batch.
      if (!Number.isSafeInteger(token)) return false;
      return (await submit({ kind: "complete", eventId, token })) as boolean;
    },
    async release(eventId, token) {
      checkEventId(eventId);
      if (!Number.isSafeInteger(token)) return false;
      return (await submit({ kind: "release", eventId, token })) as boolean;
    },
    async extend(eventId, token, leaseMs) {
      checkEventId(eventId);
      return lease.extend(eventId, token, leaseMs);
    },
    async completeWithin(eventId, token, work) {
      checkEventId(eventId);
      return lease.completeWithin(eventId, token, work);
    },
    async prune(limit = 1000) {
      const { rows } = await client.query(`${pruneSql} RETURNING 1`, [limit]);
      return rows.length;
    },
  };
}

/** An id PostgreSQL text cannot hold would fail every operation of its batch: refused alone. */
function checkEventId(eventId: string): void {
  if (typeof eventId !== "string" || eventId === "")
    throw new TypeError("eventId: must be a non-empty string");
  if (eventId.includes("\u0000"))
    throw new TypeError("eventId: must not contain a NUL character (PostgreSQL text cannot)");
}
