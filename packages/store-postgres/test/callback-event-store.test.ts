// The callback store's group commit: concurrent claims, completions and
// releases share statements, and each keeps the answer it would have had alone.
// Both statement strategies run on PGlite (the SqlClient's roundTrip picks
// one) and on a server: one statement per batch ("network") and one per kind
// ("in-process").
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CallbackClaim,
  CallbackEventStoreError,
  openPostgresStores,
  type SqlClient,
  sqlClientFromPglite,
  sqlClientFromPool,
} from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";
import { pgliteInMemory } from "./support/pglite-memory.js";

/** The engine, with the statements sent through it counted. */
function counting(sql: SqlClient) {
  let sent = 0;
  const client: SqlClient = {
    ...sql,
    query: (text, params, options) => {
      sent += 1;
      return sql.query(text, params, options);
    },
  };
  return { client, statements: () => sent };
}

const tokenOf = (claim: CallbackClaim) => {
  if (claim.outcome !== "claimed") throw new Error(`expected a claim, got ${claim.outcome}`);
  return claim.token;
};

/** Claims of `ids`, each `copies` times, all at once: one winner per id, the rest "processing". */
async function expectOneWinnerPerId(
  claimAll: () => Promise<CallbackClaim[]>,
  ids: readonly string[],
  copies: number,
) {
  const claims = await claimAll();
  const winners = claims.filter((claim) => claim.outcome === "claimed");
  expect(winners).toHaveLength(ids.length);
  expect(new Set(winners.map(tokenOf)).size).toBe(ids.length);
  for (const [index, id] of ids.entries()) {
    const ofId = Array.from({ length: copies }, (_, copy) => claims[copy * ids.length + index]);
    const won = ofId.find((claim) => claim?.outcome === "claimed");
    if (won?.outcome !== "claimed") throw new Error(`no winner for ${id}`);
    for (const claim of ofId) {
      if (claim !== won)
        expect(claim).toEqual({ outcome: "processing", leaseExpiresAt: won.leaseExpiresAt });
    }
  }
}

type RoundTrip = NonNullable<SqlClient["roundTrip"]>;
const roundTrips: RoundTrip[] = ["network", "in-process"];

let pglite: SqlClient;
beforeAll(async () => {
  pglite = sqlClientFromPglite(await pgliteInMemory(), { ownsDb: true });
});
afterAll(async () => {
  await pglite?.close();
});

