// One small query interface over the two engines that run the same SQL: a
// PostgreSQL server through `pg`, and PGlite (PostgreSQL compiled to
// WebAssembly) in-process. Moving from one machine to a cluster is then a
// change of connection, not of code.
import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type { Pool, PoolClient, QueryConfig } from "pg";
import { preparedStatements } from "./pglite-prepared.js";

export interface QueryOptions {
  /**
   * The text is one of a fixed few statements run again and again: on a
   * server, each connection parses and plans it once (a named prepared
   * statement) and then only binds and executes it. Leave it off for text
   * built per call, which would fill every connection with prepared
   * statements used once.
   */
  readonly prepare?: boolean;
}

export interface SqlQueryable {
  query<Row>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<{ rows: Row[] }>;
}

/** See {@link SqlClient.pin}. */
export interface PinnedQueryable extends SqlQueryable {
  /** Gives the connection back (idle: nothing in flight). The next statement takes one again. */
  release(): void;
}

export interface SqlClient extends SqlQueryable {
  /**
   * What one statement costs beyond its work: "network" (a server: a round
   * trip, so fewer, larger statements pay) or "in-process" (PGlite: a call on
   * this thread, so carrying more in one statement saves nothing). Unset
   * means "network".
   */
  readonly roundTrip?: "network" | "in-process";
  /** Runs `work` inside one transaction on one connection. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * A queryable for statements sent one after another (never two at once),
   * each its own transaction, that keeps one connection from its first
   * statement until `release()`: on a pool, checking a connection out and in
   * for every statement costs more of this thread than the statement's own
   * protocol work when statements are small and frequent (README, "What a
   * delivery costs on a server"). Optional: a client without it is queried
   * directly.
   */
  pin?(): PinnedQueryable;
  close(): Promise<void>;
}

/**
 * The statement as `pg` sends it. A prepared statement's name is a digest of
 * its text, so that clients sharing a pool (or a connection) agree on it.
 */
export function queryConfig(
  text: string,
  params: readonly unknown[],
  options: QueryOptions = {},
): QueryConfig {
  const values = params as unknown[];
  if (!options.prepare) return { text, values };
  const name = `wfr_${createHash("sha256").update(text).digest("hex").slice(0, 40)}`;
  return { name, text, values };
}

/**
 * A connection from the pool with `onError` listening on it from the moment the pool hands it
 * over. Not after an `await`: `pg` parses every message of a network read in one synchronous
 * loop, so a new connection's ReadyForQuery (which hands it over) and a server's FATAL message
 * right behind it (a fast shutdown, 57P01) can arrive in one read, and the error event would be
 * emitted before a promise's continuation runs, with no listener: the process would crash. The
 * pool's own `pool.query` attaches its listener inside the callback too.
 */
function checkOut(pool: Pool, onError: (error: Error) => void): Promise<PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error || !client) return reject(error ?? new Error("the pool gave no connection"));
      client.on("error", onError);
      resolve(client);
    });
  });
}

export function sqlClientFromPool(pool: Pool, options: { ownsPool: boolean }): SqlClient {
  // A digest per distinct prepared text, not per call (they are a fixed few).
  const prepared = new Map<string, QueryConfig>();
  const configOf = (text: string, params: readonly unknown[], queryOptions?: QueryOptions) => {
    if (!queryOptions?.prepare) return queryConfig(text, params);
    let config = prepared.get(text);
    if (!config) {
      config = queryConfig(text, [], queryOptions);
      prepared.set(text, config);
    }
    return { ...config, values: params as unknown[] };
  };
  return {
    roundTrip: "network",
    async query<Row>(text: string, params: readonly unknown[] = [], queryOptions?: QueryOptions) {
      const result = await pool.query(configOf(text, params, queryOptions));
      return { rows: result.rows as Row[] };
    },
    async transaction(work) {
      // The pool listens for errors on idle connections only: a connection
      // that dies while checked out (a server restart, a terminated backend)
      // would otherwise throw its error event at the process. Its next query
      // rejects instead; the work sees that.
      const onError = () => undefined;
      const connection = await checkOut(pool, onError);
      let broken: Error | undefined;
      try {
        await connection.query("BEGIN");
        const tx: SqlQueryable = {
          async query<Row>(
            text: string,
            params: readonly unknown[] = [],
            queryOptions?: QueryOptions,
          ) {
            const result = await connection.query(configOf(text, params, queryOptions));
            return { rows: result.rows as Row[] };
          },
        };
        const value = await work(tx);
        await connection.query("COMMIT");
        return value;
      } catch (error) {
        await connection.query("ROLLBACK").catch((rollbackError: unknown) => {
          // No rollback: the connection is gone (the server rolled back) or unusable.
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      } finally {
        connection.off("error", onError);
        // A broken connection is destroyed, not handed to the next caller.
        connection.release(broken);
      }
    },
    pin() {
      let held: PoolClient | undefined;
      // A connection that dies while held (a server restart) must not throw its error event at
      // the process: its next statement rejects instead, and the connection is dropped.
      const onError = () => undefined;
      const giveBack = (error?: Error) => {
        const connection = held;
        held = undefined;
        if (!connection) return;
        connection.off("error", onError);
        connection.release(error);
      };
      return {
        async query<Row>(
          text: string,
          params: readonly unknown[] = [],
          queryOptions?: QueryOptions,
        ) {
          held ??= await checkOut(pool, onError);
          const connection = held;
          try {
            const result = await connection.query(configOf(text, params, queryOptions));
            return { rows: result.rows as Row[] };
          } catch (error) {
            // Whatever failed (the connection, or only the statement), a fresh connection serves
            // the next statement: failures are rare, and a broken one is never reused.
            if (held === connection)
              giveBack(error instanceof Error ? error : new Error(String(error)));
            throw error;
          }
        },
        release: () => giveBack(),
      };
    },
    async close() {
      if (options.ownsPool) await pool.end();
    },
  };
}

export function sqlClientFromPglite(db: PGlite, options: { ownsDb: boolean }): SqlClient {
  // `prepare` texts run as named prepared statements (pglite-prepared.ts): on
  // PGlite, parsing and planning are this thread's CPU, not a server's.
  const prepared = preparedStatements(db);
  return {
    roundTrip: "in-process",
    async query<Row>(text: string, params: readonly unknown[] = [], queryOptions?: QueryOptions) {
      if (queryOptions?.prepare) return prepared.query<Row>(text, params);
      const result = await db.query<Row>(text, params as unknown[]);
      return { rows: result.rows };
    },
    async transaction(work) {
      return db.transaction(async (tx) =>
        work({
          async query<Row>(
            text: string,
            params: readonly unknown[] = [],
            queryOptions?: QueryOptions,
          ) {
            if (queryOptions?.prepare) return prepared.queryInTransaction<Row>(text, params);
            const result = await tx.query<Row>(text, params as unknown[]);
            return { rows: result.rows };
          },
        }),
      );
    },
    async close() {
      if (options.ownsDb) await db.close();
    },
  };
}
