// The runtime's retries against the emulator's API faults (the emulator README, "Faults on the
// API itself"): how a team tests its own retry and idempotency handling against the twin.
// A 503 and a 429 with Retry-After are retried; a launch whose answer is lost (the connection
// closes after the emulator made the run) is resent with its key and answered with the same run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, file, InternalServerError, type WorkflowRunClient } from "../src/index.js";
import { INVOICE_WORKFLOW_ID, startTestEmulator, type TestEmulator } from "./support/emulator.js";
import { defineInvoiceWorkflow } from "./support/fake-workflows.js";

const invoiceIntake = defineInvoiceWorkflow(INVOICE_WORKFLOW_ID, "enabled", true);
const pdf = () =>
  file(new TextEncoder().encode("%PDF-1.4\n%%EOF\n"), {
    filename: "inv.pdf",
    mimeType: "application/pdf",
  });

let emu: TestEmulator;
let wfr: WorkflowRunClient;
const retried: { message: string; fields: Record<string, unknown> }[] = [];

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${emu.emulator.url}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function armFault(rule: Record<string, unknown>): Promise<{ id: string }> {
  const r = await admin("POST", "/api-faults", rule);
  if (r.status !== 201) throw new Error(`fault refused: ${await r.text()}`);
  return (await r.json()) as { id: string };
}

async function runCount(): Promise<number> {
  const r = await admin("GET", "/environments/production/runs");
  return ((await r.json()) as { runs: unknown[] }).runs.length;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  wfr = createClient({
    baseUrl: emu.baseUrl,
    apiKey: emu.apiKey,
    retry: { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 50 },
    logger: { warn: (message, fields = {}) => retried.push({ message, fields }) },
  });
});
afterAll(async () => {
  await emu.close();
});

describe("the runtime against the emulator's API faults", () => {
  it("retries a launch through two 503s and gets one run", async () => {
    retried.length = 0;
    const before = await runCount();
    await armFault({ route: "POST /automations/*/runs", fault: "status", status: 503, count: 2 });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "A", amount: 1, invoice_pdf: pdf() },
      idempotencyKey: "api-faults-503",
    });
    expect(run.run_id).toMatch(/^run_/);
    expect(retried.map((r) => [r.message, r.fields.status])).toEqual([
      ["retrying after HTTP status", 503],
      ["retrying after HTTP status", 503],
    ]);
    expect(await runCount()).toBe(before + 1);
  });

  it("waits out a 429's Retry-After on a read", async () => {
    retried.length = 0;
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "B", amount: 2, invoice_pdf: pdf() },
    });
    await armFault({ route: "GET /runs/*", fault: "status", status: 429, retry_after: 1 });
    const read = await wfr.getRun(run.run_id);
    expect(read.run_id).toBe(run.run_id);
    expect(retried).toHaveLength(1);
    expect(retried[0]?.fields).toMatchObject({ status: 429, delayMs: 1000 });
  });

  it("resends a launch whose answer was lost with the same key, and gets the same run", async () => {
    retried.length = 0;
    const before = await runCount();
    await armFault({ route: "POST /automations/*/runs", fault: "drop" });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "C", amount: 3, invoice_pdf: pdf() },
      idempotencyKey: "api-faults-drop",
    });
    expect(retried.map((r) => r.message)).toEqual(["retrying after network error"]);
    // The dropped attempt made the run; the retry was answered with it, not a second one.
    expect(await runCount()).toBe(before + 1);
    const listed = (await (await admin("GET", "/environments/production/runs")).json()) as {
      runs: { run_id: string; idempotency_key: string | null }[];
    };
    expect(listed.runs.filter((r) => r.idempotency_key === "api-faults-drop")).toEqual([
      expect.objectContaining({ run_id: run.run_id }),
    ]);
  });

  it("gives up after its attempts with the last 5xx as an InternalServerError", async () => {
    await armFault({ route: "GET /runs/*", fault: "status", status: 502, count: 10 });
    const failed = await wfr.getRun("run_whatever").catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect((failed as InternalServerError).status).toBe(502);
    await admin("DELETE", "/api-faults");
  });
});
