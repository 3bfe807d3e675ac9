// Edge tests of every endpoint against the real emulator in-process (the
// fault-injecting fake in client-edge.test.ts and loopback-defects.test.ts
// covers what the emulator cannot do: stalls, resets, HTML 2xx).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  createClient,
  file,
  HumanWaitConflictError,
  IdempotencyConflictError,
  NotFoundError,
  RecordingNotFoundError,
  RecordingProcessingError,
  RunNotFoundError,
  type WorkflowRunClient,
} from "../src/index.js";
import {
  INVOICE_WORKFLOW_ID,
  startTestEmulator,
  type TestEmulator,
  TWO_CHECKPOINTS,
} from "./support/emulator.js";
import { defineInvoiceWorkflow } from "./support/fake-workflows.js";

const invoiceIntake = defineInvoiceWorkflow(INVOICE_WORKFLOW_ID, "enabled", true);
const pdf = () =>
  file(new TextEncoder().encode("%PDF-1.4\n%%EOF\n"), {
    filename: "inv.pdf",
    mimeType: "application/pdf",
  });
const polling = { initialIntervalMs: 20, maxIntervalMs: 100, timeoutMs: 60_000 };

let emu: TestEmulator;
let wfr: WorkflowRunClient;
beforeAll(async () => {
  emu = await startTestEmulator();
  wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
});
afterAll(async () => {
  await emu.close();
});

describe("launch against the emulator", () => {
  it("the same key and body return the same run; a changed body under the key is IdempotencyConflictError with the key", async () => {
    const options = {
      inputs: { vendor_name: "A", amount: 1, invoice_pdf: pdf() },
      idempotencyKey: "edge-order-1",
    };
    const first = await wfr.launch(invoiceIntake, options);
    const again = await wfr.launch(invoiceIntake, options);
    expect(again.run_id).toBe(first.run_id);
    const changed = await wfr
      .launch(invoiceIntake, { ...options, inputs: { ...options.inputs, amount: 2 } })
      .catch((e: unknown) => e);
    expect(changed).toBeInstanceOf(IdempotencyConflictError);
    expect(changed).toBeInstanceOf(ConflictError);
    expect((changed as IdempotencyConflictError).idempotencyKey).toBe("edge-order-1");
  });

  it("withResponse gives the raw response alongside the run (the deprecated wfr.withResponse object still works)", async () => {
    const { data, response } = await wfr.withResponse.launch(invoiceIntake, {
      inputs: { vendor_name: "B", amount: 3, invoice_pdf: pdf() },
    });
    expect(response.status).toBe(202);
    expect(data.run_id).toMatch(/^run_/);
  });

  it("a wrong key is an AuthenticationError whose message does not contain the key", async () => {
    const bad = createClient({ baseUrl: emu.baseUrl, apiKey: "wfr_wrong_KEY_123" });
    const error = await bad.getRun("run_x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(String((error as Error).message)).not.toContain("wfr_wrong_KEY_123");
  });
});

describe("runs, results, events", () => {
  it("getRun/getResult/getEvents on a missing run are RunNotFoundError (a NotFoundError)", async () => {
    const error = await wfr.getRun("run_missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunNotFoundError);
    expect(error).toBeInstanceOf(NotFoundError);
    await expect(wfr.getResult("run_missing")).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(wfr.getEvents("run_missing")).rejects.toBeInstanceOf(RunNotFoundError);
  });

  it("two checkpoints: pending result while waiting, each answered once, stale answer conflicts, then succeeded", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, TWO_CHECKPOINTS);
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "C", amount: 4, invoice_pdf: pdf() },
    });
    const waiting = await wfr.waitForRun(run.run_id, polling);
    expect(waiting.status).toBe("waiting_for_human_live");
    expect(await wfr.getResult(run.run_id)).toMatchObject({ state: "pending" });
    const firstCheckpoint = waiting.human_action?.checkpoint_id as string;
    await wfr.answerHumanInput(run.run_id, { checkpointId: firstCheckpoint, response: "yes" });
    // response_accepted true is not a new wait: this returns at the second checkpoint.
    const second = await wfr.waitForRun(run.run_id, {
      ...polling,
      answeredCheckpointIds: [firstCheckpoint],
    });
    const secondCheckpoint = second.human_action?.checkpoint_id as string;
    expect(secondCheckpoint).not.toBe(firstCheckpoint);
    const stale = await wfr
      .answerHumanInput(run.run_id, { checkpointId: firstCheckpoint, response: "changed" })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(HumanWaitConflictError);
    await wfr.answerHumanInput(run.run_id, { checkpointId: secondCheckpoint, response: "yes" });
    const result = await wfr.waitForResult(invoiceIntake, run.run_id, {
      ...polling,
      answeredCheckpointIds: [firstCheckpoint, secondCheckpoint],
    });
    expect(result).toMatchObject({ state: "terminal", status: "succeeded" });
    const snapshot = (await wfr.getEvents(run.run_id)) as unknown as { events: { type: string }[] };
    expect(snapshot.events.filter((e) => e.type === "human.answered")).toHaveLength(2);
    const late = await wfr
      .answerHumanInput(run.run_id, { checkpointId: secondCheckpoint, response: "no" })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(ConflictError);
  }, 120_000);
});

