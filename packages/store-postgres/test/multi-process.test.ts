// Several processes, not several promises: receivers in separate processes
// share one PostgreSQL store; one is killed -9 while it holds leases.
import { fileURLToPath } from "node:url";
import { type PostgresServer, runClaimRace, startPostgresServer } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStores } from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";

const storeModule = fileURLToPath(new URL("./support/open-stores-from-env.mjs", import.meta.url));

describe("4 receiver processes on one PostgreSQL store", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const race = async (killVictimAfterClaims: number) => {
    const schema = freshSchema();
    // Migrate once up front, as a deploy step would.
    await (await openPostgresStores({ databaseUrl: server.url, schema })).close();
    return runClaimRace({
      storeModule,
      env: { WFR_DATABASE_URL: server.url, WFR_SCHEMA: schema },
      workers: 4,
      events: 200,
      copies: 3,
      // Long enough that a slow worker on a loaded machine keeps its lease while it works;
      // a lease that runs out mid-work lets a second owner repeat the side effect (see the README).
      leaseMs: 8_000,
      killVictimAfterClaims,
    });
  };

  it("200 events delivered 3 times each, shuffled and concurrent: every side effect happens exactly once", async () => {
    const report = await race(0);
    expect(report.errors).toEqual([]);
    expect(report.effects.size).toBe(200);
    expect([...report.effects.values()].every((count) => count === 1)).toBe(true);
  });

  it("a worker killed -9 while it holds a lease: its event is taken over after the lease, still exactly once", async () => {
    const report = await race(5);
    expect(report.killedWorker).toBe(true);
    expect(report.errors).toEqual([]);
    expect(report.effects.size).toBe(200);
    expect([...report.effects.values()].every((count) => count === 1)).toBe(true);
  });
});
