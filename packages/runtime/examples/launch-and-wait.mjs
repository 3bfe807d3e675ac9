// Launch a run, wait for it, read the result. After `pnpm build`, against any API base:
//   WFR_BASE_URL=https://.../<environment>/api/v1 WFR_API_KEY=... WFR_WORKFLOW_ID=wf_... node examples/launch-and-wait.mjs
import { createClient } from "@wfr/runtime";

const wfr = createClient({
  baseUrl: process.env.WFR_BASE_URL ?? "http://127.0.0.1:4010/production/api/v1",
  apiKey: process.env.WFR_API_KEY ?? "",
});
const run = await wfr.launch(process.env.WFR_WORKFLOW_ID ?? "wf_P7Qd2Lx9", {
  inputs: JSON.parse(process.env.WFR_INPUTS ?? '{"vendor_name":"Northwind","amount":1280.5}'),
  metadata: { orderId: "o-1" },
});
console.log(`launched ${run.run_id} with idempotency key ${run.idempotencyKey}`);
const finished = await wfr.waitForRun(run.run_id, {
  initialIntervalMs: 200,
  onUpdate: (update) => console.log(`status: ${update.status}`),
});
if (finished.status === "waiting_for_human_live") {
  console.log("waiting for a person:", finished.human_action?.instructions);
} else {
  const result = await wfr.getResult(run.run_id);
  console.log(
    result.status === "succeeded" ? result.outputs : { status: result.status, error: result.error },
  );
}
