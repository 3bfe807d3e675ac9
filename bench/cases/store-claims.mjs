// Claims per second (claim + complete of a new event id) of the shared
// callback-event stores with 4 processes at once, side by side in one run:
// PostgreSQL (the anchor) and Redis, each shared by the processes; PGlite,
// which lives inside one process, with the same total concurrency in one.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { startPostgresServer, startRedisServer } from "@wfr/test-servers";
import { openStoresFor } from "../lib/open-stores.mjs";
import { compareRow } from "../lib/rows.mjs";

export const id = "store-claims";
export const title = "Shared stores: claims per second at 4 processes";
export const anchorName = "PostgreSQL";
export const anchor = "@wfr/store-postgres on a PostgreSQL server, same run";

const WORKER = fileURLToPath(new URL("../lib/claim-bench-worker.mjs", import.meta.url));
const PROCESSES = 4;

async function sharedRun(engine, url, seconds) {
  const schema = `b_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await (await openStoresFor({ engine, url, schema })).close(); // migrate once, as a deploy would
  const children = Array.from({ length: PROCESSES }, () =>
    fork(WORKER, [JSON.stringify({ engine, url, schema, seconds })], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  await Promise.all(children.map((c) => new Promise((resolve) => c.once("message", resolve))));
  const start = performance.now();
  const counts = await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve, reject) => {
          c.once("message", (m) => resolve(m.claims));
          c.once("exit", (code) => code !== 0 && reject(new Error(`worker exited ${code}`)));
          c.send("go");
        }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0) / ((performance.now() - start) / 1000);
}

export async function run({ quick, log }) {
  // --quick proves the case runs (three stores, four processes each): a quarter second of claims
  // shows that; the store's claims themselves are the suites' (packages/store-*/test).
  const seconds = quick ? 0.25 : 5;
  const repeats = quick ? 1 : 3;
  const pg = await startPostgresServer();
  // A server this case started is stopped even when the next one cannot start (Redis missing
  // left PostgreSQL servers running after the case failed).
  const redis = await startRedisServer().catch(async (error) => {
    await pg.stop();
    throw error;
  });
  const dir = mkdtempSync(join(tmpdir(), "wfr-bench-pglite-"));
  const samples = { postgres: [], redis: [], pglite: [] };
  try {
    const { claimLoop } = await import("../lib/claim-loop.mjs");
    for (let r = 0; r < repeats; r++) {
      samples.postgres.push(await sharedRun("postgres", pg.url, seconds));
      samples.redis.push(await sharedRun("redis", redis.url, seconds));
      const stores = await openStoresFor({ engine: "pglite", dir });
      const start = performance.now();
      const claims = await claimLoop(stores, seconds, PROCESSES * 4);
      samples.pglite.push(claims / ((performance.now() - start) / 1000));
      await stores.close();
      log(`repeat ${r + 1}/${repeats} done`);
    }
  } finally {
    await pg.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    rows: [
      compareRow("PostgreSQL, 4 processes", "claims/s", samples.postgres, samples.postgres),
      compareRow("Redis, 4 processes", "claims/s", samples.redis, samples.postgres),
      compareRow("PGlite, 1 process x 16 in flight", "claims/s", samples.pglite, samples.postgres),
    ],
    samples,
    notes: [
      `${seconds} s per measurement, ${repeats} repeats; each process keeps 4 claims in flight.`,
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
