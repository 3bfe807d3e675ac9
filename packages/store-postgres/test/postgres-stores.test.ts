// The stores against PGlite and against a real PostgreSQL server started for
// this file; the same SQL on both.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import { verifyCallbackEventStore, verifyLaunchJournal } from "@wfr/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStores, type SqlClient, sqlClientFromPglite } from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";
import { pgliteInMemory } from "./support/pglite-memory.js";

// One PGlite engine for the file (starting one costs about a second); each
// test gets its own schema in it.
let pglite: SqlClient | undefined;
const pgliteEngine = async () => {
  pglite ??= sqlClientFromPglite(await pgliteInMemory(), { ownsDb: true });
  return pglite;
};
afterAll(async () => {
  await pglite?.close();
});
it("PGlite: launch journal conformance", async () => {
  await verifyLaunchJournal(async () => {
    const stores = await openPostgresStores({ sql: await pgliteEngine(), schema: freshSchema() });
    return { journal: stores.launchJournal };
  });
});
it("PGlite: callback event store conformance", async () => {
  const stores = await openPostgresStores({ sql: await pgliteEngine(), schema: freshSchema() });
  await verifyCallbackEventStore(() => stores.callbackEvents);
});

it("PGlite keeps its data in a directory across a reopen", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wfr-pglite-"));
  try {
    const first = await openPostgresStores({ databaseUrl: `pglite:${dir}` });
    await first.launchJournal.record({
      intentId: "inv-1",
      idempotencyKey: "k-1",
      bodyFingerprint: "f",
    });
    await first.close();
    const second = await openPostgresStores({ databaseUrl: `pglite:${dir}` });
    expect(await second.launchJournal.get("inv-1")).toMatchObject({
      idempotencyKey: "k-1",
      state: "recorded",
    });
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("on a PostgreSQL server", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const open = () => openPostgresStores({ databaseUrl: server.url, schema: freshSchema() });

  it("launch journal conformance", async () => {
    await verifyLaunchJournal(async () => {
      const stores = await open();
      return { journal: stores.launchJournal, close: () => stores.close() };
    });
  });
  it("callback event store conformance", async () => {
    const stores = await open();
    try {
      await verifyCallbackEventStore(() => stores.callbackEvents);
    } finally {
      await stores.close();
    }
  });

  it("applies the migrations once, however many instances start together", async () => {
    const schema = freshSchema();
    const all = await Promise.all(
      Array.from({ length: 6 }, () => openPostgresStores({ databaseUrl: server.url, schema })),
    );
    for (const stores of all) await stores.close();
    const check = await openPostgresStores({ databaseUrl: server.url, schema });
    const { rows } = await check.sql.query<{ version: number }>(
      `SELECT version FROM ${schema}.wfr_schema_migrations`,
    );
    expect(rows.map((r) => Number(r.version))).toEqual([1]);
    await check.close();
  });

  it("prunes finished ids past their retention, and only those", async () => {
    const schema = freshSchema();
    const stores = await openPostgresStores({
      databaseUrl: server.url,
      schema,
      callbackRetentionMs: 60_000,
    });
    try {
      const claim = await stores.callbackEvents.claim("old", 60_000);
      if (claim.outcome !== "claimed") throw new Error("expected a claim");
      await stores.callbackEvents.complete("old", claim.token);
      await stores.callbackEvents.claim("fresh", 60_000);
      // Age one row instead of waiting a minute.
      await stores.sql.query(
        `UPDATE ${schema}.wfr_callback_events SET retain_until = now() - interval '1 second' WHERE event_id = 'old'`,
      );
      expect(await stores.callbackEvents.prune()).toBe(1);
      expect((await stores.callbackEvents.claim("old", 60_000)).outcome).toBe("claimed");
      expect((await stores.callbackEvents.claim("fresh", 60_000)).outcome).toBe("processing");
    } finally {
      await stores.close();
    }
  });

  it("refuses a database URL it does not understand without echoing it", async () => {
    await expect(
      openPostgresStores({ databaseUrl: "mysql://user:secret@host/db" }),
    ).rejects.toThrow(/^databaseUrl: expected/);
    await expect(
      openPostgresStores({ databaseUrl: "mysql://user:secret@host/db" }),
    ).rejects.not.toThrow(/secret/);
  });
});
