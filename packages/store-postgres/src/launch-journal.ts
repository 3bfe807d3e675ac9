// The launch journal on PostgreSQL (or PGlite): each operation is one
// statement on the primary key; "record" is INSERT ... ON CONFLICT DO NOTHING,
// so of two instances recording one intent, both read back the first.
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
  const columns =
    "intent_id, idempotency_key, body_fingerprint, state, run_id, failure, created_at, updated_at";
  const get = async (intentId: string) => {
    const { rows } = await client.query<IntentRow>(
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
  return {
    async record(intent) {
      await client.query(
        `INSERT INTO ${table} (intent_id, idempotency_key, body_fingerprint, state)
         VALUES ($1, $2, $3, 'recorded') ON CONFLICT (intent_id) DO NOTHING`,
        [intent.intentId, intent.idempotencyKey, intent.bodyFingerprint],
      );
      return requireRecorded(intent.intentId);
    },
    async markSent(intentId) {
      const { rows } = await client.query(
        `UPDATE ${table} SET state = 'sent', failure = NULL, updated_at = clock_timestamp()
          WHERE intent_id = $1 AND state <> 'acknowledged' RETURNING 1 AS ok`,
        [intentId],
      );
      if (rows.length === 0) await requireRecorded(intentId);
    },
    async markAcknowledged(intentId, runId) {
      const { rows } = await client.query(
        `UPDATE ${table} SET state = 'acknowledged', run_id = $2, failure = NULL, updated_at = clock_timestamp()
          WHERE intent_id = $1 AND state <> 'acknowledged' RETURNING 1 AS ok`,
        [intentId, runId],
      );
      if (rows.length === 1) return;
      const stored = await requireRecorded(intentId);
      if (stored.runId !== runId)
        throw LaunchJournalInvariantError.secondRun(intentId, stored.runId ?? "", runId);
    },
    async markFailed(intentId, failure) {
      const { rows } = await client.query(
        `UPDATE ${table} SET state = 'failed', failure = $2, updated_at = clock_timestamp()
          WHERE intent_id = $1 AND state <> 'acknowledged' RETURNING 1 AS ok`,
        [intentId, failure],
      );
      if (rows.length === 0) await requireRecorded(intentId);
    },
    get,
    async listUnacknowledged(listOptions = {}) {
      const { rows } = await client.query<IntentRow>(
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
