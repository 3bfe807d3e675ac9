// The whole fault suite: the emulator in this process, a PostgreSQL and a Redis server on free
// loopback ports, then each stage in turn, each adding its rows to the table. Every server,
// proxy and child process is stopped in `finally`, on failure too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "@wfr/emulator";
import { startPostgresServer, startRedisServer } from "@wfr/test-servers";
import { endAll } from "./child-processes.js";
import { createApiKey } from "./emulator-admin.js";
import { launchThroughFaults } from "./launch-faults.js";
import { launcherKills } from "./launcher-kill.js";
import {
  type BurstSize,
  postgresRestartBurst,
  receiverKillBurst,
  redisRestartBurst,
  type Stage,
} from "./receiver-bursts.js";
import { startRoundRobin } from "./round-robin.js";
import { type FaultRow, renderTable } from "./tally.js";

export interface SuiteSize {
  readonly name: string;
  /** Launches through the fault proxy, and the share of connections that meet a fault. */
  readonly launches: number;
  readonly faultRate: number;
  readonly postgresRestarts: BurstSize;
  readonly receiverKills: BurstSize;
  readonly redisRestarts: BurstSize;
  readonly launcher: { readonly intents: number; readonly kills: number };
}

/** The variant `pnpm test` runs: about a minute on a quiet 2-core machine. */
export const CI_SIZE: SuiteSize = {
  name: "ci",
  launches: 150,
  faultRate: 0.5,
  postgresRestarts: { runs: 200, faults: 3, ratePerSecond: 50 },
  receiverKills: { runs: 120, faults: 1, ratePerSecond: 50 },
  redisRestarts: { runs: 120, faults: 2, ratePerSecond: 50 },
  launcher: { intents: 60, kills: 2 },
};

/** The longer variant (`pnpm --filter @wfr/fault-suite long`). */
export const LONG_SIZE: SuiteSize = {
  name: "long",
  launches: 800,
  faultRate: 0.5,
  postgresRestarts: { runs: 900, faults: 8, ratePerSecond: 60 },
  receiverKills: { runs: 600, faults: 4, ratePerSecond: 60 },
  redisRestarts: { runs: 600, faults: 4, ratePerSecond: 60 },
  launcher: { intents: 300, kills: 8 },
};

export interface SuiteReport {
  readonly seed: number;
  readonly rows: FaultRow[];
}

/** The sample catalog's "Draft customer reply" (packages/emulator/fixtures/sample-catalog.yaml). */
const WORKFLOW_ID = "wf_P0ZrTt55";
const ENVIRONMENT = "production";

export async function runFaultSuite(
  size: SuiteSize,
  seed: number,
  log: (line: string) => void = () => undefined,
): Promise<SuiteReport> {
  const dir = mkdtempSync(join(tmpdir(), "wfr-fault-suite-"));
  // Receivers come and go; the emulator forwards every callback to this one balancer.
  const balancer = await startRoundRobin([]);
  const [emulator, postgres, redis] = await Promise.all([
    startEmulator({ port: 0, forwardCallbacks: `http://127.0.0.1:${balancer.port}/callbacks` }),
    startPostgresServer(),
    startRedisServer({ appendOnly: true }),
  ]);
  const rows: FaultRow[] = [];
  try {
    const stage: Stage = {
      emulatorUrl: emulator.url,
      environment: ENVIRONMENT,
      apiKey: await createApiKey(emulator.url, ENVIRONMENT),
      workflowId: WORKFLOW_ID,
      dir,
      log,
      balancer,
    };
    const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const began = Date.now();
      const result = await work();
      log(`${name}: ${((Date.now() - began) / 1000).toFixed(1)} s`);
      return result;
    };
    rows.push(
      ...(await timed("launches through the fault proxy", () =>
        launchThroughFaults({
          emulatorUrl: emulator.url,
          emulatorPort: emulator.port,
          environment: ENVIRONMENT,
          apiKey: stage.apiKey,
          workflowId: WORKFLOW_ID,
          seed,
          launches: size.launches,
          faultRate: size.faultRate,
          concurrency: 16,
          timeoutMs: 1_000,
          prefix: "launch-",
        }),
      )),
    );
    rows.push(
      await timed("PostgreSQL restarts", () =>
        postgresRestartBurst(stage, postgres, size.postgresRestarts),
      ),
    );
    rows.push(
      await timed("receiver kills", () => receiverKillBurst(stage, postgres, size.receiverKills)),
    );
    rows.push(
      await timed("Redis restarts", () => redisRestartBurst(stage, redis, size.redisRestarts)),
    );
    rows.push(
      await timed("launcher kills", () =>
        launcherKills(stage, postgres, { ...size.launcher, seed }),
      ),
    );
    return { seed, rows };
  } catch (error) {
    // The rows so far and the seed, so that the failing run can be read and replayed.
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`fault suite (seed ${seed}) failed: ${message}\n${renderTable(rows)}`, {
      cause: error,
    });
  } finally {
    await endAll();
    await Promise.allSettled([emulator.close(), postgres.stop(), redis.stop(), balancer.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
