// The launch journal on PostgreSQL (or PGlite): "record" is INSERT ... ON
// CONFLICT DO NOTHING, so of two instances recording one intent, both read
// back the first. The three writes of every launch (record, markSent,
// markAcknowledged) are group-committed: concurrent calls of one kind go
// together in one statement over unnest() arrays (one round trip and one
// transaction for the batch), with the same per-intent outcomes as one
// statement each.
import { groupCommit, type ItemOutcome, settleEach } from "./group-commit.js";
import { quoteIdentifier } from "./migrations.js";
import type { SqlClient } from "./sql-client.js";
import {
  type LaunchIntent,
  type LaunchJournal,
  LaunchJournalInvariantError,
} from "./store-contracts.js";

interface IntentRow {
  intent_id: string;
  idempotency_key: string;
  body_fingerprint: string;
  state: LaunchIntent["state"];
  run_id: string | null;
  failure: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

function toIntent(row: IntentRow): LaunchIntent {
  return {
    intentId: row.intent_id,
    idempotencyKey: row.idempotency_key,
    bodyFingerprint: row.body_fingerprint,
    state: row.state,
    runId: row.run_id,
    failure: row.failure,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function createPostgresLaunchJournal(
  client: SqlClient,
  options: { schema: string },
): LaunchJournal {
  const table = `${quoteIdentifier(options.schema)}.wfr_launch_intents`;
  // Every statement here has a fixed text: each connection prepares it once.
  const query = <Row>(text: string, params: readonly unknown[]) =>
    client.query<Row>(text, params, { prepare: true });
  const columns =
    "intent_id, idempotency_key, body_fingerprint, state, run_id, failure, created_at, updated_at";
  const get = async (intentId: string) => {
    const { rows } = await query<IntentRow>(
      `SELECT ${columns} FROM ${table} WHERE intent_id = $1`,
      [intentId],
    );
    return rows[0] ? toIntent(rows[0]) : undefined;
  };
  // An UPDATE that matched nothing: either the intent was never recorded or
  // its state forbids the change; tell the two apart.
  const requireRecorded = async (intentId: string) => {
    const intent = await get(intentId);
    if (!intent) throw LaunchJournalInvariantError.unknownIntent(intentId);
    return intent;
  };
  // The first occurrence of each intent id goes into the batch statement; a
  // repeat of an id within one batch runs after it, alone, as it would have
  // run after the first if the calls had not been batched.
  const firstOccurrences = <T>(items: readonly T[], idOf: (item: T) => string) => {
    const seen = new Set<string>();
    return items.map((item) => {
      const id = idOf(item);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  };

  const recordOne = async (intent: {
    intentId: string;
    idempotencyKey: string;
    bodyFingerprint: string;
  }) => {
    await query(
      `INSERT INTO ${table} (intent_id, idempotency_key, body_fingerprint, state)
       VALUES ($1, $2, $3, 'recorded') ON CONFLICT (intent_id) DO NOTHING`,
      [intent.intentId, intent.idempotencyKey, intent.bodyFingerprint],
    );
    return requireRecorded(intent.intentId);
  };
  const record = groupCommit<
    { intentId: string; idempotencyKey: string; bodyFingerprint: string },
    LaunchIntent
  >(async (intents) => {
    if (intents.length === 1) return settleEach(intents, recordOne);
    const first = firstOccurrences(intents, (i) => i.intentId);
    const batch = intents.filter((_, i) => first[i]);
    // The new intents come back from the INSERT. Those it skipped (recorded
    // before, or committed by another instance while it ran) are read in a
    // second statement, whose snapshot sees them; a launcher's batch of new
    // rows needs only the first. (One statement reading both, an INSERT CTE
    // and a UNION ALL over the table, cost PGlite 9-22 % more CPU a row:
    // bench/findings.md, "batch-launch at concurrency 32".)
    const { rows } = await query<IntentRow>(
      `INSERT INTO ${table} (intent_id, idempotency_key, body_fingerprint, state)
       SELECT intent_id, idempotency_key, body_fingerprint, 'recorded'
         FROM unnest($1::text[], $2::text[], $3::text[]) AS v(intent_id, idempotency_key, body_fingerprint)
       ON CONFLICT (intent_id) DO NOTHING
       RETURNING ${columns}`,
      [
        batch.map((i) => i.intentId),
        batch.map((i) => i.idempotencyKey),
        batch.map((i) => i.bodyFingerprint),
      ],
    );
    if (rows.length < batch.length) {
      const inserted = new Set(rows.map((row) => row.intent_id));
      const skipped = batch.map((i) => i.intentId).filter((id) => !inserted.has(id));
      const existing = await query<IntentRow>(
        `SELECT ${columns} FROM ${table} WHERE intent_id = ANY($1::text[])`,
        [skipped],
      );
      rows.push(...existing.rows);
    }
    const stored = new Map(rows.map((row) => [row.intent_id, toIntent(row)]));
    return Promise.all(
      intents.map(async (intent, i): Promise<ItemOutcome<LaunchIntent>> => {
        const found = first[i] ? stored.get(intent.intentId) : undefined;
        if (found) return { value: found };
        return recordOne(intent).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
      }),
    );
  });

  const markSentOne = async (intentId: string) => {
    const { rows } = await query(
      `UPDATE ${table} SET state = 'sent', failure = NULL, updated_at = clock_timestamp()
        WHERE intent_id = $1 AND state <> 'acknowledged' RETURNING 1 AS ok`,
      [intentId],
    );
    if (rows.length === 0) await requireRecorded(intentId);
  };
  const markSent = groupCommit<string, void>(async (intentIds) => {
    if (intentIds.length === 1) return settleEach(intentIds, markSentOne);
    const first = firstOccurrences(intentIds, (id) => id);
    const { rows } = await query<{ intent_id: string }>(
      `UPDATE ${table} SET state = 'sent', failure = NULL, updated_at = clock_timestamp()
        WHERE intent_id = ANY($1::text[]) AND state <> 'acknowledged' RETURNING intent_id`,
      [intentIds.filter((_, i) => first[i])],
    );
    const updated = new Set(rows.map((row) => row.intent_id));
    return settleEach(
      intentIds.map((id, i) => ({ id, i })),
      async ({ id, i }) => {
        if (first[i] && updated.has(id)) return;
        if (first[i])
          await requireRecorded(id); // acknowledged already, or never recorded
        else await markSentOne(id);
      },
    );
  });

  const markAcknowledgedOne = async (intentId: string, runId: string) => {
    const { rows } = await query(
      `UPDATE ${table} SET state = 'acknowledged', run_id = $2, failure = NULL, updated_at = clock_timestamp()
        WHERE intent_id = $1 AND state <> 'acknowledged' RETURNING 1 AS ok`,
      [intentId, runId],
    );
    if (rows.length === 1) return;
    const stored = await requireRecorded(intentId);
    if (stored.runId !== runId)
      throw LaunchJournalInvariantError.secondRun(intentId, stored.runId ?? "", runId);
  };
  const markAcknowledged = groupCommit<{ intentId: string; runId: string }, void>(async (acks) => {
    if (acks.length === 1) return settleEach(acks, (a) => markAcknowledgedOne(a.intentId, a.runId));
    const first = firstOccurrences(acks, (a) => a.intentId);
    const batch = acks.filter((_, i) => first[i]);
    const { rows } = await query<{ intent_id: string }>(
      `UPDATE ${table} AS t SET state = 'acknowledged', run_id = v.run_id, failure = NULL, updated_at = clock_timestamp()
         FROM unnest($1::text[], $2::text[]) AS v(intent_id, run_id)
        WHERE t.intent_id = v.intent_id AND t.state <> 'acknowledged' RETURNING t.intent_id`,
      [batch.map((a) => a.intentId), batch.map((a) => a.runId)],
    );
    const updated = new Set(rows.map((row) => row.intent_id));
    return settleEach(
      acks.map((ack, i) => ({ ack, i })),
      async ({ ack, i }) => {
        if (first[i] && updated.has(ack.intentId)) return;
        // Already acknowledged (the same run is fine, another is the invariant
        // error), never recorded, or a repeat within this batch.
        await markAcknowledgedOne(ack.intentId, ack.runId);
      },
    );
  });

  return {
    record: (intent) =>
      record({
        intentId: intent.intentId,
        idempotencyKey: intent.idempotencyKey,
        bodyFingerprint: intent.bodyFingerprint,
      }),
    markSent: (intentId) => markSent(intentId),
    markAcknowledged: (intentId, runId) => markAcknowledged({ intentId, runId }),
    async markFailed(intentId, failure) {
      const { rows } = await query(
        `UPDATE ${table} SET state = 'failed', failure = $2, updated_at = clock_timestamp()
          WHERE intent_id = $1 AND state <> 'acknowledged' RETURNING 1 AS ok`,
        [intentId, failure],
      );
      if (rows.length === 0) await requireRecorded(intentId);
    },
    get,
    async listUnacknowledged(listOptions = {}) {
      const { rows } = await query<IntentRow>(
        `SELECT ${columns} FROM ${table}
          WHERE state IN ('recorded', 'sent')
            AND updated_at <= clock_timestamp() - $1 * interval '1 millisecond'
          ORDER BY updated_at, intent_id LIMIT $2`,
        [listOptions.olderThanMs ?? 0, listOptions.limit ?? 100],
      );
      return rows.map(toIntent);
    },
  };
}
