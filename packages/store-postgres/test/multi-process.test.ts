// Several processes, not several promises: receivers in separate processes
// share one PostgreSQL store; one is killed -9 while it holds leases.
import { fileURLToPath } from "node:url";
import {
  exactlyOnceProblems,
  type PostgresServer,
  runClaimRace,
  STANDARD_RACE,
  startPostgresServer,
} from "@wfr/test-servers";
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
      ...STANDARD_RACE,
      killVictimAfterClaims,
    });
  };

  it("200 events delivered 3 times each, shuffled and concurrent: every side effect happens exactly once", async () => {
    const report = await race(0);
    expect(exactlyOnceProblems(report, STANDARD_RACE.events)).toEqual([]);
  });

  it("a worker killed -9 while it holds a lease: its event is taken over after the lease, still exactly once", async () => {
    const report = await race(5);
    expect(report.killedWorker).toBe(true);
    expect(exactlyOnceProblems(report, STANDARD_RACE.events)).toEqual([]);
  });
});
