// Where the PostgreSQL callback store's time goes in the callback-receiver
// case's delivery loop: for the memory store and the PostgreSQL store in
// turn (fresh schema each round), deliveries/s, this process's CPU and the
// server's CPU (its processes under this one, read from /proc, so Linux only)
// per delivery, and the store's statements: how many, how many operations
// each, their latency, and how many overlapped another. Not a case of
// bench/run.mjs (no anchor ratio); run it under the bench lock:
//   flock /tmp/wfr-bench.lock node bench/callback-receiver-trace.mjs [rounds] [concurrency]
// (concurrency 16 as in the case unless given; 1 and 4 show a statement's cost alone).
// Add `--cpu-prof` before the script for a profile of the whole process.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createMemoryEventStore } from "@wfr/runtime";
import { createPostgresCallbackEventStore, openPostgresStores } from "@wfr/store-postgres";
import { startPostgresServer } from "@wfr/test-servers";
import { deliverAll, makeEvents } from "./cases/callback-receiver.mjs";

const EVENTS = 3000;

/** CPU milliseconds of the postgres processes descended from this one. */
function serverCpuMs() {
  const processes = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime, in clock ticks of 10 ms.
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
    processes.push({ pid: Number(entry), ppid: Number(fields[1]), command, cpuMs });
  }
  const descendants = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of processes)
      if (!descendants.has(p.pid) && descendants.has(p.ppid)) {
        descendants.add(p.pid);
        grew = true;
      }
  }
  return processes
    .filter((p) => descendants.has(p.pid) && p.command === "postgres")
    .reduce((sum, p) => sum + p.cpuMs, 0);
}

/** The engine with every statement's start, end and operation count recorded. */
function tracing(sql) {
  const statements = [];
  // The batch statement's first parameter: an array, or (on a server) its array literal.
  const operationsOf = (first) =>
    Array.isArray(first)
      ? first.length
      : typeof first === "string" && first.startsWith("{")
        ? first.split(",").length
        : 0;
  const traced = (queryable) => ({
    async query(text, params = [], options) {
      const start = performance.now();
      const result = await queryable.query(text, params, options);
      statements.push({ start, end: performance.now(), operations: operationsOf(params[0]) });
      return result;
    },
  });
  return {
    sql: {
      ...sql,
      ...traced(sql),
      // The store's batches go through a pinned connection where the engine has one.
      ...(sql.pin
        ? {
            pin: () => {
              const pinned = sql.pin();
              return { ...traced(pinned), release: () => pinned.release() };
            },
          }
        : {}),
    },
    statements,
  };
}

function describeStatements(statements, deliveries) {
  if (statements.length === 0) return "";
  const sorted = [...statements].sort((a, b) => a.start - b.start);
  let overlapping = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i].start < sorted[i - 1].end) overlapping++;
  const latencies = sorted.map((s) => s.end - s.start).sort((a, b) => a - b);
  const operations = sorted.reduce((sum, s) => sum + s.operations, 0);
  const p50 = latencies[latencies.length >> 1];
  return ` statements=${sorted.length} statements/delivery=${(sorted.length / deliveries).toFixed(3)} ops/statement=${(operations / sorted.length).toFixed(1)} overlapping=${overlapping} latency_p50_ms=${p50.toFixed(2)} latency_sum_ms=${Math.round(latencies.reduce((a, b) => a + b, 0))}`;
}

const rounds = Number(process.argv[2] ?? 3);
const CONCURRENCY = Number(process.argv[3] ?? 16);
for (const [name, value] of [
  ["rounds", rounds],
  ["concurrency", CONCURRENCY],
])
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name}: must be a whole number from 1, got ${value}`);
const pg = await startPostgresServer();
try {
  for (let round = 0; round < rounds; round++) {
    for (const engine of ["memory", "postgres"]) {
      let store = createMemoryEventStore();
      let trace = { statements: [] };
      let close = async () => undefined;
      if (engine === "postgres") {
        const schema = `t_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
        // As the bench opens it (bench/lib/open-stores.mjs), with the statements traced.
        const stores = await openPostgresStores({ databaseUrl: pg.url, schema, maxConnections: 4 });
        trace = tracing(stores.sql);
        store = createPostgresCallbackEventStore(trace.sql, {
          schema,
          retentionMs: 7 * 24 * 60 * 60 * 1000,
        });
        close = () => stores.close();
      }
      const events = makeEvents(EVENTS);
      const deliveries = EVENTS + Math.ceil(EVENTS / 10);
      const cpuBefore = process.cpuUsage();
      const serverBefore = serverCpuMs();
      const outcome = await deliverAll(store, events, CONCURRENCY);
      const cpu = process.cpuUsage(cpuBefore);
      const serverUs = (serverCpuMs() - serverBefore) * 1000;
      await close();
      console.log(
        `round ${round} ${engine.padEnd(8)} deliveries/s=${Math.round(outcome.perSecond)} client_cpu_us/delivery=${Math.round((cpu.user + cpu.system) / deliveries)} server_cpu_us/delivery=${Math.round(serverUs / deliveries)} once=${outcome.once}${describeStatements(trace.statements, deliveries)}`,
      );
    }
  }
} finally {
  await pg.stop();
}
