// Deliveries per second through createCallbackHandler with each store, with
// 10% duplicates, concurrent, redelivering what the receiver answers 503 (as
// the service retries); exactly-once of the handler's side effect is checked
// in the same run. The API confirmation is an in-process stub, so the figure
// is the receiver and its store, not the network to the service.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL as toFileUrl } from "node:url";
import { createCallbackHandler, createMemoryEventStore } from "@wfr/runtime";
import { startPostgresServer, startRedisServer } from "@wfr/test-servers";
import { openStoresFor } from "../lib/open-stores.mjs";
import { atLeast, compareRow } from "../lib/rows.mjs";

export const id = "callback-receiver";
export const title = "Callback receiver: deliveries per second with 10% duplicates";
export const anchorName = "memory store";
export const anchor = "createCallbackHandler with the in-process memory store, same run";

const stubClient = {
  async getRun(runId) {
    return { run_id: runId, workflow_id: "wf_1", status: "succeeded", metadata: {}, error: null };
  },
  async getResult(runId) {
    return {
      state: "terminal",
      status: "succeeded",
      serverStatus: "succeeded",
      runId,
      outputs: {},
      metadata: {},
      error: null,
    };
  },
};

export async function deliverAll(store, events, concurrency) {
  const effects = new Map();
  const handler = createCallbackHandler({
    client: stubClient,
    store,
    onCompleted: ({ callback }) => {
      effects.set(callback.event_id, (effects.get(callback.event_id) ?? 0) + 1);
    },
  });
  // Each event once, plus 10% of them again, shuffled.
  const queue = [...events, ...events.filter((_, i) => i % 10 === 0)];
  for (let i = queue.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [queue[i], queue[j]] = [queue[j], queue[i]];
  }
  const deliveries = queue.length;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let body = queue.pop(); body !== undefined; body = queue.pop()) {
        const response = await handler(
          new Request("http://127.0.0.1/callbacks", { method: "POST", body }),
        );
        await response.arrayBuffer();
        if (response.status === 503)
          queue.unshift(body); // the service's retry, later
        else if (response.status !== 200) throw new Error(`receiver answered ${response.status}`);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  // The completions written behind the answers land before the store is closed: a completion
  // the store refuses is retried for as long as its lease (runtime callback-completion.ts).
  await handler.drain();
  const once = [...effects.values()].every((n) => n === 1) && effects.size === events.length;
  return { perSecond: deliveries / seconds, once, effects: effects.size };
}

export function makeEvents(count) {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      event_id: `evt_${randomUUID()}`,
      type: "workflow.run.completed",
      run: { run_id: `run_${i}`, workflow_id: "wf_1", status: "succeeded", metadata: {} },
      result: { status: "succeeded", outputs: {} },
    }),
  );
}

export async function run({ quick, log }) {
  const count = quick ? 300 : 3000;
  const repeats = quick ? 1 : 3;
  const concurrency = 16;
  const pg = await startPostgresServer();
  // A server this case started is stopped even when the next one cannot start (Redis missing
  // left PostgreSQL servers running after the case failed).
  const redis = await startRedisServer().catch(async (error) => {
    await pg.stop();
    throw error;
  });
  const dir = mkdtempSync(join(tmpdir(), "wfr-bench-receiver-"));
  const engines = ["memory", "pglite", "postgres", "redis"];
  const samples = Object.fromEntries(engines.map((e) => [e, []]));
  const exactlyOnce = {};
  try {
    for (let r = 0; r < repeats; r++) {
      for (const engine of engines) {
        const schema = `r_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
        const stores =
          engine === "memory"
            ? { callbackEvents: createMemoryEventStore(), close: async () => undefined }
            : await openStoresFor({
                engine,
                url: engine === "redis" ? redis.url : pg.url,
                schema,
                dir: join(dir, schema),
              });
        const outcome = await deliverAll(stores.callbackEvents, makeEvents(count), concurrency);
        await stores.close();
        samples[engine].push(outcome.perSecond);
        exactlyOnce[engine] = (exactlyOnce[engine] ?? true) && outcome.once;
        if (!outcome.once)
          throw new Error(
            `${engine}: a side effect did not happen exactly once (${outcome.effects} of ${count})`,
          );
      }
      log(`repeat ${r + 1}/${repeats}: every event's handler ran exactly once on every store`);
    }
  } finally {
    await pg.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    rows: engines.map((engine) =>
      compareRow(
        `${engine} store`,
        "deliveries/s",
        samples[engine],
        samples.memory,
        // The target of 2026-11-29 (0.5x before): callbacks at the database's speed.
        engine === "postgres" ? atLeast(0.8) : undefined,
      ),
    ),
    samples: { ...samples, exactlyOnce },
    notes: [
      `${count} events + 10% duplicates, ${concurrency} concurrent deliveries, ${repeats} repeats; 503 answers (a duplicate while the first is processing) are redelivered.`,
      "Exactly-once of the handler's side effect was verified for every store in this run.",
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
