// The callback store's group-committed completions: concurrent completions
// share statements, and each keeps the answer it would have had alone.
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgresStores, type SqlClient, sqlClientFromPglite } from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";
import { pgliteInMemory } from "./support/pglite-memory.js";

let engine: SqlClient;
beforeAll(async () => {
  engine = sqlClientFromPglite(await pgliteInMemory(), { ownsDb: true });
});
afterAll(async () => {
  await engine?.close();
});

it("PGlite: concurrent completions share statements; a repeat or a stale token is refused", async () => {
  let statements = 0;
  const counted: SqlClient = {
    ...engine,
    query: (text, params) => {
      statements += 1;
      return engine.query(text, params);
    },
  };
  const { callbackEvents: store } = await openPostgresStores({
    sql: counted,
    schema: freshSchema(),
  });
  const ids = Array.from({ length: 32 }, (_, i) => `evt_${i}`);
  const claims = await Promise.all(ids.map((id) => store.claim(id, 60_000)));
  const tokens = claims.map((claim) => (claim.outcome === "claimed" ? claim.token : -1));
  expect(tokens.every((token) => token > 0)).toBe(true);
  const before = statements;
  const done = await Promise.all(ids.map((id, i) => store.complete(id, tokens[i] as number)));
  expect(done.every(Boolean)).toBe(true);
  expect(statements - before).toBeLessThan(ids.length);
  expect((await store.claim("evt_0", 60_000)).outcome).toBe("done");

  const again = await store.claim("evt_x", 60_000);
  const token = again.outcome === "claimed" ? again.token : -1;
  const twice = await Promise.all([
    store.complete("evt_x", token),
    store.complete("evt_x", token),
    store.complete("evt_y", 12345),
  ]);
  expect(twice).toEqual([true, false, false]);
});

it("PGlite: concurrent claims share statements; a repeat within a batch, a held and a done event each keep their own outcome", async () => {
  let statements = 0;
  const counted: SqlClient = {
    ...engine,
    query: (text, params) => {
      statements += 1;
      return engine.query(text, params);
    },
  };
  const { callbackEvents: store } = await openPostgresStores({
    sql: counted,
    schema: freshSchema(),
  });
  const held = await store.claim("evt_held", 60_000);
  const finished = await store.claim("evt_done", 60_000);
  if (finished.outcome !== "claimed" || held.outcome !== "claimed") throw new Error("not claimed");
  expect(await store.complete("evt_done", finished.token)).toBe(true);

  const ids = Array.from({ length: 32 }, (_, i) => `evt_new_${i}`);
  const before = statements;
  const claims = await Promise.all([
    ...ids.map((id) => store.claim(id, 60_000)),
    store.claim("evt_new_0", 60_000),
    store.claim("evt_held", 60_000),
    store.claim("evt_done", 60_000),
  ]);
  // One at a time this is at least one statement per claim.
  expect(statements - before).toBeLessThan(ids.length);
  const fresh = claims.slice(0, ids.length);
  expect(fresh.every((claim) => claim.outcome === "claimed")).toBe(true);
  const tokens = new Set(fresh.map((claim) => (claim.outcome === "claimed" ? claim.token : -1)));
  expect(tokens.size).toBe(ids.length);
  expect(claims[ids.length]?.outcome).toBe("processing");
  expect(claims[ids.length + 1]).toEqual({
    outcome: "processing",
    leaseExpiresAt: held.leaseExpiresAt,
  });
  expect(claims[ids.length + 2]).toEqual({ outcome: "done" });
});
