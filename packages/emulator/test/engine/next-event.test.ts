// The emulator's next event: the earliest timer after now among runs, recordings and the
// recording budget (src/engine/next-event.ts).
import { describe, expect, it } from "vitest";
import { nextEventAt } from "../../src/engine/next-event.js";
import { RecordingRateLimiter, recordingReadyAt } from "../../src/engine/recording.js";
import type { RunRecord } from "../../src/model/types.js";

const HOUR = 3_600_000;

function endedRun(finishedAt: number, recording: RunRecord["scenario"]["recording"]): RunRecord {
  return {
    status: "succeeded",
    finished_at: finishedAt,
    session_id: "ses_1",
    scenario: { steps: [], ...(recording ? { recording } : {}) },
  } as unknown as RunRecord;
}

const noLimit = { reopensAt: () => null };

describe("nextEventAt", () => {
  it("is the engine's due time, or null when nothing is scheduled", () => {
    expect(nextEventAt(1_000, { dueAt: 5_000, runs: [], limiter: noLimit })).toBe(5_000);
    expect(nextEventAt(1_000, { dueAt: null, runs: [], limiter: noLimit })).toBeNull();
  });

  it("leaves out what is due now or past: the next move of the clock processes it anyway", () => {
    expect(nextEventAt(1_000, { dueAt: 1_000, runs: [], limiter: noLimit })).toBeNull();
  });

  it("counts a processing recording becoming ready and the recording budget reopening", () => {
    const processing = endedRun(2_000, { mode: "processing", processing_ms: 4_000 });
    expect(recordingReadyAt(processing)).toBe(6_000);
    expect(recordingReadyAt(endedRun(2_000, { mode: "ready" }))).toBeNull();
    expect(nextEventAt(3_000, { dueAt: 9_000, runs: [processing], limiter: noLimit })).toBe(6_000);
    expect(
      nextEventAt(3_000, { dueAt: 9_000, runs: [], limiter: { reopensAt: () => 4_000 } }),
    ).toBe(4_000);
  });
});

describe("RecordingRateLimiter.reopensAt", () => {
  it("is when the oldest of the last ten attempts leaves the hour, only at the limit", () => {
    const limiter = new RecordingRateLimiter();
    for (let i = 0; i < 9; i += 1) limiter.restore("ws", 1_000 + i);
    expect(limiter.reopensAt(2_000)).toBeNull();
    limiter.restore("ws", 1_009);
    expect(limiter.wait("ws", 2_000)).not.toBeNull();
    expect(limiter.reopensAt(2_000)).toBe(1_000 + HOUR);
    // At that time one more attempt is allowed, and the budget is no longer a timer.
    expect(limiter.wait("ws", 1_000 + HOUR)).toBeNull();
    expect(limiter.reopensAt(1_000 + HOUR)).toBeNull();
  });
});
