// A launcher process for the kill test: launches one run per intent through
// the launch journal, against the emulator, and is killed -9 at random points.
// Env: WFR_BASE_URL, WFR_API_KEY, WFR_JOURNAL (postgres://... or redis://...),
//      WFR_SCHEMA (schema or key prefix), WFR_INTENTS (count), WFR_ORDER (forward|backward).
import { createClient } from "@wfr/runtime";

const WORKFLOW_ID = "wf_P0ZrTt55"; // Draft customer reply, in the sample catalog

async function openJournal() {
  const url = process.env.WFR_JOURNAL;
  if (url.startsWith("redis://")) {
    const { openRedisStores } = await import("@wfr/store-redis");
    return openRedisStores({ url, keyPrefix: process.env.WFR_SCHEMA });
  }
  const { openPostgresStores } = await import("../../dist/index.js");
  return openPostgresStores({
    databaseUrl: url,
    schema: process.env.WFR_SCHEMA,
    maxConnections: 2,
  });
}

const stores = await openJournal();
const client = createClient({ baseUrl: process.env.WFR_BASE_URL, apiKey: process.env.WFR_API_KEY });
const count = Number(process.env.WFR_INTENTS);
const order = Array.from({ length: count }, (_, i) => i);
if (process.env.WFR_ORDER === "backward") order.reverse();

for (const i of order) {
  const intentId = `${process.env.WFR_SCHEMA}/row-${i}`;
  const inputs = { ticket_url: `https://support.example/tickets/${i}`, tone: "formal" };
  const metadata = { intent: intentId };
  await client.launch(WORKFLOW_ID, {
    inputs,
    metadata,
    intent: { journal: stores.launchJournal, id: intentId },
  });
  process.send?.({ type: "launched", intentId });
}
await stores.close();
process.send?.({ type: "finished" });
