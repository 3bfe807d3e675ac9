// One small query interface over the two engines that run the same SQL: a
// PostgreSQL server through `pg`, and PGlite (PostgreSQL compiled to
// WebAssembly) in-process. Moving from one machine to a cluster is then a
// change of connection, not of code.
import type { PGlite } from "@electric-sql/pglite";
import type { Pool } from "pg";

export interface SqlQueryable {
  query<Row>(text: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>;
}

export interface SqlClient extends SqlQueryable {
  /**
   * Statements worth running at once: 1 for PGlite (one thread runs them in
   * turn), more over a pool of connections. Group commits use it.
   */
  readonly parallelStatements?: number;
  /** Runs `work` inside one transaction on one connection. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function sqlClientFromPool(pool: Pool, options: { ownsPool: boolean }): SqlClient {
  return {
    // Half the pool, at most 4: the rest stays free for transactions and for
    // the other stores sharing the pool.
    parallelStatements: Math.max(1, Math.min(4, Math.floor((pool.options.max ?? 10) / 2))),
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await pool.query(text, params as unknown[]);
      return { rows: result.rows as Row[] };
    },
    async transaction(work) {
      const connection = await pool.connect();
      try {
        await connection.query("BEGIN");
        const tx: SqlQueryable = {
          async query<Row>(text: string, params: readonly unknown[] = []) {
            const result = await connection.query(text, params as unknown[]);
            return { rows: result.rows as Row[] };
          },
        };
        const value = await work(tx);
        await connection.query("COMMIT");
        return value;
      } catch (error) {
        await connection.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
    async close() {
      if (options.ownsPool) await pool.end();
    },
  };
}

export function sqlClientFromPglite(db: PGlite, options: { ownsDb: boolean }): SqlClient {
  return {
    parallelStatements: 1,
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await db.query<Row>(text, params as unknown[]);
      return { rows: result.rows };
    },
    async transaction(work) {
      return db.transaction(async (tx) =>
        work({
          async query<Row>(text: string, params: readonly unknown[] = []) {
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
