// The schema, as numbered migrations applied once each, in order, under an
// advisory lock so that several instances starting together do not race.
import type { SqlClient } from "./sql-client.js";

interface Migration {
  readonly version: number;
  readonly statements: readonly string[];
}

/** Quotes a schema name for SQL; names are checked before they get here. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function migrationsFor(schema: string): readonly Migration[] {
  const s = quoteIdentifier(schema);
  return [
    {
      version: 1,
      statements: [
        // One row per callback event_id. Every claim takes a new token from
        // one sequence (fencing tokens increase across the whole store), so a
        // process whose lease expired cannot finish the event over the owner
        // that took it next.
        `CREATE SEQUENCE ${s}.wfr_callback_event_tokens`,
        `CREATE TABLE ${s}.wfr_callback_events (
          event_id          text PRIMARY KEY,
          state             text NOT NULL CHECK (state IN ('processing', 'released', 'done')),
          token             bigint NOT NULL,
          lease_expires_at  timestamptz NOT NULL,
          retain_until      timestamptz NOT NULL
        )`,
        `CREATE INDEX wfr_callback_events_retain_until ON ${s}.wfr_callback_events (retain_until)`,
        // The caller's own id -> the idempotency key and body fingerprint that
        // every resend after a crash must reuse.
        `CREATE TABLE ${s}.wfr_launch_intents (
          intent_id         text PRIMARY KEY,
          idempotency_key   text NOT NULL,
          body_fingerprint  text NOT NULL,
          state             text NOT NULL CHECK (state IN ('recorded', 'sent', 'acknowledged', 'failed')),
          run_id            text,
          failure           text,
          created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
          updated_at        timestamptz NOT NULL DEFAULT clock_timestamp()
        )`,
        `CREATE INDEX wfr_launch_intents_open ON ${s}.wfr_launch_intents (updated_at)
          WHERE state IN ('recorded', 'sent')`,
      ],
    },
  ];
}

/** The highest schema version this package knows. */
export const LATEST_SCHEMA_VERSION = 1;

// A constant key for pg_advisory_xact_lock: "wfr-stores" folded into an int.
const MIGRATION_LOCK_KEY = 0x77667273;

/** Applies every migration the schema lacks. Safe to call from many instances at once. */
export async function migrate(client: SqlClient, schema: string): Promise<{ applied: number[] }> {
  return client.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    const s = quoteIdentifier(schema);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${s}.wfr_schema_migrations (
        version integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const { rows } = await tx.query<{ version: number }>(
      `SELECT version FROM ${s}.wfr_schema_migrations`,
    );
    const done = new Set(rows.map((row) => Number(row.version)));
    const newer = [...done].filter((version) => version > LATEST_SCHEMA_VERSION);
    if (newer.length > 0) {
      throw new Error(
        `schema ${schema} is at version ${Math.max(...newer)}, newer than this @wfr/store-postgres (${LATEST_SCHEMA_VERSION}): upgrade the package`,
      );
    }
    const applied: number[] = [];
    for (const migration of migrationsFor(schema)) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query(`INSERT INTO ${s}.wfr_schema_migrations (version) VALUES ($1)`, [
        migration.version,
      ]);
      applied.push(migration.version);
    }
    return { applied };
  });
}
