// Launcher processes killed -9 at random points and restarted, against the
// emulator, with the launch journal on a real PostgreSQL server: every intent
// gets exactly one run.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { type PostgresServer, startPostgresServer } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStores } from "../src/index.js";
import { freshSchema } from "./support/pg-fresh-schema.js";

const LAUNCHER = fileURLToPath(new URL("./support/journaled-launcher.mjs", import.meta.url));
const INTENTS = 200;
const KILLS = 20;

let emulator: RunningEmulator;
let server: PostgresServer;
let apiKey: string;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  server = await startPostgresServer();
  const response = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  apiKey = ((await response.json()) as { token: string }).token;
});
afterAll(async () => {
  await emulator?.close();
  await server?.stop();
});

interface Launcher {
  child: ChildProcess;
  finished: Promise<boolean>;
}

function startLauncher(
  schema: string,
  order: "forward" | "backward",
): Launcher & { launched: () => number; untilLaunched: (count: number) => Promise<void> } {
  const child = fork(LAUNCHER, [], {
    env: {
      ...process.env,
      WFR_BASE_URL: `${emulator.url}/production/api/v1`,
      WFR_API_KEY: apiKey,
      WFR_JOURNAL: server.url,
      WFR_SCHEMA: schema,
      WFR_INTENTS: String(INTENTS),
      WFR_ORDER: order,
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let sawFinish = false;
  let launched = 0;
  // Waiters for a number of launches, woken by the launcher's own messages (or its exit): a
  // timer polling the count woke this process a thousand times a second per life.
  const waiters = new Set<{ count: number; wake: () => void }>();
  const wakeReady = () => {
    for (const waiter of waiters)
      if (launched >= waiter.count || child.exitCode !== null || child.signalCode !== null) {
        waiters.delete(waiter);
        waiter.wake();
      }
  };
  child.on("message", (message: { type: string }) => {
    if (message.type === "finished") sawFinish = true;
    if (message.type === "launched") launched += 1;
    wakeReady();
  });
  const finished = new Promise<boolean>((resolve) =>
    child.once("exit", (code) => {
      resolve(code === 0 && sawFinish);
      wakeReady();
    }),
  );
  const untilLaunched = (count: number) =>
    new Promise<void>((wake) => {
      waiters.add({ count, wake });
      wakeReady();
    });
  return { child, finished, launched: () => launched, untilLaunched };
}

async function runsByIntent(schema: string): Promise<Map<string, number>> {
  const response = await fetch(`${emulator.url}/_emulator/environments/production/runs`);
  const { runs } = (await response.json()) as { runs: { metadata?: { intent?: string } }[] };
  const counts = new Map<string, number>();
  for (const run of runs) {
    const intent = run.metadata?.intent;
    if (intent?.startsWith(`${schema}/`)) counts.set(intent, (counts.get(intent) ?? 0) + 1);
  }
  return counts;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kills -9 after a random number (0-8) of launches in this life, plus a random
 * fraction of one launch, so that kills land before, during and after the
 * journal writes and the request of the launch in flight.
 */
async function killAtRandomPoint(launcher: {
  child: ChildProcess;
  finished: Promise<boolean>;
  untilLaunched: (count: number) => Promise<void>;
}) {
  const target = Math.floor(Math.random() * 9);
  await launcher.untilLaunched(target);
  await sleep(Math.random() * 4);
  launcher.child.kill("SIGKILL");
  await launcher.finished;
}

describe("launch journal on PostgreSQL, launchers killed -9 at random points", () => {
  it(`one launcher killed ${KILLS} times: every intent has exactly one run`, async () => {
    const schema = freshSchema();
    await (await openPostgresStores({ databaseUrl: server.url, schema })).close();
    const before = await runsByIntent(schema);
    expect(before.size).toBe(0);
    let kills = 0;
    while (kills < KILLS) {
      const launcher = startLauncher(schema, "forward");
      await killAtRandomPoint(launcher);
      kills += 1;
    }
    expect(await startLauncher(schema, "forward").finished).toBe(true);
    const counts = await runsByIntent(schema);
    expect(counts.size).toBe(INTENTS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const stores = await openPostgresStores({ databaseUrl: server.url, schema });
    expect(await stores.launchJournal.listUnacknowledged()).toEqual([]);
    await stores.close();
    console.log(`kills: ${kills}, intents: ${counts.size}, runs per intent: 1`);
    expect(kills).toBe(KILLS);
  });

  it(`two launchers sharing one journal, killed ${KILLS} times between them: every intent has exactly one run`, async () => {
    const schema = freshSchema();
    await (await openPostgresStores({ databaseUrl: server.url, schema })).close();
    const orders = ["forward", "backward"] as const;
    const launchers = orders.map((order) => startLauncher(schema, order));
    let kills = 0;
    while (kills < KILLS) {
      const which = Math.floor(Math.random() * 2);
      const victim = launchers[which];
      if (!victim) break;
      await killAtRandomPoint(victim);
      kills += 1;
      launchers[which] = startLauncher(schema, orders[which] ?? "forward");
    }
    const outcomes = await Promise.all(launchers.map((launcher) => launcher.finished));
    expect(outcomes).toEqual([true, true]);
    const counts = await runsByIntent(schema);
    expect(counts.size).toBe(INTENTS);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const stores = await openPostgresStores({ databaseUrl: server.url, schema });
    expect(await stores.launchJournal.listUnacknowledged()).toEqual([]);
    await stores.close();
    console.log(`kills: ${kills}, intents: ${counts.size}, runs per intent: 1 (two launchers)`);
  });
});
