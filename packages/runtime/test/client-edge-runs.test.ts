// Edge tests: the real client against a fault-injecting fake API on loopback, after the launch:
// results and polling, the recording, human input. The launch itself: client-edge.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createClient,
  HumanWaitConflictError,
  HumanWaitExpiredError,
  NotWaitingForHumanError,
  RecordingNotFoundError,
  RecordingProcessingError,
  RecordingRateLimitedError,
  RecordingTooLargeError,
  RunNotFoundError,
  WaitTimeoutError,
} from "../src/index.js";
import { type FakeApi, startFakeApi } from "./support/fake-api-server.js";
import { createVirtualClock, invoiceIntake } from "./support/fake-workflows.js";

const API_KEY = "wfr_live_SECRET123";
let fake: FakeApi;

beforeEach(async () => {
  fake = await startFakeApi(API_KEY);
});
afterEach(async () => {
  await fake.close();
});

function client(overrides: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({
    baseUrl: fake.baseUrl,
    apiKey: API_KEY,
    clock: createVirtualClock(),
    retry: { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 100, totalTimeoutMs: 60_000 },
    ...overrides,
  });
}

describe("results and polling", () => {
  it("The result endpoint returns 202 while the run is not terminal and 200 once it is terminal", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const pending = await wfr.getResult(invoiceIntake, run.run_id);
    expect(pending.state).toBe("pending");
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "succeeded";
    stored.outputs = { total: 12, summary: "ok" };
    const done = await wfr.getResult(invoiceIntake, run.run_id);
    expect(done.state).toBe("terminal");
    if (done.status !== "succeeded") throw new Error(`expected success, got ${done.status}`);
    expect(done.outputs.total).toBe(12);
  });

  it("HTTP 200 from the result endpoint also accompanies failed, error, cancelled, terminated, dead_letter and human_wait_expired runs; callers inspect status and error and do not treat HTTP success as business success", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    for (const status of [
      "failed",
      "error",
      "cancelled",
      "terminated",
      "dead_letter",
      "human_wait_expired",
    ]) {
      stored.status = status;
      const result = await wfr.getResult(invoiceIntake, run.run_id);
      expect(result.state).toBe("terminal");
      expect(result.status).toBe(status);
      expect(result.outputs).toBeUndefined();
    }
  });

  it("Clients must treat any other string as a status they do not know (not terminal until the result endpoint answers 200)", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "thinking"; // the fake answers 202 on /result for this one
    let polls = 0;
    const finished = await wfr.waitForRun(run.run_id, {
      onUpdate: () => {
        polls += 1;
        // The server finishes the run while the client holds the third "thinking" envelope.
        if (polls === 3) stored.status = "archived_for_audit";
      },
    });
    // "thinking" is unknown: polling went on while /result said 202 and stopped when it said 200.
    expect(finished.status).toBe("unrecognized");
    expect(finished.serverStatus).toBe("thinking");
    expect(polls).toBe(3);
    expect(fake.requestsTo("GET", /\/result$/)).toHaveLength(3);
    const result = await wfr.getResult(invoiceIntake, run.run_id);
    expect(result).toMatchObject({
      state: "terminal",
      status: "unrecognized",
      serverStatus: "archived_for_audit",
    });
  });

  it("an unknown server status is 'unrecognized' on every envelope (raw value in serverStatus), never a crash, a human wait or terminal by guess", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    expect(run).toMatchObject({ status: "queued", serverStatus: "queued" });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    stored.status = "paused_by_operator"; // the fake's /result answers 200 for it
    const read = await wfr.getRun(run.run_id);
    expect(read).toMatchObject({ status: "unrecognized", serverStatus: "paused_by_operator" });
    // Serialised as the wire had it plus serverStatus: nothing is lost for logs or storage.
    expect(JSON.parse(JSON.stringify(read))).toMatchObject({ serverStatus: "paused_by_operator" });
    stored.status = "thinking"; // /result answers 202: not terminal
    const waiting = await wfr
      .waitForRun(run.run_id, { initialIntervalMs: 10, maxIntervalMs: 20, timeoutMs: 200 })
      .catch((e: unknown) => e);
    // Polled until the timeout (virtual clock), asking /result each time; the message names the wire value.
    expect(waiting).toBeInstanceOf(WaitTimeoutError);
    expect((waiting as WaitTimeoutError).message).toContain("thinking");
    expect(fake.requestsTo("GET", /\/result$/).length).toBeGreaterThan(1);
    const pending = await wfr.getResult(run.run_id);
    expect(pending).toMatchObject({
      state: "pending",
      status: "unrecognized",
      serverStatus: "thinking",
    });
  });

  it("waitForRun and waitForResult take the per-request maxRetries and headers for every poll", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    let polls = 0;
    const result = await wfr.waitForResult(invoiceIntake, run.run_id, {
      headers: { "x-trace-id": "trace-7" },
      onUpdate: () => {
        polls += 1;
        if (polls === 2) {
          stored.status = "succeeded";
          stored.outputs = { total: 3, summary: "done" };
        }
      },
    });
    expect(result.status).toBe("succeeded");
    const reads = fake.requests.filter((r) => r.method === "GET");
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const read of reads) expect(read.headers["x-trace-id"]).toBe("trace-7");
    const RUN_PATH = new RegExp(`/runs/${run.run_id}$`);
    fake.script("GET", RUN_PATH, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    const before = fake.requestsTo("GET", RUN_PATH).length;
    const error = await wfr.waitForRun(run.run_id, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(fake.requestsTo("GET", RUN_PATH).length - before).toBe(1);
  });

  it("waitForResult polls 202 then 200 and returns typed, validated outputs", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    const stored = fake.runs.get(run.run_id);
    if (!stored) throw new Error("run not stored");
    let polls = 0;
    const result = await wfr.waitForResult(invoiceIntake, run.run_id, {
      onUpdate: () => {
        polls += 1;
        if (polls === 1) {
          stored.status = "succeeded";
          stored.outputs = { total: 3, summary: "done" };
        }
      },
    });
    expect(polls).toBe(2);
    expect(result).toMatchObject({ status: "succeeded", outputs: { total: 3, summary: "done" } });
  });

  it("RUN_NOT_FOUND when missing or not visible maps to RunNotFoundError and is not retried", async () => {
    await expect(client().getRun("run_missing")).rejects.toBeInstanceOf(RunNotFoundError);
    expect(fake.requestsTo("GET", /run_missing/)).toHaveLength(1);
  });

  it("getEvents reads the JSON snapshot", async () => {
    const wfr = client();
    const run = await wfr.launch(invoiceIntake, { inputs: { vendor_name: "A", amount: 1 } });
    expect(await wfr.getEvents(run.run_id)).toEqual({ events: [] });
  });
});