describe.each(roundTrips)("PGlite, statements as for roundTrip %s", (roundTrip) => {
  let engine: SqlClient;
  beforeAll(() => {
    engine = { ...pglite, roundTrip };
  });

  it("keeps event ids that an array literal must quote (quotes, backslashes, braces, NULL) apart", async () => {
    const schema = freshSchema();
    const { callbackEvents: store } = await openPostgresStores({ sql: engine, schema });
    const ids = ['a"b', "c\\d", "{e,f}", "NULL", " g ", 'h\\"', "é,ü", "x"];
    const claims = await Promise.all(ids.map((id) => store.claim(id, 60_000)));
    expect(claims.map((claim) => claim.outcome)).toEqual(ids.map(() => "claimed"));
    const completed = await Promise.all(
      claims.map((claim, i) => store.complete(ids[i] as string, tokenOf(claim))),
    );
    expect(completed).toEqual(ids.map(() => true));
    const again = await Promise.all([...ids, "y"].map((id) => store.claim(id, 60_000)));
    expect(again.map((claim) => claim.outcome)).toEqual([...ids.map(() => "done"), "claimed"]);
    // Stored as sent, each its own row.
    const { rows } = await engine.query<{ event_id: string }>(
      `SELECT event_id FROM ${schema}.wfr_callback_events`,
    );
    expect(rows.map((row) => row.event_id).sort()).toEqual([...ids, "y"].sort());
  });

  it("concurrent completions share statements; a repeat or a stale token is refused", async () => {
    const { client: counted, statements } = counting(engine);
    const { callbackEvents: store } = await openPostgresStores({
      sql: counted,
      schema: freshSchema(),
    });
    const ids = Array.from({ length: 32 }, (_, i) => `evt_${i}`);
    const claims = await Promise.all(ids.map((id) => store.claim(id, 60_000)));
    const tokens = claims.map((claim) => (claim.outcome === "claimed" ? claim.token : -1));
    expect(tokens.every((token) => token > 0)).toBe(true);
    const before = statements();
    const done = await Promise.all(ids.map((id, i) => store.complete(id, tokens[i] as number)));
    expect(done.every(Boolean)).toBe(true);
    expect(statements() - before).toBeLessThan(ids.length);
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

  it("concurrent claims share statements; a repeat within a batch, a held and a done event each keep their own outcome", async () => {
    const { client: counted, statements } = counting(engine);
    const { callbackEvents: store } = await openPostgresStores({
      sql: counted,
      schema: freshSchema(),
    });
    const held = await store.claim("evt_held", 60_000);
    const finished = await store.claim("evt_done", 60_000);
    if (finished.outcome !== "claimed" || held.outcome !== "claimed")
      throw new Error("not claimed");
    expect(await store.complete("evt_done", finished.token)).toBe(true);

    const ids = Array.from({ length: 32 }, (_, i) => `evt_new_${i}`);
    const before = statements();
    const claims = await Promise.all([
      ...ids.map((id) => store.claim(id, 60_000)),
      store.claim("evt_new_0", 60_000),
      store.claim("evt_held", 60_000),
      store.claim("evt_done", 60_000),
    ]);
    // One at a time this is at least one statement per claim.
    expect(statements() - before).toBeLessThan(ids.length);
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

  it("a claim, a completion and a duplicate claim queued together: one statement over a network, claims apart from finishes in-process", async () => {
    const { client, statements } = counting(engine);
    const { callbackEvents: store } = await openPostgresStores({
      sql: client,
      schema: freshSchema(),
    });
    const held = tokenOf(await store.claim("evt_held", 60_000));
    const finished = tokenOf(await store.claim("evt_done", 60_000));
    expect(await store.complete("evt_done", finished)).toBe(true);
    const before = statements();
    const [fresh, completed, duplicate, released] = await Promise.all([
      store.claim("evt_new", 60_000),
      store.complete("evt_held", held),
      store.claim("evt_done", 60_000),
      store.release("evt_unknown", 7),
    ]);
    // In-process: the claims, the losing claim's read, the completion and release.
    expect(statements() - before).toBe(roundTrip === "network" ? 1 : 3);
    expect(fresh?.outcome).toBe("claimed");
    expect(completed).toBe(true);
    expect(duplicate).toEqual({ outcome: "done" });
    expect(released).toBe(false);
  });

  it("many concurrent claims of distinct and repeated ids: exactly one winner per id", async () => {
    const { callbackEvents: store } = await openPostgresStores({
      sql: engine,
      schema: freshSchema(),
    });
    const ids = Array.from({ length: 40 }, (_, i) => `evt_${i}`);
    await expectOneWinnerPerId(
      () => Promise.all([...ids, ...ids, ...ids].map((id) => store.claim(id, 60_000))),
      ids,
      3,
    );
  });

  it("a statement that fails fails every operation of its batch with a typed error, and writes none of them", async () => {
    const schema = freshSchema();
    const { callbackEvents: store } = await openPostgresStores({ sql: engine, schema });
    const held = tokenOf(await store.claim("evt_held", 60_000));
    // A trigger that refuses one id: the rows sorted before it are written
    // by the same statement before it fails.
    await engine.query(`
    CREATE FUNCTION ${schema}.refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.event_id = 'evt_zz_poison' THEN RAISE EXCEPTION 'refused by the test'; END IF;
      RETURN NEW;
    END $$`);
    await engine.query(`
    CREATE TRIGGER refuse_poison BEFORE INSERT ON ${schema}.wfr_callback_events
    FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse_poison()`);
    const outcomes = await Promise.allSettled([
      store.claim("evt_a", 60_000),
      store.claim("evt_b", 60_000),
      store.complete("evt_held", held),
      store.claim("evt_zz_poison", 60_000),
    ]);
    // Over a network all four share the statement; in-process the
    // completion goes in one of its own, which holds.
    const shared = roundTrip === "network";
    const operations = ["claim", "claim", "complete", "claim"];
    const eventIds = ["evt_a", "evt_b", "evt_held", "evt_zz_poison"];
    for (const [i, outcome] of outcomes.entries()) {
      if (!shared && i === 2) {
        expect(outcome).toEqual({ status: "fulfilled", value: true });
        continue;
      }
      if (outcome.status !== "rejected") throw new Error(`operation ${i} did not fail`);
      expect(outcome.reason).toBeInstanceOf(CallbackEventStoreError);
      expect(outcome.reason).toMatchObject({
        operation: operations[i],
        eventId: eventIds[i],
        batchSize: shared ? 4 : 3,
      });
      expect(String(outcome.reason.message)).toContain("refused by the test");
    }
    const { rows } = await engine.query<{ event_id: string; state: string }>(
      `SELECT event_id, state FROM ${schema}.wfr_callback_events ORDER BY event_id`,
    );
    expect(rows).toEqual([{ event_id: "evt_held", state: shared ? "processing" : "done" }]);

    await engine.query(`DROP TRIGGER refuse_poison ON ${schema}.wfr_callback_events`);
    expect((await store.claim("evt_a", 60_000)).outcome).toBe("claimed");
    expect(await store.complete("evt_held", held)).toBe(shared);
  });

  it("a statement aborted as a deadlock victim is sent again; other errors are not", async () => {
    let failures = [Object.assign(new Error("deadlock detected"), { code: "40P01" })];
    let sent = 0;
    const flaky: SqlClient = {
      ...engine,
      query: (text, params, options) => {
        sent += 1;
        const failure = failures.shift();
        return failure ? Promise.reject(failure) : engine.query(text, params, options);
      },
    };
    const { callbackEvents: store } = await openPostgresStores({
      sql: flaky,
      schema: freshSchema(),
    });
    const before = sent;
    const [a, b] = await Promise.all([store.claim("evt_a", 60_000), store.claim("evt_b", 60_000)]);
    expect([a?.outcome, b?.outcome]).toEqual(["claimed", "claimed"]);
    expect(sent - before).toBe(2);

    failures = [Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" })];
    await expect(store.claim("evt_c", 60_000)).rejects.toBeInstanceOf(CallbackEventStoreError);
    expect((await store.claim("evt_c", 60_000)).outcome).toBe("claimed");
  });

  it("a bad argument fails only its own call, never its batch", async () => {
    const { callbackEvents: store } = await openPostgresStores({
      sql: engine,
      schema: freshSchema(),
    });
    const held = tokenOf(await store.claim("evt_held", 60_000));
    const [completed, fractional, nul, lease] = await Promise.allSettled([
      store.complete("evt_held", held),
      store.complete("evt_other", 1.5),
      store.claim("evt_\u0000", 60_000),
      store.claim("evt_lease", Number.NaN),
    ]);
    expect(completed).toEqual({ status: "fulfilled", value: true });
    expect(fractional).toEqual({ status: "fulfilled", value: false });
    expect(nul).toMatchObject({ status: "rejected", reason: expect.any(TypeError) });
    expect(String((nul as PromiseRejectedResult).reason.message)).toMatch(/^eventId: /);
    expect(lease).toMatchObject({ status: "rejected", reason: expect.any(RangeError) });
    expect(String((lease as PromiseRejectedResult).reason.message)).toMatch(/^leaseMs: /);
  });

  it("a lone claim goes out without waiting for a timer", async () => {
    const { client, statements } = counting(engine);
    const { callbackEvents: store } = await openPostgresStores({
      sql: client,
      schema: freshSchema(),
    });
    // With timers frozen, a batch that waited for one would never be sent.
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
    try {
      const before = statements();
      const claim = await store.claim("evt_lone", 60_000);
      expect(claim.outcome).toBe("claimed");
      expect(await store.complete("evt_lone", tokenOf(claim))).toBe(true);
      expect(statements() - before).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("on a PostgreSQL server", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A receiver's stores on its own pool, sending statements as for `roundTrip`. */
  const openReceiver = async (schema: string, roundTrip: RoundTrip) => {
    const pool = new pg.Pool({ connectionString: server.url, max: 10 });
    pool.on("error", () => undefined);
    const sql = { ...sqlClientFromPool(pool, { ownsPool: true }), roundTrip };
    const stores = await openPostgresStores({ sql, schema });
    return { callbackEvents: stores.callbackEvents, close: () => sql.close() };
  };

  it.each(roundTrips)(
    "two receivers claiming the same ids at once, in batches: exactly one winner per id (roundTrip %s)",
    async (roundTrip) => {
      const schema = freshSchema();
      const first = await openReceiver(schema, roundTrip);
      const second = await openReceiver(schema, roundTrip);
      try {
        const ids = Array.from({ length: 60 }, (_, i) => `evt_${i}`);
        await expectOneWinnerPerId(
          () =>
            Promise.all([
              ...ids.map((id) => first.callbackEvents.claim(id, 60_000)),
              ...ids.map((id) => second.callbackEvents.claim(id, 60_000)),
              ...ids.map((id) => first.callbackEvents.claim(id, 60_000)),
            ]),
          ids,
          3,
        );
      } finally {
        await first.close();
        await second.close();
      }
    },
  );

  it.each(roundTrips)(
    "claims that lose to rows other receivers committed meanwhile read their state (roundTrip %s)",
    async (roundTrip) => {
      const schema = freshSchema();
      const first = await openReceiver(schema, roundTrip);
      const second = await openReceiver(schema, roundTrip);
      try {
        const ids = Array.from({ length: 30 }, (_, i) => `evt_${i}`);
        const tokens = (
          await Promise.all(ids.map((id) => first.callbackEvents.claim(id, 60_000)))
        ).map(tokenOf);
        // Completions of half the ids race with the other receiver's duplicate claims.
        const [completions, duplicates] = await Promise.all([
          Promise.all(
            ids.map((id, i) =>
              i % 2 === 0 ? first.callbackEvents.complete(id, tokens[i] as number) : true,
            ),
          ),
          Promise.all(ids.map((id) => second.callbackEvents.claim(id, 60_000))),
        ]);
        expect(completions.every(Boolean)).toBe(true);
        for (const [i, claim] of duplicates.entries()) {
          if (i % 2 === 0) expect(["done", "processing"]).toContain(claim.outcome);
          else expect(claim.outcome).toBe("processing");
        }
        const again = await Promise.all(ids.map((id) => second.callbackEvents.claim(id, 60_000)));
        expect(again.map((claim) => claim.outcome)).toEqual(
          ids.map((_, i) => (i % 2 === 0 ? "done" : "processing")),
        );
      } finally {
        await first.close();
        await second.close();
      }
    },
  );
});
