// Transactional completion (src/lease-operations.ts, `completeWithin`): the handler's own writes
// through `tx` and the event's completion commit together or not at all (README, "Transactional
// completion"), on PGlite and on a PostgreSQL server, through @wfr/runtime's receiver.
import {
  createCallbackHandler,
  type RunEnvelope,
  type TransactionalCallbackContext,
} from "@wfr/runtime";
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  openPostgresStores,
  type PostgresStores,
  type SqlClient,
  type SqlQueryable,
  sqlClientFromPglite,
} from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";
import { pgliteInMemory } from "./support/pglite-memory.js";

const envelope = {
  run_id: "run_1",
  workflow_id: "wf_1",
  status: "succeeded",
  timestamps: {},
  error: null,
  metadata: {},
  human_action: null,
};
const api = {
  getRun: async () => envelope as unknown as RunEnvelope,
  getResult: async () =>
    ({
      state: "terminal",
      status: "succeeded",
      serverStatus: "succeeded",
      error: null,
      metadata: {},
      outputs: {},
    }) as never,
};
const delivery = (eventId: string) =>
  new Request("http://127.0.0.1/wfr", {
    method: "POST",
    body: JSON.stringify({ event_id: eventId, type: "workflow.run.completed", run: envelope }),
  });

/** Stores on a fresh schema with the app's own outbox table beside them. */
async function withOutbox(open: (schema: string) => Promise<PostgresStores>) {
  const schema = freshSchema();
  const stores = await open(schema);
  const outbox = `${schema}.outbox`;
  await stores.sql.query(`CREATE TABLE ${outbox} (event_id text NOT NULL)`);
  const rows = async (eventId: string) =>
    (
      await stores.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${outbox} WHERE event_id = $1`,
        [eventId],
      )
    ).rows[0]?.n;
  return { stores, schema, outbox, rows };
}

type Engine = { name: string; open: (schema: string) => Promise<PostgresStores> };
let pglite: SqlClient;
let server: PostgresServer;
beforeAll(async () => {
  pglite = sqlClientFromPglite(await pgliteInMemory(), { ownsDb: true });
  server = await startPostgresServer();
});
afterAll(async () => {
  await pglite?.close();
  await server?.stop();
});
const engines: Engine[] = [
  { name: "PGlite", open: (schema) => openPostgresStores({ sql: pglite, schema }) },
  {
    name: "PostgreSQL",
    open: (schema) => openPostgresStores({ databaseUrl: server.url, schema, maxConnections: 4 }),
  },
];

describe.each(engines)("$name", ({ open }) => {
  it("the handler's writes and the completion commit together; a redelivery reads done", async () => {
    const { stores, outbox, rows } = await withOutbox(open);
    try {
      const handler = createCallbackHandler({
        client: api,
        store: stores.callbackEvents,
        transactional: true,
        onCompleted: async ({ tx, callback }) => {
          await tx.query(`INSERT INTO ${outbox} (event_id) VALUES ($1)`, [callback.event_id]);
        },
      });
      expect((await handler(delivery("evt_1"))).status).toBe(200);
      expect(await rows("evt_1")).toBe(1);
      const again = await handler(delivery("evt_1"));
      expect(await again.json()).toEqual({ duplicate: true });
      expect(await rows("evt_1")).toBe(1);
    } finally {
      await stores.close();
    }
  });

  it("a handler that throws commits nothing, and the event is delivered again and handled once", async () => {
    const { stores, outbox, rows } = await withOutbox(open);
    try {
      let failures = 1;
      const handler = createCallbackHandler({
        client: api,
        store: stores.callbackEvents,
        transactional: true,
        onCompleted: async ({ tx, callback }) => {
          await tx.query(`INSERT INTO ${outbox} (event_id) VALUES ($1)`, [callback.event_id]);
          if (failures-- > 0) throw new Error("downstream refused");
        },
      });
      expect((await handler(delivery("evt_2"))).status).toBe(500);
      expect(await rows("evt_2")).toBe(0);
      expect((await handler(delivery("evt_2"))).status).toBe(200);
      expect(await rows("evt_2")).toBe(1);
    } finally {
      await stores.close();
    }
  });

  it("a lease that ended before the commit rolls the handler's writes back (503, delivered again)", async () => {
    const { stores, outbox, rows } = await withOutbox(open);
    try {
      let slow = true;
      const handler = createCallbackHandler({
        client: api,
        store: stores.callbackEvents,
        transactional: true,
        leaseMs: 300,
        onCompleted: async ({ tx, callback }) => {
          await tx.query(`INSERT INTO ${outbox} (event_id) VALUES ($1)`, [callback.event_id]);
          if (slow) await new Promise((resolve) => setTimeout(resolve, 600));
        },
      });
      expect((await handler(delivery("evt_3"))).status).toBe(503);
      expect(await rows("evt_3")).toBe(0);
      slow = false;
      expect((await handler(delivery("evt_3"))).status).toBe(200);
      expect(await rows("evt_3")).toBe(1);
    } finally {
      await stores.close();
    }
  });
});

describe("PostgreSQL: the receiver's connection dies before the commit", () => {
  it("the server rolls the transaction back; a delivery after the lease, to another receiver, runs the handler once", async () => {
    const { stores, schema, outbox, rows } = await withOutbox((name) =>
      openPostgresStores({ databaseUrl: server.url, schema: name, maxConnections: 4 }),
    );
    // A second receiver (another process) on the same tables.
    const other = await openPostgresStores({ databaseUrl: server.url, schema, maxConnections: 4 });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      let backend: number | undefined;
      let resume!: () => void;
      const stuck = new Promise<void>((resolve) => {
        resume = resolve;
      });
      let runs = 0;
      let firstEnded = false;
      const onCompleted = async ({ tx, callback }: TransactionalCallbackContext<SqlQueryable>) => {
        runs += 1;
        await tx.query(`INSERT INTO ${outbox} (event_id) VALUES ($1)`, [callback.event_id]);
        if (runs > 1) return;
        try {
          const { rows: pid } = await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
          backend = pid[0]?.pid;
          await stuck; // the receiver's process stops here: it never commits
          await tx.query("SELECT 1");
        } finally {
          firstEnded = true;
        }
      };
      const dying = createCallbackHandler({
        client: api,
        store: stores.callbackEvents,
        transactional: true,
        leaseMs: 1_000,
        respondWithinMs: 100,
        onCompleted,
      });
      // The handler is stuck past respondWithinMs: 503, the service delivers again later.
      expect((await dying(delivery("evt_4"))).status).toBe(503);
      await vi.waitFor(() => expect(backend).toBeDefined(), { timeout: 30_000, interval: 20 });
      await admin.query("SELECT pg_terminate_backend($1)", [backend]);
      const survivor = createCallbackHandler({
        client: api,
        store: other.callbackEvents,
        transactional: true,
        leaseMs: 10_000,
        onCompleted,
      });
      // 503 (processing) until the dead receiver's lease ends, then claimed and handled.
      await vi.waitFor(async () => expect((await survivor(delivery("evt_4"))).status).toBe(200), {
        timeout: 60_000,
        interval: 100,
      });
      expect(runs).toBe(2);
      expect(await rows("evt_4")).toBe(1);
      // The stuck handler goes on: its connection is gone, nothing of it commits.
      resume();
      await vi.waitFor(() => expect(firstEnded).toBe(true));
      await dying.drain();
      expect(await rows("evt_4")).toBe(1);
      expect((await (await survivor(delivery("evt_4"))).json()) as unknown).toEqual({
        duplicate: true,
      });
    } finally {
      await admin.end();
      await other.close();
      await stores.close();
    }
  });
});