describe("recording", () => {
  const RECORDING = /\/runs\/run_1\/recording$/;
  const processing = {
    status: 202,
    headers: { "retry-after": "3" },
    body: { error: "assembling", code: "RECORDING_PROCESSING" },
  };

  it("202 RECORDING_PROCESSING with header Retry-After: 3 while the video is assembled; retry the same URL (plain GET, no Range)", async () => {
    const clock = createVirtualClock();
    const video = new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112]);
    fake.script("GET", RECORDING, processing);
    fake.script("GET", RECORDING, processing);
    fake.script("GET", RECORDING, {
      status: 200,
      headers: { "content-type": "video/mp4" },
      body: video,
    });
    const download = await client({ clock }).downloadRecording("run_1");
    const bytes = new Uint8Array(await new Response(download.stream).arrayBuffer());
    expect(bytes).toEqual(video);
    expect(download.contentType).toBe("video/mp4");
    expect(download.contentLength).toBe(video.byteLength);
    const attempts = fake.requestsTo("GET", RECORDING);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.path)).size).toBe(1);
    for (const attempt of attempts) expect(attempt.headers.range).toBeUndefined();
    expect(clock.sleeps).toEqual([3000, 3000]);
  });

  it("gives up with RecordingProcessingError after the bounded attempts", async () => {
    fake.script("GET", RECORDING, processing);
    fake.script("GET", RECORDING, processing);
    const error = await client()
      .downloadRecording("run_1", { maxProcessingAttempts: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingProcessingError);
    expect(fake.requestsTo("GET", RECORDING)).toHaveLength(2);
  });

  it("429 RECORDING_RATE_LIMITED with Retry-After when over the hourly limit is thrown at once, not slept through", async () => {
    const clock = createVirtualClock();
    fake.script("GET", RECORDING, {
      status: 429,
      headers: { "retry-after": "1800" },
      body: { error: "limit", code: "RECORDING_RATE_LIMITED" },
    });
    const error = await client({ clock })
      .downloadRecording("run_1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecordingRateLimitedError);
    expect((error as RecordingRateLimitedError).retryAfterSeconds).toBe(1800);
    expect(clock.sleeps).toEqual([]);
    expect(fake.requestsTo("GET", RECORDING)).toHaveLength(1);
  });

  it("404 RECORDING_NOT_FOUND and 413 RECORDING_TOO_LARGE are typed", async () => {
    fake.script("GET", RECORDING, {
      status: 404,
      body: { error: "none", code: "RECORDING_NOT_FOUND" },
    });
    await expect(client().downloadRecording("run_1")).rejects.toBeInstanceOf(
      RecordingNotFoundError,
    );
    fake.script("GET", RECORDING, {
      status: 413,
      body: { error: "big", code: "RECORDING_TOO_LARGE" },
    });
    await expect(client().downloadRecording("run_1")).rejects.toBeInstanceOf(
      RecordingTooLargeError,
    );
  });
});

