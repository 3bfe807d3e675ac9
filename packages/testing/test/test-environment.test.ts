// The test environment against the real emulator, in-process: the client's
// waits skip the emulator's virtual time, and typed scenarios drive its runs.
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { environment as sample, workflows } from "@wfr/generated/sample";
import { createClient, file } from "@wfr/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEnvironment, fileOutput, scenario, type TestEnvironment } from "../src/index.js";

// The repository's sample environments (sample, sample-staging): the emulator's built-in catalog
// holds the same workflows under the names production and staging.
const SAMPLE_CATALOG = fileURLToPath(new URL("../../../catalog/sample.yaml", import.meta.url));

const TEN_MINUTES = 10 * 60_000;
const inputs = {
  vendor_name: "Northwind Traders",
  amount: 1280.5,
  invoice_pdf: file(new TextEncoder().encode("%PDF-1.4 test"), {
    filename: "inv.pdf",
    mimeType: "application/pdf",
  }),
};
const booked = { invoice_id: "INV-1", total: 1280.5, status: "booked" } as const;

let env: TestEnvironment | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe("createTestEnvironment", () => {
  it("runs a 10-minute human wait to its expiry without sleeping and without a clock call", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    await env.setScenario(
      workflows.invoiceIntake,
      scenario(workflows.invoiceIntake)
        .event("step.started", { name: "book invoice" })
        .checkpoint({ kind: "approval", reason: "Amount above limit", expiresInMs: TEN_MINUTES })
        .succeed(booked),
    );
    const startedAt = env.now();
    const wallStart = performance.now();

    const run = await env.client.launch(workflows.invoiceIntake, { inputs });
    const waiting = await env.client.waitForRun(run.run_id);
    expect(waiting.status).toBe("waiting_for_human_live");
    expect(waiting.human_action?.reason).toBe("Amount above limit");

    // Nobody answers: polling goes on through the wait until the run ends.
    const ended = await env.client.waitForRun(run.run_id, { keepWaitingOnHuman: true });
    const wallMs = performance.now() - wallStart;

    expect(ended.status).toBe("human_wait_expired");
    expect(env.now() - startedAt).toBeGreaterThanOrEqual(TEN_MINUTES);
    expect(env.clock.skips.count).toBeGreaterThan(0);
    const result = await env.client.getResult(workflows.invoiceIntake, run.run_id);
    expect(result).toMatchObject({ state: "terminal", status: "human_wait_expired" });
    // Reported, never asserted (the suite runs on loaded machines).
    console.log(
      `10-minute human wait to expiry: ${Math.round(wallMs)} ms wall, ${env.clock.skips.count} skips over ${Math.round(env.clock.skips.totalMs / 1000)} s of virtual time`,
    );
  });

  it("a typed scenario's outputs come back as the typed result after the checkpoint is answered", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    await env.setScenario(
      workflows.invoiceIntake,
      scenario(workflows.invoiceIntake)
        .wait(30_000)
        .checkpoint({ kind: "approval", reason: "Check the total", expiresInMs: TEN_MINUTES })
        .wait(5 * 60_000)
        .succeed({ ...booked, ledger_lines: [{ account: "6000", debit: 1280.5 }] }),
    );
    const run = await env.client.launch(workflows.invoiceIntake, { inputs });
    const waiting = await env.client.waitForRun(run.run_id);
    const checkpointId = waiting.human_action?.checkpoint_id;
    expect(checkpointId).toEqual(expect.any(String));
    await env.client.answerHumanInput(run.run_id, {
      checkpointId: checkpointId as string,
      response: { approved: true },
    });
    const result = await env.client.waitForResult(workflows.invoiceIntake, run.run_id, {
      answeredCheckpointIds: [checkpointId as string],
    });
    expect(result.state).toBe("terminal");
    if (result.state !== "terminal" || result.status !== "succeeded")
      throw new Error("not succeeded");
    expect(result.outputs.total).toBe(1280.5);
    expect(result.outputs.ledger_lines).toEqual([{ account: "6000", debit: 1280.5 }]);
  });

  it("skips time for several clients at once, each waking at its own time", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    await env.setScenario(
      workflows.invoiceIntake,
      scenario(workflows.invoiceIntake).wait(60_000).succeed(booked),
    );
    const other = createClient({
      environment: env.environment,
      apiKey: env.apiKey,
      clock: env.clock,
      fetch: env.fetch,
    });
    const runs = await Promise.all(
      [env.client, other, env.client].map((client) =>
        client.launch(workflows.invoiceIntake, { inputs }),
      ),
    );
    const ended = await Promise.all(
      runs.map((run, i) =>
        (i === 1 ? other : (env as TestEnvironment).client).waitForRun(run.run_id),
      ),
    );
    expect(ended.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
  });

  it("with skipping off, time moves only by hand, and aborting a wait stops watching only", async () => {
    env = await createTestEnvironment({
      environment: sample,
      catalog: SAMPLE_CATALOG,
      skipTime: false,
    });
    await env.setScenario(
      workflows.invoiceIntake,
      scenario(workflows.invoiceIntake).wait(60_000).succeed(booked),
    );
    const run = await env.client.launch(workflows.invoiceIntake, { inputs });
    const abort = new AbortController();
    const watching = env.client.waitForRun(run.run_id, { signal: abort.signal });
    // Nothing moves by itself: advance by hand until the run has had its minute.
    await env.advance(30_000);
    abort.abort(new Error("stop watching"));
    // The abort lands during a poll (the runtime names the aborted request) or during a sleep.
    await expect(watching).rejects.toThrow(/stop watching|was aborted/);
    const stillRunning = await env.client.getRun(run.run_id);
    expect(stillRunning.status).toBe("running");
    await env.advance(60_000);
    expect((await env.client.getRun(run.run_id)).status).toBe("succeeded");
  });

  it("client.watchRun follows a real run: statuses, its events, the checkpoint, answered in the loop", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    await env.setScenario(
      workflows.invoiceIntake,
      scenario(workflows.invoiceIntake)
        .event("step.started", { name: "book invoice" })
        .wait(20_000)
        .checkpoint({ kind: "approval", reason: "Check the total", expiresInMs: TEN_MINUTES })
        .event("step.completed", { name: "book invoice" })
        .succeed(booked),
    );
    const run = await env.client.launch(workflows.invoiceIntake, { inputs });
    const seen: string[] = [];
    for await (const change of env.client.watchRun(run.run_id)) {
      if (change.type === "status") seen.push(`status ${change.run.serverStatus}`);
      if (change.type === "event") seen.push(`event ${String(change.event.type)}`);
      if (change.type === "human_action") {
        seen.push(`human ${change.humanAction.reason}`);
        await env.client.answerHumanInput(run.run_id, {
          checkpointId: change.humanAction.checkpoint_id as string,
          response: { approved: true },
        });
      }
    }
    // Polling may miss a short-lived status, never an event or the end; the terminal status comes last.
    expect(seen.filter((s) => s.startsWith("event"))).toEqual([
      "event run.queued",
      "event run.starting",
      "event run.running",
      "event step.started",
      "event human.requested",
      "event run.waiting_for_human_live",
      "event human.answered",
      "event human.acknowledged",
      "event run.running",
      "event step.completed",
      "event run.succeeded",
    ]);
    expect(seen).toContain("human Check the total");
    expect(seen.at(-1)).toBe("status succeeded");
  });

  it("a file output given by bytes comes back as a download reference serving those bytes", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    const receipt = new TextEncoder().encode("%PDF-1.4\nreceipt INV-1\n%%EOF\n");
    await env.setScenario(
      workflows.invoiceIntake,
      scenario(workflows.invoiceIntake).succeed({
        ...booked,
        receipt: fileOutput(receipt, { filename: "receipt.pdf", mimeType: "application/pdf" }),
      }),
    );
    const run = await env.client.launch(workflows.invoiceIntake, { inputs });
    const result = await env.client.waitForResult(workflows.invoiceIntake, run.run_id);
    if (result.state !== "terminal" || result.status !== "succeeded")
      throw new Error("not succeeded");
    const reference = result.outputs.receipt;
    expect(reference).toMatchObject({
      filename: "receipt.pdf",
      mime_type: "application/pdf",
      size_bytes: receipt.length,
    });
    const response = await env.client.downloadFileOutput(
      reference as NonNullable<typeof reference>,
    );
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(receipt);
  });

  it("refuses an environment the emulator does not have, naming what it has", async () => {
    await expect(
      createTestEnvironment({
        environment: { name: "nowhere", workspace: "ws", baseUrl: "https://x/api/v1" },
      }),
    ).rejects.toThrow(/no environment "nowhere" \(it has production, staging\)/);
  });

  it("closing rejects a wait still sleeping, and can be called twice", async () => {
    env = await createTestEnvironment({
      environment: sample,
      catalog: SAMPLE_CATALOG,
      skipTime: false,
    });
    const sleeping = env.clock.sleep(60_000);
    await env.close();
    await expect(sleeping).rejects.toThrow("closed");
    await env.close();
  });
});
