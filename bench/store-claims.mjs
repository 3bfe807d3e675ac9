// Claims per second of the shared callback-event stores, each with 4
// processes claiming and finishing distinct event ids at once (PGlite, which
// lives inside one process, with 4 concurrent loops in one process), in one
// run, side by side. Starts its own PostgreSQL and Redis on loopback.
//
//   node bench/store-claims.mjs [--processes 4] [--seconds 5] [--repeats 3] [--quick]
// Build first: npx --yes pnpm@10.34.8 --filter "@wfr/store-*" --filter @wfr/test-servers build
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const root = new URL("../packages/", import.meta.url);
const { values: args } = parseArgs({
  options: {
    processes: { type: "string", default: "4" },
    seconds: { type: "string", default: "5" },
    repeats: { type: "string", default: "3" },
    quick: { type: "boolean", default: false },
    worker: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(`node bench/store-claims.mjs [--processes 4] [--seconds 5] [--repeats 3] [--quick]

Claims per second (claim + complete of a new event id) of @wfr/store-postgres on a
PostgreSQL server, @wfr/store-redis on a Redis server (both started here on loopback,
each shared by --processes worker processes) and @wfr/store-postgres on PGlite (one
process, --processes concurrent loops). Prints the median of --repeats runs with min
and max. --quick: one run of 1 second.`);
  process.exit(0);
}

const openers = {
  postgres: async (env) => {
    const { openPostgresStores } = await import(new URL("store-postgres/dist/index.js", root));
    return openPostgresStores({ databaseUrl: env.url, schema: env.schema, maxConnections: 4 });
  },
  redis: async (env) => {
    const { openRedisStores } = await import(new URL("store-redis/dist/index.js", root));
    return openRedisStores({ url: env.url, keyPrefix: env.schema });
  },
  pglite: async (env) => {
    const { openPostgresStores } = await import(new URL("store-postgres/dist/index.js", root));
    return openPostgresStores({ databaseUrl: `pglite:${env.dir}` });
  },
};

async function claimLoop(stores, seconds, concurrency) {
  const until = Date.now() + seconds * 1000;
  let claims = 0;
  const prefix = randomUUID();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      for (let i = 0; Date.now() < until; i++) {
        const id = `${prefix}-${lane}-${i}`;
        const claim = await stores.callbackEvents.claim(id, 60_000);
        if (claim.outcome !== "claimed") throw new Error(`fresh id ${id} was ${claim.outcome}`);
        if (!(await stores.callbackEvents.complete(id, claim.fence))) throw new Error("fenced out");
        claims += 1;
      }
    }),
  );
  return claims;
}

if (args.worker) {
  const env = JSON.parse(args.worker);
  const stores = await openers[env.engine](env);
  process.send({ ready: true });
  process.once("message", async () => {
    const claims = await claimLoop(stores, env.seconds, 4);
    await stores.close();
    process.send({ claims });
    process.exit(0);
  });
} else {
  const { startPostgresServer, startRedisServer } = await import(
    new URL("test-servers/dist/index.js", root)
  );
  const processes = Number(args.processes);
  const seconds = args.quick ? 1 : Number(args.seconds);
  const repeats = args.quick ? 1 : Number(args.repeats);
  const pg = await startPostgresServer();
  const redis = await startRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "wfr-bench-pglite-"));
  try {
    const runShared = async (engine, url) => {
      const schema = `b_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
      // Migrate once before the workers start, as a deploy would.
      await (await openers[engine]({ url, schema })).close();
      const children = Array.from({ length: processes }, () =>
        fork(
          new URL(import.meta.url).pathname,
          ["--worker", JSON.stringify({ engine, url, schema, seconds })],
          {
            stdio: ["ignore", "inherit", "inherit", "ipc"],
          },
        ),
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
      const elapsed = (performance.now() - start) / 1000;
      return counts.reduce((a, b) => a + b, 0) / elapsed;
    };
    const runPglite = async () => {
      const stores = await openers.pglite({ dir });
      const start = performance.now();
      const claims = await claimLoop(stores, seconds, processes * 4);
      const elapsed = (performance.now() - start) / 1000;
      await stores.close();
      return claims / elapsed;
    };
    const samples = { postgres: [], redis: [], pglite: [] };
    for (let r = 0; r < repeats; r++) {
      samples.postgres.push(await runShared("postgres", pg.url));
      samples.redis.push(await runShared("redis", redis.url));
      samples.pglite.push(await runPglite());
    }
    const stat = (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
    };
    const rows = Object.entries(samples).map(([engine, xs]) => ({ engine, ...stat(xs) }));
    const base = rows.find((r) => r.engine === "postgres").median;
    console.log(
      `claims/s (claim + complete), ${processes} processes x 4 in flight, ${seconds} s x ${repeats}`,
    );
    console.log("engine      median     min       max       vs postgres");
    for (const r of rows) {
      const label = r.engine === "pglite" ? "pglite*" : r.engine;
      console.log(
        `${label.padEnd(10)} ${r.median.toFixed(0).padStart(8)} ${r.min.toFixed(0).padStart(8)} ${r.max.toFixed(0).padStart(9)}   ${(r.median / base).toFixed(2)}x`,
      );
    }
    console.log(
      "* PGlite runs inside one process: its row is one process with the same total concurrency.",
    );
    if (rows.some((r) => !(r.median > 0))) process.exitCode = 1;
  } finally {
    await pg.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
