// createBrowserAccessGrant / getBrowserAccessGrant / deleteBrowserAccessGrant against the
// emulator: the token once, exact origins, typed refusals, deletion that never cancels the run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, file, WorkflowRunApiError, type WorkflowRunClient } from "../src/index.js";
import { INVOICE_WORKFLOW_ID, startTestEmulator, type TestEmulator } from "./support/emulator.js";

let emu: TestEmulator;
let wfr: WorkflowRunClient;
const APP = "https://app.example.com";

beforeAll(async () => {
  emu = await startTestEmulator();
  wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
  // Runs stay live long enough (real clock) for the test to act on their session.
  await emu.setScenario(INVOICE_WORKFLOW_ID, {
    steps: [{ wait_ms: 60_000 }, { succeed: {} }],
    queue_ms: 10,
    start_ms: 10,
  });
});
afterAll(() => emu.close());

async function liveRun(): Promise<string> {
  const run = await wfr.launch(INVOICE_WORKFLOW_ID, {
    inputs: {
      vendor_name: "Northwind",
      amount: 5,
      invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\n"), {
        filename: "inv.pdf",
        mimeType: "application/pdf",
      }),
    },
  });
  for (;;) {
    const current = await wfr.getRun(run.run_id);
    if (current.session_id) return run.run_id;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("browser-access grants", () => {
  it("are created with the token once, read without it, and deleted without cancelling the run", async () => {
    const runId = await liveRun();
    const grant = await wfr.createBrowserAccessGrant(runId, {
      origins: [APP],
      expiresInSeconds: 120,
    });
    expect(grant).toMatchObject({ run_id: runId, origins: [APP], expired: false });
    expect(grant.token).toMatch(/^wfr_grant_/);
    expect(grant._requestId).toEqual(expect.any(String));

    const read = await wfr.getBrowserAccessGrant(grant.grant_id);
    expect(read).toMatchObject({ grant_id: grant.grant_id, run_id: runId, expired: false });
    expect(read).not.toHaveProperty("token");

    await wfr.deleteBrowserAccessGrant(grant.grant_id);
    const after = await wfr.getRun(runId);
    expect(after.status).toBe("running");
  });

  it("refuses a wildcard origin with a typed error naming the field, and a run without a session", async () => {
    const runId = await liveRun();
    const refused = await wfr
      .createBrowserAccessGrant(runId, { origins: [APP, "https://*.example.com"] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkflowRunApiError);
    expect(refused).toMatchObject({ status: 400, code: "INVALID_GRANT" });
    expect(String((refused as Error).message)).toContain("origins[1]");

    const missing = await wfr.getBrowserAccessGrant("grant_nope").catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404 });
  });
});
