// Several processes, not several promises: receivers in separate processes
// share one Redis store; one is killed -9 while it holds leases.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import {
  exactlyOnceProblems,
  type RedisServer,
  runClaimRace,
  STANDARD_RACE,
  startRedisServer,
} from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const storeModule = fileURLToPath(new URL("./support/open-stores-from-env.mjs", import.meta.url));

describe("4 receiver processes on one Redis store", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const race = (killVictimAfterClaims: number) =>
    runClaimRace({
      storeModule,
      env: { WFR_REDIS_URL: server.url, WFR_KEY_PREFIX: `race-${randomUUID()}:` },
      ...STANDARD_RACE,
      killVictimAfterClaims,
    });

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
