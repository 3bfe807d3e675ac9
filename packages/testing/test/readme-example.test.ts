import { environment } from "@wfr/generated/sample/environment";
import { invoiceIntake } from "@wfr/generated/sample/invoiceIntake";
import { file } from "@wfr/runtime";
import { createTestEnvironment, scenario, type TestEnvironment } from "@wfr/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

let env: TestEnvironment;
beforeAll(async () => {
  // The emulator in-process on a free port; its clock skips ahead while the client waits. Its
  // workflows: here this repository's sample catalog; in your repository `fromSchemas: "schemas"`.
  env = await createTestEnvironment({ environment, catalog: "../../catalog/sample.yaml" });
});
afterAll(() => env.close());

it("books an invoice after a person approves it, even an hour later", async () => {
  await env.setScenario(
    invoiceIntake,
    scenario(invoiceIntake)
      .checkpoint({ kind: "approval", reason: "Amount above limit", expiresInMs: 24 * 3_600_000 })
      .wait(60_000)
      .succeed({ invoice_id: "INV-1", total: 1280.5, status: "booked" }), // typed: a typo is a tsc error
  );

  // Your code under test would do this with `env.client` (or `env.environment` and `env.apiKey`).
  const run = await env.client.launch(invoiceIntake, {
    inputs: {
      vendor_name: "Northwind Traders",
      amount: 1280.5,
      invoice_pdf: file(new Uint8Array([37, 80, 68, 70]), {
        filename: "inv.pdf",
        mimeType: "application/pdf",
      }),
    },
  });
  const waiting = await env.client.waitForRun(run.run_id);
  const checkpointId = waiting.human_action?.checkpoint_id ?? "";
  await env.advance(3_600_000); // the person answers an hour later
  await env.client.answerHumanInput(run.run_id, { checkpointId, response: { approved: true } });

  const result = await env.client.waitForResult(invoiceIntake, run.run_id, {
    answeredCheckpointIds: [checkpointId],
  });
  expect(result.state === "terminal" && result.status === "succeeded" && result.outputs.total).toBe(
    1280.5,
  );
});
