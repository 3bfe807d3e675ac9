// A launcher process, started by the suite and killed with SIGKILL at random points: it launches
// one run per intent with @wfr/runtime's launch journal on PostgreSQL (`intent: { journal, id }`,
// packages/runtime/README.md "Launch journal"), four at a time. Started again after a kill, it
// goes through the same intents; the journal and the idempotency key make each one run once.
//
// Env: WFR_BASE_URL, WFR_API_KEY, WFR_STORE_URL, WFR_STORE_NAMESPACE (schema), WFR_WORKFLOW_ID,
// WFR_INTENT_PREFIX, WFR_INTENTS. Tells its parent `{type: "launched"}` per launch and
// `{type: "finished"}` at the end.
import { createClient } from "@wfr/runtime";
import { openPostgresStores } from "@wfr/store-postgres";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`launcher: ${name} is not set`);
  return value;
};

const stores = await openPostgresStores({
  databaseUrl: env("WFR_STORE_URL"),
  schema: env("WFR_STORE_NAMESPACE"),
  maxConnections: 2,
});
const client = createClient({ baseUrl: env("WFR_BASE_URL"), apiKey: env("WFR_API_KEY") });
const prefix = env("WFR_INTENT_PREFIX");
const intents = Array.from({ length: Number(env("WFR_INTENTS")) }, (_, i) => `${prefix}${i}`);
let next = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let intent = intents[next++]; intent !== undefined; intent = intents[next++]) {
      await client.launch(env("WFR_WORKFLOW_ID"), {
        inputs: { ticket_url: `https://help.example.com/t/${intent}`, tone: "formal" },
        metadata: { business_id: intent },
        intent: { journal: stores.launchJournal, id: intent },
      });
      process.send?.({ type: "launched" });
    }
  }),
);
await stores.close();
process.send?.({ type: "finished" }, undefined, {}, () => process.exit(0));
