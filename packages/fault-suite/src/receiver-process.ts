// A callback receiver process, started by the suite (child-processes.ts) so that SIGKILL is real:
// `createCallbackHandler` from @wfr/runtime on a node:http server on 127.0.0.1, its onCompleted
// recording one side effect per handled event.
//
// - PostgreSQL: a transactional receiver (`transactional: true`, the store's `completeWithin`):
//   the side effect is a row inserted through `tx`, committed with the event's completion, so a
//   kill between the two commits neither (packages/runtime/README.md, "Transactional completion").
// - Redis: no transactional completion (packages/store-redis/README.md says why); the side effect
//   is a line appended to this process's file. A restart of Redis is covered by the retried
//   completion; a kill of this process between the append and the completion is not, and the
//   suite does not kill Redis receivers.
//
// Env: WFR_RECEIVER_STORE (postgres | redis), WFR_STORE_URL, WFR_STORE_NAMESPACE (PostgreSQL
// schema or Redis key prefix), WFR_BASE_URL, WFR_API_KEY, WFR_LEASE_MS, WFR_RECEIVER_NAME,
// WFR_EFFECTS_FILE (Redis), WFR_PORT (0: any). Tells its parent `{type: "ready", port}`.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { type CallbackHandler, createCallbackHandler, createClient } from "@wfr/runtime";
import { toNodeHandler } from "@wfr/runtime/node";
import { openPostgresStores } from "@wfr/store-postgres";
import { openRedisStores } from "@wfr/store-redis";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`receiver: ${name} is not set`);
  return value;
};

const client = createClient({
  baseUrl: env("WFR_BASE_URL"),
  apiKey: env("WFR_API_KEY"),
  timeoutMs: 10_000,
});
const leaseMs = Number(env("WFR_LEASE_MS"));
const name = env("WFR_RECEIVER_NAME");
const namespace = env("WFR_STORE_NAMESPACE");
// A little work inside the handler, so that a kill or a restart can land in it.
const work = () => new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));

let handler: CallbackHandler;
let close: () => Promise<void>;
if (env("WFR_RECEIVER_STORE") === "postgres") {
  const stores = await openPostgresStores({
    databaseUrl: env("WFR_STORE_URL"),
    schema: namespace,
    maxConnections: 4,
  });
  handler = createCallbackHandler({
    client,
    store: stores.callbackEvents,
    transactional: true,
    leaseMs,
    onCompleted: async ({ callback, tx }) => {
      await work();
      await tx.query(
        `INSERT INTO ${namespace}.fault_side_effects (event_id, run_id, receiver) VALUES ($1, $2, $3)`,
        [callback.event_id, callback.run.run_id, name],
      );
    },
  });
  close = () => stores.close();
} else {
  const stores = openRedisStores({ url: env("WFR_STORE_URL"), keyPrefix: namespace });
  const effects = env("WFR_EFFECTS_FILE");
  handler = createCallbackHandler({
    client,
    store: stores.callbackEvents,
    leaseMs,
    onCompleted: async ({ callback }) => {
      await work();
      appendFileSync(effects, `${callback.event_id}\n`);
    },
  });
  close = () => stores.close();
}

const server = createServer(toNodeHandler(handler));
server.listen(Number(process.env.WFR_PORT ?? "0"), "127.0.0.1", () => {
  const address = server.address();
  process.send?.({ type: "ready", port: typeof address === "object" ? address?.port : 0 });
});
process.on("message", async (message: { type: string }) => {
  if (message.type !== "stop") return;
  server.close();
  await handler.drain();
  await close();
  process.exit(0);
});
