// Deliveries per second through createCallbackHandler with each store, with
// 10% duplicates, concurrent, redelivering what the receiver answers 503 (as
// the service retries); exactly-once of the handler's side effect is checked
// in the same run. The API confirmation is an in-process stub, so the figure
// is the receiver and its store, not the network to the service.
//
// Paired: in each round every store runs right beside a run of the memory
// store (which of the two goes first alternates), and its ratio is taken to
// that run. On a shared machine the memory store's own figure spread
// 2,290-16,932 deliveries/s within one run, so a ratio of two medians taken
// at different moments followed the anchor's noise; the median of the paired
// ratios compares each store with the memory store at nearly the same moment. The process
// CPU per delivery (this process only: the receiver and its driver, not a
// database server's processes) shows the work each store costs the receiver
// even when the machine's other load moves the wall-clock figures.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL as toFileUrl } from "node:url";
import { createCallbackHandler, createMemoryEventStore } from "@wfr/runtime";
import { startPostgresServer, startRedisServer } from "@wfr/test-servers";
import { openStoresFor } from "../lib/open-stores.mjs";
import { atLeast, compareRow, valueAtLeast } from "../lib/rows.mjs";

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
  const cpuBefore = process.cpuUsage();
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
  const cpu = process.cpuUsage(cpuBefore);
  // The completions written behind the answers land before the store is closed: a completion
  // the store refuses is retried for as long as its lease (runtime callback-completion.ts).
  await handler.drain();
  const once = [...effects.values()].every((n) => n === 1) && effects.size === events.length;
  return {
    perSecond: deliveries / seconds,
    cpuUsPerDelivery: (cpu.user + cpu.system) / deliveries,
    once,
    effects: effects.size,
  };
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
  const count = quick ? 64 : 3000;
  // Seven rounds (three before the runs were paired): a median of paired ratios needs a few.
  const repeats = quick ? 1 : 7;
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
  const others = engines.filter((engine) => engine !== "memory");
  const samples = Object.fromEntries(engines.map((e) => [e, []]));
  const cpuSamples = Object.fromEntries(engines.map((e) => [e, []]));
  const pairedRatios = Object.fromEntries(engines.map((e) => [e, []]));
  const pairedCpuRatios = Object.fromEntries(engines.map((e) => [e, []]));
  const exactlyOnce = {};
  const deliverWith = async (engine, events) => {
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
    try {
      return await deliverAll(stores.callbackEvents, makeEvents(events), concurrency);
    } finally {
      await stores.close();
    }
  };
  try {
    // One unrecorded pass of a tenth of the events through every store: without it the first
    // round's first store ran on cold code (the memory store at a fifth of its later figure).
    if (!quick) for (const engine of engines) await deliverWith(engine, count / 10);
    for (let r = 0; r < repeats; r++) {
      const round = {};
      const record = (engine, outcome) => {
        samples[engine].push(outcome.perSecond);
        cpuSamples[engine].push(outcome.cpuUsPerDelivery);
        exactlyOnce[engine] = (exactlyOnce[engine] ?? true) && outcome.once;
        if (!outcome.once)
          throw new Error(
            `${engine}: a side effect did not happen exactly once (${outcome.effects} of ${count})`,
          );
      };
      // Each store runs right beside a run of the memory store, the two taking turns at going
      // first round by round; the stores take turns at the start of the round.
      for (let i = 0; i < others.length; i++) {
        const engine = others[(i + r) % others.length];
        const memoryFirst = (r + others.indexOf(engine)) % 2 === 1;
        const pair = memoryFirst ? ["memory", engine] : [engine, "memory"];
        const outcomes = {};
        for (const side of pair) {
          outcomes[side] = await deliverWith(side, count);
          record(side, outcomes[side]);
        }
        round[engine] = outcomes[engine];
        pairedRatios[engine].push(outcomes[engine].perSecond / outcomes.memory.perSecond);
        pairedCpuRatios[engine].push(
          outcomes[engine].cpuUsPerDelivery / outcomes.memory.cpuUsPerDelivery,
        );
      }
      log(
        `round ${r + 1}/${repeats}: every event's handler ran exactly once on every store; ${others
          .map(
            (e) =>
              `${e} ${Math.round(round[e].perSecond)}/s and ${Math.round(round[e].cpuUsPerDelivery)} us CPU (${pairedRatios[e].at(-1).toFixed(2)}x, ${pairedCpuRatios[e].at(-1).toFixed(2)}x CPU of the memory store beside it)`,
          )
          .join("; ")}`,
      );
    }
  } finally {
    await pg.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    rows: [
      ...engines.map((engine) =>
        compareRow(
          `${engine} store`,
          "deliveries/s",
          samples[engine],
          samples.memory,
          // The target of 2026-11-29 (0.5x before): callbacks at the database's speed.
          engine === "postgres" ? atLeast(0.8) : undefined,
        ),
      ),
      ...others.map((engine) =>
        compareRow(
          `${engine} / memory store, deliveries/s, paired per round`,
          "x",
          pairedRatios[engine],
          undefined,
          engine === "postgres" ? valueAtLeast(0.8, "x") : undefined,
        ),
      ),
      ...engines.map((engine) =>
        compareRow(
          `${engine} store, this process's CPU per delivery (ratio: more CPU above 1x)`,
          "us",
          cpuSamples[engine],
          cpuSamples.memory,
        ),
      ),
      ...others.map((engine) =>
        compareRow(
          `${engine} / memory store, this process's CPU per delivery, paired per round`,
          "x",
          pairedCpuRatios[engine],
        ),
      ),
    ],
    samples: {
      ...samples,
      cpuUsPerDelivery: cpuSamples,
      pairedRatios,
      pairedCpuRatios,
      exactlyOnce,
    },
    notes: [
      `${count} events + 10% duplicates, ${concurrency} concurrent deliveries, ${repeats} rounds; in each round every store runs right beside a run of the memory store (the memory store's row holds all of its runs); 503 answers (a duplicate while the first is processing) are redelivered.`,
      "Paired rows: the median over rounds of each store's ratio to the memory store's run beside it. CPU: this process's user + system time per delivery (the receiver and the loop driving it; a database server's own processes are not counted).",
      "Exactly-once of the handler's side effect was verified for every store in this run.",
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
