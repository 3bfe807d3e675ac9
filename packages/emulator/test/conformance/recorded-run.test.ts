// A run recorded from one emulator (recordRun over its envelope, events snapshot, result and file
// bytes, as `wfr runs export` reads them) and replayed by another reproduces the run: the same step
// events in order, the checkpoint, the outputs and the file's bytes.
import { describe, expect, it } from "vitest";
import {
  parseRecordedRun,
  RECORDED_RUN_FORMAT,
  RecordedRunError,
  recordRun,
} from "../../src/index.js";
import { Harness, INVOICE, invoiceBody, type Json } from "./support.js";

const receipt = Buffer.from("%PDF-1.4\nreceipt of the recorded run\n%%EOF\n");

async function readAll(h: Harness, runId: string) {
  const c = await h.client();
  const run = (await c.run(runId)).body;
  const events = (await c.api("GET", `/runs/${runId}/events`)).body;
  const result = (await c.api("GET", `/runs/${runId}/result`)).body;
  return { run, events, result };
}

/** Launch, answer the checkpoint when it comes, and read everything once the run ended. */
async function playThrough(h: Harness) {
  const c = await h.client();
  const started = await c.start(INVOICE, invoiceBody({ metadata: { order: "o-secret-42" } }));
  const waiting = await c.untilWaiting(started.run_id);
  const answer = await c.api("POST", `/runs/${started.run_id}/human-input`, {
    checkpoint_id: waiting.human_action.checkpoint_id,
    response: { approved: true },
  });
  expect(answer.status, answer.text).toBe(202);
  await c.untilTerminal(started.run_id);
  return { runId: started.run_id as string, ...(await readAll(h, started.run_id)) };
}

const stepEvents = (events: Json) =>
  (events.events as Json[])
    .map((e) => [e.type, e.data?.name])
    .filter(([type]) => !String(type).startsWith("run.") || type === "run.succeeded");

describe("recorded runs", () => {
  it("replay with the same events, checkpoint and outputs, file bytes included", async () => {
    const source = await Harness.start();
    let recorded: ReturnType<typeof recordRun>;
    let original: Awaited<ReturnType<typeof playThrough>>;
    try {
      await source.scenario("production", INVOICE, {
        steps: [
          { event: { type: "step.started", name: "log in", password: "hunter2" } },
          { wait_ms: 2_000 },
          { event: { type: "step.completed", name: "log in" } },
          {
            human: {
              kind: "approval",
              reason: "Amount above limit",
              instructions: "Approve?",
              expires_in_ms: 600_000,
            },
          },
          { wait_ms: 1_000 },
          {
            succeed: {
              outputs: {
                invoice_id: "INV-42",
                total: 1250.5,
                status: "booked",
                receipt: {
                  $file: {
                    filename: "receipt.pdf",
                    mime_type: "application/pdf",
                    base64: receipt.toString("base64"),
                  },
                },
              },
            },
          },
        ],
      });
      original = await playThrough(source);
      const fileUrl = original.result.outputs.receipt.download_url as string;
      const bytes = new Uint8Array(await (await fetch(fileUrl)).arrayBuffer());
      recorded = recordRun({
        ...original,
        environment: "production",
        apiBase: source.base(),
        files: new Map([[fileUrl, bytes]]),
        keepValues: true,
      });
    } finally {
      await source.close();
    }
    expect(recorded.format).toBe(RECORDED_RUN_FORMAT);
    expect(recorded.recorded_from).toMatchObject({ run_id: original.runId, status: "succeeded" });
    const text = JSON.stringify(recorded);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("o-secret-42");
    expect(recorded.scenario.steps).toContainEqual({ wait_ms: 2_000 });
    expect(recorded.scenario.steps).toContainEqual({
      human: {
        kind: "approval",
        reason: "Amount above limit",
        instructions: "Approve?",
        expires_in_ms: 600_000,
      },
    });

    // The file goes through JSON like the exported file does.
    const replayer = await Harness.start({
      recordedRuns: [parseRecordedRun(JSON.parse(JSON.stringify(recorded)), "recorded.json")],
    });
    try {
      const replayed = await playThrough(replayer);
      expect(stepEvents(replayed.events)).toEqual(stepEvents(original.events));
      expect(replayed.result.status).toBe("succeeded");
      const { receipt: replayedReceipt, ...outputs } = replayed.result.outputs;
      const { receipt: originalReceipt, ...originalOutputs } = original.result.outputs;
      expect(outputs).toEqual(originalOutputs);
      expect(replayedReceipt).toMatchObject({
        filename: "receipt.pdf",
        size_bytes: receipt.length,
      });
      const replayedBytes = Buffer.from(
        await (await fetch(replayedReceipt.download_url)).arrayBuffer(),
      );
      expect(replayedBytes.equals(receipt)).toBe(true);
      expect(originalReceipt.filename).toBe("receipt.pdf");
    } finally {
      await replayer.close();
    }
  });

  it("a failed run replays its failure; an unfinished run cannot be recorded", async () => {
    const h = await Harness.start();
    try {
      await h.scenario("production", INVOICE, {
        steps: [
          { wait_ms: 500 },
          {
            fail: { status: "dead_letter", error: { code: "PORTAL_DOWN", message: "portal down" } },
          },
        ],
      });
      const c = await h.client();
      const run = await c.start(INVOICE, invoiceBody());
      await c.untilTerminal(run.run_id);
      const recorded = recordRun({
        ...(await readAll(h, run.run_id)),
        environment: "production",
        apiBase: h.base(),
        keepValues: true,
      });
      expect(recorded.scenario.steps.at(-1)).toEqual({
        fail: { status: "dead_letter", error: { code: "PORTAL_DOWN", message: "portal down" } },
      });
      expect(() =>
        recordRun({
          run: { run_id: "run_1", workflow_id: INVOICE },
          events: {},
          result: { status: "running" },
          environment: "production",
          apiBase: h.base(),
        }),
      ).toThrow(RecordedRunError);
      expect(() => parseRecordedRun({ format: "other" }, "x.json")).toThrow(
        /x.json: not a recorded run/,
      );
    } finally {
      await h.close();
    }
  });
});
