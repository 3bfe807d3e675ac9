// The journal's group commit: concurrent launches share statements (fewer
// round trips than intents), and every intent keeps the outcome it would have
// had alone, repeats within a batch included. PGlite and a real PostgreSQL.
import { LaunchJournalInvariantError } from "@wfr/runtime";
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStores, type SqlClient, sqlClientFromPglite } from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";
import { pgliteInMemory } from "./support/pglite-memory.js";

/** The engine, counting the statements sent to it. */
function counting(sql: SqlClient): { sql: SqlClient; statements: () => number } {
  let statements = 0;
  return {
    sql: {
      ...sql,
      query: (text, params) => {
        statements += 1;
        return sql.query(text, params);
      },
    },
    statements: () => statements,
  };
}

const INTENTS = 64;
const intent = (i: number) => ({
  intentId: `row-${i}`,
  idempotencyKey: `key-${i}`,
  bodyFingerprint: `fp-${i}`,
});

async function exercise(engine: SqlClient) {
  const measured = counting(engine);
  const { launchJournal: journal } = await openPostgresStores({
    sql: measured.sql,
    schema: freshSchema(),
  });
  const before = measured.statements();
  // What a launcher at concurrency 64 does: record, send, acknowledge, each in flight together.
  const ids = Array.from({ length: INTENTS }, (_, i) => i);
  const recorded = await Promise.all(ids.map((i) => journal.record(intent(i))));
  expect(recorded.map((r) => [r.intentId, r.idempotencyKey, r.state])).toEqual(
    ids.map((i) => [`row-${i}`, `key-${i}`, "recorded"]),
  );
  await Promise.all(ids.map((i) => journal.markSent(`row-${i}`)));
  await Promise.all(ids.map((i) => journal.markAcknowledged(`row-${i}`, `run_${i}`)));
  const statements = measured.statements() - before;
  // One at a time this is at least 3 statements per intent (record also reads back).
  expect(statements).toBeLessThan(INTENTS);
  for (const i of ids) {
    const stored = await journal.get(`row-${i}`);
    expect([stored?.state, stored?.runId]).toEqual(["acknowledged", `run_${i}`]);
  }

  // A batch mixing new intents with ones recorded before: each reads back its own stored state.
  const again = await Promise.all([
    journal.record({ intentId: "row-1", idempotencyKey: "other", bodyFingerprint: "other" }),
    journal.record(intent(1001)),
    journal.record(intent(2)),
  ]);
  expect(again.map((r) => [r.intentId, r.idempotencyKey, r.state, r.runId])).toEqual([
    ["row-1", "key-1", "acknowledged", "run_1"],
    ["row-1001", "key-1001", "recorded", null],
    ["row-2", "key-2", "acknowledged", "run_2"],
  ]);

  // Repeats within one batch: the second record reads back the first; a
  // second, different run for one intent is the invariant error, the same run is fine.
  const [a, b] = await Promise.all([
    journal.record({ intentId: "dup", idempotencyKey: "first", bodyFingerprint: "f1" }),
    journal.record({ intentId: "dup", idempotencyKey: "second", bodyFingerprint: "f2" }),
    journal.record(intent(1000)),
  ]);
  expect(a?.idempotencyKey).toBe("first");
  expect(b?.idempotencyKey).toBe("first");
  const acks = await Promise.allSettled([
    journal.markAcknowledged("dup", "run_a"),
    journal.markAcknowledged("dup", "run_b"),
    journal.markAcknowledged("dup", "run_a"),
    journal.markAcknowledged("row-1000", "run_1000"),
  ]);
  expect(acks.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
  expect((acks[1] as PromiseRejectedResult).reason).toBeInstanceOf(LaunchJournalInvariantError);
  // Unknown intents fail alone, not their batch.
  const sent = await Promise.allSettled([
    journal.markSent("never-recorded"),
    journal.markSent("row-1000"),
  ]);
  expect(sent.map((s) => s.status)).toEqual(["rejected", "fulfilled"]);
  expect((sent[0] as PromiseRejectedResult).reason).toBeInstanceOf(LaunchJournalInvariantError);
}

describe("group commit", () => {
  let pg: PostgresServer;
  let pglite: SqlClient;
  beforeAll(async () => {
    pg = await startPostgresServer();
    pglite = sqlClientFromPglite(await pgliteInMemory(), { ownsDb: true });
  });
  afterAll(async () => {
    await pglite?.close();
    await pg?.stop();
  });

  it("PGlite: concurrent launches share statements, each intent keeps its own outcome", async () => {
    await exercise(pglite);
  });

  it("PostgreSQL: concurrent launches share statements, each intent keeps its own outcome", async () => {
    const stores = await openPostgresStores({ databaseUrl: pg.url });
    try {
      await exercise(stores.sql);
    } finally {
      await stores.close();
    }
  });
});