describe("recordings", () => {
  it("a ready recording downloads as MP4 bytes", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, {
      steps: [{ succeed: {} }],
      recording: { mode: "ready" },
    });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "D", amount: 5, invoice_pdf: pdf() },
    });
    await wfr.waitForRun(run.run_id, polling);
    const download = await wfr.downloadRecording(run.run_id);
    const bytes = new Uint8Array(await new Response(download.stream).arrayBuffer());
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe("ftyp");
  });

  it("a recording still processing costs at most maxAttempts GETs, then RecordingProcessingError", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, {
      steps: [{ succeed: {} }],
      recording: { mode: "processing", processing_ms: 600_000 },
    });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "E", amount: 6, invoice_pdf: pdf() },
    });
    await wfr.waitForRun(run.run_id, polling);
    const error = await wfr
      .downloadRecording(run.run_id, { maxAttempts: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingProcessingError);
  });

  it("a computer session has no recording: RecordingNotFoundError", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, { steps: [{ succeed: {} }], session: "computer" });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "F", amount: 7, invoice_pdf: pdf() },
    });
    await wfr.waitForRun(run.run_id, polling);
    await expect(wfr.downloadRecording(run.run_id)).rejects.toBeInstanceOf(RecordingNotFoundError);
  });
});

describe("withResponse", () => {
  it("getRun, getResult, getEvents: .withResponse() gives the raw response with the data", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, {
      steps: [
        {
          succeed: {
            outputs: { invoice_id: "INV-2", total: 8, status: "booked", summary: "booked" },
          },
        },
      ],
    });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "G", amount: 8, invoice_pdf: pdf() },
    });
    await wfr.waitForRun(run.run_id, polling);
    const envelope = await wfr.getRun(run.run_id).withResponse();
    expect(envelope.response.status).toBe(200);
    expect(envelope.data.run_id).toBe(run.run_id);
    const result = await wfr.getResult(invoiceIntake, run.run_id).withResponse();
    expect(result.response.status).toBe(200);
    expect(result.data).toMatchObject({ state: "terminal", status: "succeeded" });
    const events = await wfr.getEvents(run.run_id).withResponse();
    expect(events.response.headers.get("content-type")).toContain("application/json");
  });

  it("every method's result carries the x-request-id of the response it came from, as non-enumerable _requestId", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, {
      steps: [
        { human: { kind: "approval", reason: "check", instructions: "Approve?" } },
        {
          succeed: {
            outputs: { invoice_id: "INV-3", total: 9, status: "booked", summary: "booked" },
          },
        },
      ],
      recording: { mode: "ready" },
      queue_ms: 10,
      start_ms: 10,
    });
    // Records the request id header of every response the client receives, in order.
    const seen: (string | null)[] = [];
    const recording = createClient({
      baseUrl: emu.baseUrl,
      apiKey: emu.apiKey,
      fetch: async (input, init) => {
        const response = await globalThis.fetch(input, init);
        seen.push(response.headers.get("x-request-id"));
        return response;
      },
    });
    const lastId = () => seen.at(-1);
    const run = await recording.launch(invoiceIntake, {
      inputs: { vendor_name: "H", amount: 9, invoice_pdf: pdf() },
    });
    expect(run._requestId).toMatch(/^req_/);
    expect(run._requestId).toBe(lastId());
    // Non-enumerable: not in keys, spread or JSON, so stored envelopes stay wire-shaped.
    expect(Object.keys(run)).not.toContain("_requestId");
    expect(JSON.stringify(run)).not.toContain("_requestId");
    const waiting = await recording.waitForRun(run.run_id, polling);
    expect(waiting._requestId).toBe(lastId());
    const checkpointId = waiting.human_action?.checkpoint_id ?? "";
    const answered = await recording.answerHumanInput(run.run_id, {
      checkpointId,
      response: { approved: true },
    });
    expect(answered._requestId).toBe(lastId());
    const result = await recording.waitForResult(invoiceIntake, run.run_id, polling);
    expect(result).toMatchObject({ state: "terminal", status: "succeeded" });
    expect(result._requestId).toBe(lastId());
    const envelope = await recording.getRun(run.run_id);
    expect(envelope._requestId).toBe(lastId());
    const events = await recording.getEvents(run.run_id);
    expect(events._requestId).toBe(lastId());
    const download = await recording.downloadRecording(run.run_id);
    expect(download._requestId).toBe(lastId());
    await download.stream.cancel();
    const ids = seen.filter((id) => id !== null);
    expect(new Set(ids).size).toBe(seen.length);
  }, 120_000);

  it("downloadRecording().withResponse(): the raw response and its request id alongside the stream", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, {
      steps: [{ succeed: {} }],
      recording: { mode: "ready" },
    });
    const run = await wfr.launch(invoiceIntake, {
      inputs: { vendor_name: "I", amount: 10, invoice_pdf: pdf() },
    });
    await wfr.waitForRun(run.run_id, polling);
    const { data, response, requestId } = await wfr
      .downloadRecording(run.run_id, { maxAttempts: 1 })
      .withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(data.contentType);
    expect(requestId).toMatch(/^req_/);
    expect(requestId).toBe(response.headers.get("x-request-id"));
    expect(data._requestId).toBe(requestId);
    const bytes = new Uint8Array(await new Response(data.stream).arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe("ftyp");
  });
});
