// CPU of the PGlite launch journal alone, split by thread: a fresh PGlite
// journal in a temporary folder, then `rows` intents recorded, marked sent and
// acknowledged with `concurrency` in flight and a 2 ms wait standing in for
// each launch, as the batch launcher calls them. Prints the CPU-seconds of
// the journal phase on this process's main thread and on its other threads
// (V8's compiler and GC threads; read from /proc, so Linux only), the start-up
// apart. Pass V8 flags to node to compare WebAssembly tiers. Needs the store
// built:
//   npx --yes pnpm@10.34.8 --filter @wfr/store-postgres build
//   node --wasm-tiering-budget=180000000 bench/pglite-journal-cpu.mjs --rows 400 --concurrency 8
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "400" },
    concurrency: { type: "string", default: "8" },
  },
});
const rows = Number(values.rows);
const concurrency = Number(values.concurrency);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { openPostgresStores } = await import(join(root, "packages/store-postgres/dist/index.js"));

/** CPU-seconds (user + system) of each thread of this process, by thread id. */
function threadSeconds() {
  const ticksPerSecond = 100; // USER_HZ on Linux
  const byThread = new Map();
  for (const tid of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byThread.set(tid, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
  }
  return byThread;
}

const dir = mkdtempSync(join(tmpdir(), "wfr-pglite-journal-cpu-"));
try {
  const startUp = process.cpuUsage();
  const stores = await openPostgresStores({ pgliteDataDir: dir });
  const startUpCpu = process.cpuUsage(startUp);
  const journal = stores.launchJournal;
  const before = threadSeconds();
  const wallStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < rows; i = next++) {
        const intentId = `row-${i}`;
        await journal.record({
          intentId,
          idempotencyKey: `intent-${String(i).padStart(48, "0")}`,
          bodyFingerprint: "f".repeat(64),
        });
        await journal.markSent(intentId);
        await new Promise((resolve) => setTimeout(resolve, 2));
        await journal.markAcknowledged(intentId, `run_${i}`);
      }
    }),
  );
  const wall = (performance.now() - wallStarted) / 1000;
  const after = threadSeconds();
  let main = 0;
  let others = 0;
  for (const [tid, seconds] of after) {
    const spent = seconds - (before.get(tid) ?? 0);
    if (tid === String(process.pid)) main += spent;
    else others += spent;
  }
  await stores.close();
  const s = (x) => x.toFixed(2);
  console.log(
    `${rows} rows, concurrency ${concurrency}: main thread ${s(main)} s, other threads ${s(others)} s, wall ${s(wall)} s; start-up ${s((startUpCpu.user + startUpCpu.system) / 1e6)} CPU-s`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
