// Shared stores on PostgreSQL, and on PGlite (the same SQL in-process) for one
// machine: pick by setting DATABASE_URL or not.
import {
  CallbackEventStoreError,
  createPostgresCallbackEventStore,
  type PostgresCallbackEventStore,
} from "./callback-event-store.js";
import { createPostgresLaunchJournal } from "./launch-journal.js";
import { migrate } from "./migrations.js";
import { defaultTemplatePath, openPglite } from "./pglite-template.js";
import { type SqlClient, sqlClientFromPglite, sqlClientFromPool } from "./sql-client.js";
import type { LaunchJournal } from "./store-contracts.js";

export { LATEST_SCHEMA_VERSION, migrate } from "./migrations.js";
export { openPglite } from "./pglite-template.js";
export type { PinnedQueryable, SqlClient, SqlQueryable } from "./sql-client.js";
export type { CallbackClaim, CompletedWithin } from "./store-contracts.js";
export type { PostgresCallbackEventStore };
export {
  CallbackEventStoreError,
  createPostgresCallbackEventStore,
  createPostgresLaunchJournal,
  sqlClientFromPglite,
  sqlClientFromPool,
};

export interface PostgresStores {
  /** Also `completeWithin`: the caller's writes and the completion in one transaction. */
  readonly callbackEvents: PostgresCallbackEventStore;
  readonly launchJournal: LaunchJournal;
  /** The engine underneath, for the app's own tables (same SQL on both engines). */
  readonly sql: SqlClient;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /** An engine the app already opened (its own tables live there too); not closed by `close()`. */
  readonly sql?: SqlClient;
  /** `postgres://...` for a server; omitted or `pglite:<dir>` for PGlite; `pglite:memory` for a throwaway one. */
  readonly databaseUrl?: string | undefined;
  /** Where PGlite keeps its files when `databaseUrl` is omitted. Default `.wfr/pglite`. */
  readonly pgliteDataDir?: string;
  /**
   * A new PGlite database starts from the dump of a freshly initialised one
   * kept at this path (made by the first new database on the machine), not
   * from initdb: about a tenth of the start-up. Default
   * `$XDG_CACHE_HOME/wfr/pglite-<version>-template.tar` (`~/.cache/...`);
   * `false` runs initdb every time.
   */
  readonly pgliteTemplate?: string | false;
  /** The PostgreSQL schema that holds wfr's tables. Default `wfr`. */
  readonly schema?: string;
  /** How long finished callback event ids are remembered. Default 7 days. */
  readonly callbackRetentionMs?: number;
  /** Pool size for a server. Default 10. */
  readonly maxConnections?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
// The service retries a delivery up to three times within minutes
// (docs/service-rules.md#callbacks); a week covers that and any redelivery a person triggers.
const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Opens the stores on PostgreSQL or PGlite and applies the schema's migrations. */
export async function openPostgresStores(options: OpenStoresOptions = {}): Promise<PostgresStores> {
  const schema = options.schema ?? "wfr";
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `schema: ${JSON.stringify(schema)} is not a plain lower-case PostgreSQL name`,
    );
  }
  const retentionMs = options.callbackRetentionMs ?? DEFAULT_RETENTION_MS;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 60_000) {
    throw new RangeError(
      "callbackRetentionMs: must be a whole number of milliseconds, at least 60000",
    );
  }
  const sql = options.sql
    ? { ...options.sql, close: async () => undefined }
    : await connect(options);
  try {
    await migrate(sql, schema);
  } catch (error) {
    await sql.close();
    throw error;
  }
  return {
    callbackEvents: createPostgresCallbackEventStore(sql, { schema, retentionMs }),
    launchJournal: createPostgresLaunchJournal(sql, { schema }),
    sql,
    close: () => sql.close(),
  };
}

async function connect(options: OpenStoresOptions): Promise<SqlClient> {
  const url = options.databaseUrl;
  if (url && /^postgres(ql)?:\/\//i.test(url)) {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10 });
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on("error", () => undefined);
    return sqlClientFromPool(pool, { ownsPool: true });
  }
  if (url && !url.startsWith("pglite:")) {
    // Never echo the URL: it may carry a password.
    throw new TypeError(
      "databaseUrl: expected postgres://..., postgresql://..., pglite:<dir> or pglite:memory",
    );
  }
  const target = url ? url.slice("pglite:".length) : (options.pgliteDataDir ?? ".wfr/pglite");
  const db = await openPglite(target, options.pgliteTemplate ?? defaultTemplatePath());
  return sqlClientFromPglite(db, { ownsDb: true });
}