describe("human input", () => {
  const HUMAN = /\/runs\/run_1\/human-input$/;
  const waitingEnvelope = {
    run_id: "run_1",
    workflow_id: "wf_invoice",
    status: "waiting_for_human_live",
    timestamps: {},
    error: null,
    metadata: {},
    human_action: { checkpoint_id: "cp_1", response_accepted: true },
  };

  it("checkpoint_id (string; technically optional for compatibility, always sent)", async () => {
    fake.script("POST", HUMAN, { status: 202, body: waitingEnvelope });
    const run = await client().answerHumanInput("run_1", {
      checkpointId: "cp_1",
      response: { approve: true },
    });
    expect(JSON.parse(fake.requestsTo("POST", HUMAN)[0]?.body ?? "")).toEqual({
      checkpoint_id: "cp_1",
      response: { approve: true },
    });
    expect(run.human_action?.response_accepted).toBe(true);
  });

  it("An identical answer to the same checkpoint is idempotent: a 503 is retried with the identical body only", async () => {
    fake.script("POST", HUMAN, { status: 503, body: { error: "busy", code: "UNAVAILABLE" } });
    fake.script("POST", HUMAN, { status: 202, body: waitingEnvelope });
    await client().answerHumanInput("run_1", { checkpointId: "cp_1", response: "approve" });
    const attempts = fake.requestsTo("POST", HUMAN);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.body).toBe(attempts[0]?.body);
  });

  it("A changed answer or stale checkpoint returns 409 HUMAN_WAIT_CONFLICT. Run not in a human wait returns 409 NOT_WAITING_FOR_HUMAN. Expired wait returns 410 HUMAN_WAIT_EXPIRED", async () => {
    fake.script("POST", HUMAN, {
      status: 409,
      headers: { "x-should-retry": "false" },
      body: { error: "x", code: "HUMAN_WAIT_CONFLICT" },
    });
    fake.script("POST", HUMAN, {
      status: 409,
      body: { error: "x", code: "NOT_WAITING_FOR_HUMAN" },
    });
    fake.script("POST", HUMAN, { status: 410, body: { error: "x", code: "HUMAN_WAIT_EXPIRED" } });
    const wfr = client();
    const answer = { checkpointId: "cp_1", response: "yes" };
    await expect(wfr.answerHumanInput("run_1", answer)).rejects.toBeInstanceOf(
      HumanWaitConflictError,
    );
    await expect(wfr.answerHumanInput("run_1", answer)).rejects.toBeInstanceOf(
      NotWaitingForHumanError,
    );
    await expect(wfr.answerHumanInput("run_1", answer)).rejects.toBeInstanceOf(
      HumanWaitExpiredError,
    );
    expect(fake.requestsTo("POST", HUMAN)).toHaveLength(3);
  });
});
