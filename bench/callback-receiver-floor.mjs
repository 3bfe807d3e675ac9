// What the receiver's process pays for a store that makes deliveries wait, step by step: the
// callback-receiver case's delivery loop (bench/cases/callback-receiver.mjs, 3,000 events + 10%
// duplicates, 16 concurrent) on the memory store as it is; behind a group-commit queue that
// waits one event-loop turn a batch; plus a TCP round trip a batch to an echo server in another
// process; plus a prepared `SELECT $1` a batch on a pinned PostgreSQL connection; plus a
// statement of the batch's shape (four array literals in, one JSON row of the batch's answers
// out, no table); and the PostgreSQL store itself. Rounds alternate the variants; medians of this
// process's CPU per delivery. Not a case of bench/run.mjs; run it under the bench lock:
//   flock /tmp/wfr-bench.lock node bench/callback-receiver-floor.mjs [rounds]
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import net from "node:net";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { createMemoryEventStore } from "@wfr/runtime";
import { openPostgresStores } from "@wfr/store-postgres";
import { startPostgresServer } from "@wfr/test-servers";
import { groupCommit } from "../packages/store-postgres/dist/group-commit.js";
import { deliverAll, makeEvents } from "./cases/callback-receiver.mjs";

if (process.argv[2] === "echo") {
  const server = net.createServer((socket) => socket.on("data", (data) => socket.write(data)));
  server.listen(0, "127.0.0.1", () => process.send(server.address().port));
} else {
  const rounds = Number(process.argv[2] ?? 6);
  if (!Number.isSafeInteger(rounds) || rounds < 1)
    throw new RangeError(`rounds: must be a whole number from 1, got ${process.argv[2]}`);
  const echo = fork(fileURLToPath(import.meta.url), ["echo"]);
  const port = await new Promise((resolve) => echo.once("message", resolve));
  const socket = net.connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  await new Promise((resolve) => socket.once("connect", resolve));
  let answered;
  let expected = 0;
  let received = 0;
  socket.on("data", (data) => {
    received += data.length;
    if (received >= expected && answered) {
      const resolve = answered;
      answered = undefined;
      resolve();
    }
  });
  const echoTrip = (bytes) =>
    new Promise((resolve) => {
      expected = bytes;
      received = 0;
      answered = resolve;
      socket.write(Buffer.alloc(bytes, 120));
    });
  const pg = await startPostgresServer();
  const trips = await openPostgresStores({ databaseUrl: pg.url, schema: "floor_trips" });
  const pinned = trips.sql.pin();
  let serial = 0;
  const shapedSql = `SELECT json_agg(json_build_array(v.e, 'claimed', 1.0::float8,
      1795000000000.5::float8, NULL::boolean))::text AS answers
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[]) AS v(k, e, t, l)`;
  const trip = {
    none: async () => undefined,
    echo: (n) => echoTrip(60 * n + 200),
    select: (n) => pinned.query("SELECT $1::int AS n", [n], { prepare: true }),
    shaped: (n) => {
      const ids = Array.from({ length: n }, () => `"evt_${serial++}"`);
      const list = (value) => `{${ids.map(() => value).join(",")}}`;
      return pinned.query(
        shapedSql,
        [list("claim"), `{${ids.join(",")}}`, list("NULL"), list("300000")],
        { prepare: true },
      );
    },
  };
  const queued = (inner, wait) => {
    const run = groupCommit(async (operations) => {
      await wait(operations.length);
      return Promise.all(
        operations.map((operation) =>
          operation().then(
            (value) => ({ value }),
            (error) => ({ error }),
          ),
        ),
      );
    });
    return {
      claim: (id, leaseMs) => run(() => inner.claim(id, leaseMs)),
      complete: (id, token) => run(() => inner.complete(id, token)),
      release: (id, token) => run(() => inner.release(id, token)),
      extend: (id, token, leaseMs) => run(() => inner.extend(id, token, leaseMs)),
    };
  };
  const variants = {
    memory: async () => ({ store: createMemoryEventStore(), close: async () => undefined }),
    "+ a turn a batch": async () => ({
      store: queued(createMemoryEventStore(), trip.none),
      close: async () => undefined,
    }),
    "+ echo round trip": async () => ({
      store: queued(createMemoryEventStore(), trip.echo),
      close: async () => undefined,
    }),
    "+ pg SELECT $1": async () => ({
      store: queued(createMemoryEventStore(), trip.select),
      close: async () => undefined,
    }),
    "+ pg batch shape": async () => ({
      store: queued(createMemoryEventStore(), trip.shaped),
      close: async () => undefined,
    }),
    "postgres store": async () => {
      const schema = `f_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
      const stores = await openPostgresStores({ databaseUrl: pg.url, schema, maxConnections: 4 });
      return { store: stores.callbackEvents, close: () => stores.close() };
    },
  };
  const names = Object.keys(variants);
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  try {
    // Two unrecorded rounds of 1,000 events first: every variant's code warm.
    for (let round = -2; round < rounds; round++) {
      const shift = (round + 2) % names.length;
      for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
        const { store, close } = await variants[name]();
        const outcome = await deliverAll(store, makeEvents(round < 0 ? 1000 : 3000), 16);
        await close();
        if (!outcome.once) throw new Error(`${name}: a side effect did not happen exactly once`);
        if (round >= 0) cpu[name].push(outcome.cpuUsPerDelivery);
      }
    }
  } finally {
    pinned.release();
    await trips.close();
    await pg.stop();
    socket.destroy();
    echo.kill();
  }
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  for (const name of names)
    console.log(
      `${name.padEnd(18)} ${median(cpu[name]).toFixed(0).padStart(4)} us CPU a delivery (rounds: ${cpu[name].map((v) => v.toFixed(0)).join(", ")})`,
    );
  console.log(
    `rounds ${rounds}, load average ${os
      .loadavg()
      .map((v) => v.toFixed(1))
      .join(" ")}`,
  );
}
