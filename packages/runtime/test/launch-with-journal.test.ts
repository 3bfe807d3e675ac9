// The journaled launch's state machine, with a memory journal and stub steps.
import {
  createMemoryLaunchJournal,
  file,
  fingerprintLaunchRequest,
  idempotencyKeyForIntent,
  LaunchIntentConflictError,
  launchWithJournal,
} from "@wfr/runtime";
import { describe, expect, it } from "vitest";

const request = {
  workflowId: "wf_1",
  inputs: { vendor_name: "Northwind" },
  metadata: { invoice: "inv-1" },
};

function steps(outcome: () => Promise<{ run_id: string }>) {
  const sent: string[] = [];
  const read: string[] = [];
  return {
    sent,
    read,
    send: async (key: string) => {
      sent.push(key);
      return outcome();
    },
    readRun: async (runId: string) => {
      read.push(runId);
      return { run_id: runId };
    },
  };
}

describe("launchWithJournal", () => {
  it("records, sends with the derived key, and acknowledges; a second call reads the run instead of resending", async () => {
    const journal = createMemoryLaunchJournal();
    const s = steps(async () => ({ run_id: "run_1" }));
    const run = await launchWithJournal({ journal, id: "inv-1" }, request, {
      send: s.send,
      read: s.readRun,
    });
    expect(run.run_id).toBe("run_1");
    const key = await idempotencyKeyForIntent("wf_1", "inv-1");
    expect(s.sent).toEqual([key]);
    expect(await journal.get("inv-1")).toMatchObject({
      state: "acknowledged",
      runId: "run_1",
      idempotencyKey: key,
    });
    await launchWithJournal({ journal, id: "inv-1" }, request, { send: s.send, read: s.readRun });
    expect(s.sent).toHaveLength(1);
    expect(s.read).toEqual(["run_1"]);
  });

  it("after a crash (left sent), resends with the recorded key, not a new one", async () => {
    const journal = createMemoryLaunchJournal();
    await journal.record({
      intentId: "inv-1",
      idempotencyKey: "key-from-before-the-crash",
      bodyFingerprint: await fingerprintLaunchRequest(request),
    });
    await journal.markSent("inv-1");
    const s = steps(async () => ({ run_id: "run_1" }));
    await launchWithJournal({ journal, id: "inv-1" }, request, { send: s.send, read: s.readRun });
    expect(s.sent).toEqual(["key-from-before-the-crash"]);
  });

  it("refuses to send a different request for a recorded intent", async () => {
    const journal = createMemoryLaunchJournal();
    const s = steps(async () => ({ run_id: "run_1" }));
    await launchWithJournal({ journal, id: "inv-1" }, request, { send: s.send, read: s.readRun });
    const changed = { ...request, inputs: { vendor_name: "Contoso" } };
    await expect(
      launchWithJournal({ journal, id: "inv-1" }, changed, { send: s.send, read: s.readRun }),
    ).rejects.toBeInstanceOf(LaunchIntentConflictError);
    expect(s.sent).toHaveLength(1);
  });

  it("a definitive refusal (4xx) marks the intent failed; a network error leaves it sent for a resend", async () => {
    const journal = createMemoryLaunchJournal();
    const refused = Object.assign(new Error("invalid"), { status: 422, code: "INVALID_INPUTS" });
    const s1 = steps(() => Promise.reject(refused));
    await expect(
      launchWithJournal({ journal, id: "b" }, request, { send: s1.send, read: s1.readRun }),
    ).rejects.toBe(refused);
    expect(await journal.get("b")).toMatchObject({
      state: "failed",
      failure: "422 INVALID_INPUTS",
    });
    const lost = Object.assign(new Error("socket hang up"), {
      status: null,
      code: "NETWORK_ERROR",
    });
    const s2 = steps(() => Promise.reject(lost));
    await expect(
      launchWithJournal({ journal, id: "c" }, request, { send: s2.send, read: s2.readRun }),
    ).rejects.toBe(lost);
    expect(await journal.get("c")).toMatchObject({ state: "sent" });
    expect((await journal.listUnacknowledged()).map((i) => i.intentId)).toContain("c");
  });

  it("fingerprints the meaning of the request: key order does not matter, file bytes do", async () => {
    const a = await fingerprintLaunchRequest({
      workflowId: "wf",
      inputs: { x: 1, y: 2 },
      metadata: { m: 1 },
    });
    const b = await fingerprintLaunchRequest({
      workflowId: "wf",
      inputs: { y: 2, x: 1 },
      metadata: { m: 1 },
    });
    expect(a).toBe(b);
    const pdf = (text: string) =>
      file(new TextEncoder().encode(text), { filename: "a.pdf", mimeType: "application/pdf" });
    const withFile = (text: string) =>
      fingerprintLaunchRequest({ workflowId: "wf", inputs: { doc: pdf(text) } });
    expect(await withFile("%PDF-1")).toBe(await withFile("%PDF-1"));
    expect(await withFile("%PDF-1")).not.toBe(await withFile("%PDF-2"));
    expect(await idempotencyKeyForIntent("wf", "inv-1")).not.toBe(
      await idempotencyKeyForIntent("wf", "inv-2"),
    );
    expect((await idempotencyKeyForIntent("wf", "inv-1")).length).toBeLessThanOrEqual(200);
  });

  it("a file given as bytes or as a Blob, and an input named __proto__, fingerprint as what they are", async () => {
    const bytes = new TextEncoder().encode("%PDF-1");
    const asBytes = await fingerprintLaunchRequest({
      workflowId: "wf",
      inputs: { doc: file(bytes, { filename: "a.pdf", mimeType: "application/pdf" }) },
    });
    const asBlob = await fingerprintLaunchRequest({
      workflowId: "wf",
      inputs: { doc: file(new Blob([bytes]), { filename: "a.pdf", mimeType: "application/pdf" }) },
    });
    expect(asBlob).toBe(asBytes);
    // The key "__proto__" is data: two values of it are two different requests.
    const proto = (value: number) =>
      fingerprintLaunchRequest({
        workflowId: "wf",
        inputs: JSON.parse(`{"__proto__": ${value}, "x": 1}`),
      });
    expect(await proto(1)).not.toBe(await proto(2));
  });
});
