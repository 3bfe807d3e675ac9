import { fileURLToPath } from "node:url";
// Replaying a recorded run through the testing kit: recorded in one test environment (the way
// `wfr runs export` reads a run), replayed in another for the generated workflow, checked
// against its outputs schema.
import { type RecordedRun, recordRun } from "@wfr/emulator";
import { environment as sample, workflows } from "@wfr/generated/sample";
import { file } from "@wfr/runtime";
import { describe, expect, it } from "vitest";
import { createTestEnvironment, fileOutput, scenario, type TestEnvironment } from "../src/index.js";

// The repository's sample environments (sample, sample-staging): the emulator's built-in catalog
// holds the same workflows under the names production and staging.
const SAMPLE_CATALOG = fileURLToPath(new URL("../../../catalog/sample.yaml", import.meta.url));

const inputs = {
  vendor_name: "Northwind",
  amount: 99,
  invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\n"), {
    filename: "i.pdf",
    mimeType: "application/pdf",
  }),
};
const receiptBytes = new TextEncoder().encode("%PDF-1.4\nrecorded\n");

async function recordOne(
  env: TestEnvironment,
): Promise<{ recorded: RecordedRun; events: string[] }> {
  await env.setScenario(
    workflows.invoiceIntake,
    scenario(workflows.invoiceIntake)
      .event("step.started", { name: "book" })
      .wait(45_000)
      .checkpoint({ kind: "approval", reason: "Over the limit", expiresInMs: 3_600_000 })
      .succeed({
        invoice_id: "INV-99",
        total: 99,
        status: "needs_review",
        receipt: fileOutput(receiptBytes, { filename: "receipt.pdf", mimeType: "application/pdf" }),
      }),
  );
  const run = await env.client.launch(workflows.invoiceIntake, { inputs });
  const waiting = await env.client.waitForRun(run.run_id);
  const checkpointId = waiting.human_action?.checkpoint_id as string;
  await env.client.answerHumanInput(run.run_id, { checkpointId, response: { approved: false } });
  await env.client.waitForRun(run.run_id, { answeredCheckpointIds: [checkpointId] });
  const [envelope, snapshot, result] = await Promise.all([
    env.client.getRun(run.run_id),
    env.client.getEvents(run.run_id),
    env.client.getResult(run.run_id),
  ]);
  const recorded = recordRun({
    run: { ...envelope },
    events: snapshot,
    result: {
      status: result.serverStatus,
      error: result.error,
      outputs: result.state === "terminal" && result.status === "succeeded" ? result.outputs : null,
    },
    environment: env.environment.name,
    apiBase: env.environment.baseUrl,
    // This file tests the replay's fidelity, so the recorded values are kept.
    keepValues: true,
  });
  const events = (snapshot as unknown as { events: { type: string }[] }).events.map((e) => e.type);
  return { recorded, events };
}

describe("env.replay", () => {
  it("replays a recorded run for its workflow: events, checkpoint and typed outputs", async () => {
    const source = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    let recorded: RecordedRun;
    let events: string[];
    try {
      ({ recorded, events } = await recordOne(source));
    } finally {
      await source.close();
    }
    const env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    try {
      await env.replay(workflows.invoiceIntake, JSON.parse(JSON.stringify(recorded)));
      const run = await env.client.launch(workflows.invoiceIntake, { inputs });
      const waiting = await env.client.waitForRun(run.run_id);
      expect(waiting.human_action?.reason).toBe("Over the limit");
      const checkpointId = waiting.human_action?.checkpoint_id as string;
      await env.client.answerHumanInput(run.run_id, {
        checkpointId,
        response: { approved: false },
      });
      const result = await env.client.waitForResult(workflows.invoiceIntake, run.run_id, {
        answeredCheckpointIds: [checkpointId],
      });
      if (result.state !== "terminal" || result.status !== "succeeded")
        throw new Error("not succeeded");
      expect(result.outputs).toMatchObject({
        invoice_id: "INV-99",
        total: 99,
        status: "needs_review",
      });
      // Exported without --fetch-files: the file is there, its bytes a placeholder.
      expect(result.outputs.receipt).toMatchObject({ filename: "receipt.pdf" });
      const replayed = await env.client.getEvents(run.run_id);
      const types = (replayed as unknown as { events: { type: string }[] }).events.map(
        (e) => e.type,
      );
      expect(types).toEqual(events);
    } finally {
      await env.close();
    }
  });

  it("refuses a recording that no longer fits the workflow, naming the field", async () => {
    const env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    try {
      const misfit: RecordedRun = {
        format: "wfr-recorded-run/1",
        environment: "sample",
        workflow_id: workflows.invoiceIntake.id,
        recorded_from: { run_id: "run_old", api_host: "api.example.com", status: "succeeded" },
        scenario: {
          steps: [{ succeed: { outputs: { invoice_id: "INV-1", total: "12", status: "booked" } } }],
        },
      };
      await expect(env.replay(workflows.invoiceIntake, misfit)).rejects.toThrow(
        /run_old does not fit Invoice intake as generated now: total/,
      );
      await expect(env.replay(workflows.crmContactSync, misfit)).rejects.toThrow(
        /is of workflow wf_P7Qd2Lx9/,
      );
    } finally {
      await env.close();
    }
  });
});
