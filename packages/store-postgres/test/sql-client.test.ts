import { EventEmitter } from "node:events";
import type { PGlite } from "@electric-sql/pglite";
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  queryConfig,
  type SqlQueryable,
  sqlClientFromPglite,
  sqlClientFromPool,
} from "../src/sql-client.js";
import { pgliteInMemory } from "./support/pglite-memory.js";

describe("queryConfig", () => {
  it("names a prepared statement after its text, the same name for the same text", () => {
    const first = queryConfig("SELECT $1::int AS n", [1], { prepare: true });
    const again = queryConfig("SELECT $1::int AS n", [2], { prepare: true });
    const other = queryConfig("SELECT $1::int AS m", [1], { prepare: true });
    expect(first.name).toMatch(/^wfr_[0-9a-f]{40}$/);
    expect(again.name).toBe(first.name);
    expect(again.values).toEqual([2]);
    expect(other.name).not.toBe(first.name);
  });

  it("leaves a statement unnamed unless asked to prepare it", () => {
    expect(queryConfig("SELECT $1::int AS n", [1])).toEqual({
      text: "SELECT $1::int AS n",
      values: [1],
    });
  });
});

describe("roundTrip", () => {
  it("says a pool's statements cost a network round trip and PGlite's none", async () => {
    // Neither client connects to anything until it sends a statement.
    const pool = new pg.Pool({ connectionString: "postgres://127.0.0.1:1/none" });
    expect(sqlClientFromPool(pool, { ownsPool: true }).roundTrip).toBe("network");
    await pool.end();
    expect(sqlClientFromPglite({} as PGlite, { ownsDb: false }).roundTrip).toBe("in-process");
  });
});

describe("a transaction's connection", () => {
  it("listens for errors from the moment the pool hands it over (a FATAL read with its ReadyForQuery)", async () => {
    // pg parses every message of one network read in a synchronous loop: a new connection's
    // ReadyForQuery hands it to the caller, and the FATAL of a fast shutdown behind it in the
    // same read emits "error" at once, before any promise continuation. This pool does the same.
    const unheard: unknown[] = [];
    const connection = Object.assign(new EventEmitter(), {
      query: async () => {
        throw new Error("terminating connection due to administrator command");
      },
      release: () => undefined,
    });
    const handOver = (give: () => void) =>
      setImmediate(() => {
        give();
        const error = new Error("terminating connection due to administrator command");
        if (connection.listenerCount("error") === 0) unheard.push(error);
        else connection.emit("error", error);
      });
    const pool = {
      options: { max: 2 },
      connect(callback?: (error: Error | undefined, client: unknown) => void) {
        if (callback) return handOver(() => callback(undefined, connection));
        return new Promise((resolve) => handOver(() => resolve(connection)));
      },
    } as unknown as pg.Pool;
    const client = sqlClientFromPool(pool, { ownsPool: false });
    await expect(client.transaction(async () => 1)).rejects.toThrow(/administrator command/);
    expect(unheard).toEqual([]);
  });
});

describe("sqlClientFromPool on a PostgreSQL server", () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  beforeAll(async () => {
    server = await startPostgresServer();
    // One connection, so that its prepared statements can be listed.
    pool = new pg.Pool({ connectionString: server.url, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it("prepares a statement once per connection and reuses it with new values", async () => {
    const client = sqlClientFromPool(pool, { ownsPool: false });
    const text = "SELECT $1::int + 1 AS n";
    const answers = [];
    for (const n of [1, 2, 3])
      answers.push((await client.query<{ n: number }>(text, [n], { prepare: true })).rows[0]?.n);
    expect(answers).toEqual([2, 3, 4]);
    const { rows } = await client.query<{ name: string; statement: string }>(
      "SELECT name, statement FROM pg_prepared_statements",
    );
    expect(rows).toEqual([
      { name: queryConfig(text, [], { prepare: true }).name, statement: text },
    ]);
  });

  it("prepares statements inside a transaction too, and runs unprepared ones as before", async () => {
    const client = sqlClientFromPool(pool, { ownsPool: false });
    const sum = await client.transaction(async (tx) => {
      const a = await tx.query<{ n: number }>("SELECT $1::int * 2 AS n", [4], { prepare: true });
      const b = await tx.query<{ n: number }>("SELECT $1::int * 3 AS n", [5]);
      return (a.rows[0]?.n ?? 0) + (b.rows[0]?.n ?? 0);
    });
    expect(sum).toBe(23);
    const { rows } = await client.query<{ statement: string }>(
      "SELECT statement FROM pg_prepared_statements ORDER BY statement",
    );
    expect(rows.map((row) => row.statement)).toEqual([
      "SELECT $1::int * 2 AS n",
      "SELECT $1::int + 1 AS n",
    ]);
  });

  it("keeps one connection for a pinned queryable until it is released, and drops one whose statement failed", async () => {
    const client = sqlClientFromPool(pool, { ownsPool: false });
    const pinned = client.pin?.();
    if (!pinned) throw new Error("a pool's client pins connections");
    const pidOf = async (queryable: SqlQueryable) =>
      (await queryable.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
    const first = await pidOf(pinned);
    expect(await pidOf(pinned)).toBe(first);
    expect(pool.idleCount).toBe(0);
    pinned.release();
    // The pool's only connection is back: a statement outside the pinned queryable gets it.
    expect(pool.idleCount).toBe(1);
    expect(await pidOf(client)).toBe(first);
    // As pg's own pool.query does, a connection whose statement failed is not reused.
    await expect(pinned.query("SELECT 1 / 0")).rejects.toThrow(/division by zero/);
    expect(pool.totalCount).toBe(0);
    const next = await pidOf(pinned);
    expect(next).toBeTypeOf("number");
    expect(next).not.toBe(first);
    pinned.release();
    expect(pool.idleCount).toBe(1);
  });
});

describe("prepared statements on PGlite", () => {
  it("answer as db.query does (arrays, nulls, dates), in and out of a transaction, and keep PostgreSQL's errors", async () => {
    const db = await pgliteInMemory();
    const sql = sqlClientFromPglite(db, { ownsDb: true });
    try {
      await sql.query("CREATE TABLE t (id text PRIMARY KEY, note text, at timestamptz)");
      const insert =
        "INSERT INTO t (id, note, at) SELECT id, $2, clock_timestamp() FROM unnest($1::text[]) AS v(id) RETURNING id, note, at";
      const inserted = await sql.query<{ id: string; note: string | null; at: Date }>(
        insert,
        [["a", "b"], null],
        { prepare: true },
      );
      expect(inserted.rows.map((row) => [row.id, row.note])).toEqual([
        ["a", null],
        ["b", null],
      ]);
      expect(inserted.rows[0]?.at).toBeInstanceOf(Date);
      const select = "SELECT id, note FROM t WHERE id = ANY($1::text[]) ORDER BY id";
      const prepared = await sql.query(select, [["b", "a", "z"]], { prepare: true });
      expect(prepared.rows).toEqual((await sql.query(select, [["b", "a", "z"]])).rows);
      // The same text again, now inside a transaction: the statement prepared above is reused.
      const inTransaction = await sql.transaction((tx) =>
        tx.query(select, [["a"]], { prepare: true }),
      );
      expect(inTransaction.rows).toEqual([{ id: "a", note: null }]);
      // A constraint violation keeps its SQLSTATE (the stores' retry rules read it), and the
      // session goes on.
      await expect(sql.query(insert, [["a"], "again"], { prepare: true })).rejects.toMatchObject({
        code: "23505",
      });
      // A text PostgreSQL refuses is not kept as prepared: the next call reports it again.
      for (let i = 0; i < 2; i++)
        await expect(sql.query("SELECT nope FROM t", [], { prepare: true })).rejects.toMatchObject({
          code: "42703",
        });
      expect((await sql.query(select, [["a"]], { prepare: true })).rows).toHaveLength(1);
    } finally {
      await sql.close();
    }
  });
});
