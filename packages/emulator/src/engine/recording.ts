// docs/service-rules.md#recordings: MP4 when ready; 202 RECORDING_PROCESSING + Retry-After: 3;
// 404 RECORDING_NOT_FOUND (also a computer session); 413 above 128 MiB; 429 after 10 attempts
// per workspace per hour. Plain GET only: Range requests still get the full 200.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LIMITS } from "@wfr/protocol";
import { isTerminal, type RunRecord } from "../model/types.js";

const RECORDING_MAX_BYTES = LIMITS.recordingBytes;
const RECORDING_ATTEMPTS_PER_HOUR = LIMITS.recordingAttemptsPerHour;
const HOUR = 3_600_000;
const DEFAULT_PROCESSING_MS = 5_000;

type RecordingState =
  | { kind: "not_found"; reason: string }
  | { kind: "processing" }
  | { kind: "too_large"; size: number }
  | { kind: "ready" };

/** Whether the run has a browser session whose video can exist (recording_url non-null). */
export function hasBrowserRecording(run: RunRecord): boolean {
  const mode = run.scenario.recording?.mode ?? "ready";
  return (
    run.session_id !== null && (run.scenario.session ?? "browser") === "browser" && mode !== "none"
  );
}

/**
 * "processing" mode: the video is assembled until processing_ms after the run ended (and while
 * it is still running). "ready" mode: downloadable as soon as the browser session exists.
 */
export function recordingState(run: RunRecord, now: number): RecordingState {
  if (run.session_id === null)
    return { kind: "not_found", reason: "no browser session exists yet" };
  if ((run.scenario.session ?? "browser") === "computer") {
    return { kind: "not_found", reason: "computer sessions have no recording" };
  }
  const rec = run.scenario.recording ?? { mode: "ready" };
  if (rec.mode === "none")
    return { kind: "not_found", reason: "no recording was made for this run" };
  if (rec.mode === "processing") {
    const done =
      isTerminal(run.status) &&
      run.finished_at !== null &&
      now >= run.finished_at + (rec.processing_ms ?? DEFAULT_PROCESSING_MS);
    if (!done) return { kind: "processing" };
  }
  if (rec.size_bytes !== undefined && rec.size_bytes > RECORDING_MAX_BYTES) {
    return { kind: "too_large", size: rec.size_bytes };
  }
  return { kind: "ready" };
}

/**
 * When a "processing" recording becomes downloadable by time alone (`processing_ms` after the run
 * ended), or null: not processing, or the run has not ended (its end is a timer of its own).
 */
export function recordingReadyAt(run: Readonly<RunRecord>): number | null {
  const rec = run.scenario.recording;
  if (rec?.mode !== "processing" || run.finished_at === null || !isTerminal(run.status))
    return null;
  return run.finished_at + (rec.processing_ms ?? DEFAULT_PROCESSING_MS);
}

/** Rolling one-hour window of attempts per workspace. */
export class RecordingRateLimiter {
  private readonly attempts = new Map<string, number[]>();

  /**
   * Seconds to wait when one more attempt now would be over the limit, else null (the attempt
   * is then counted with `restore`, through the journal: state-changes.ts).
   */
  wait(workspace: string, now: number): number | null {
    const list = (this.attempts.get(workspace) ?? []).filter((t) => t > now - HOUR);
    this.attempts.set(workspace, list);
    if (list.length < RECORDING_ATTEMPTS_PER_HOUR) return null;
    const oldest = list[0] ?? now;
    return Math.max(1, Math.ceil((oldest + HOUR - now) / 1000));
  }

  /**
   * The earliest time after `now` at which a workspace at its limit gets an attempt back (the end
   * of its Retry-After window), or null when no workspace is at its limit.
   */
  reopensAt(now: number): number | null {
    let earliest: number | null = null;
    for (const list of this.attempts.values()) {
      const recent = list.filter((t) => t > now - HOUR);
      if (recent.length < RECORDING_ATTEMPTS_PER_HOUR) continue;
      const at = (recent[recent.length - RECORDING_ATTEMPTS_PER_HOUR] as number) + HOUR;
      if (earliest === null || at < earliest) earliest = at;
    }
    return earliest;
  }

  /** Count an attempt (live, after `wait` allowed it, and on replay). */
  restore(workspace: string, at: number): void {
    const list = this.attempts.get(workspace) ?? [];
    list.push(at);
    this.attempts.set(workspace, list);
  }
}

let cached: Buffer | undefined;
/** The shipped fixture: a 1 s 64x64 H.264 MP4 (ffprobe-valid). */
export function recordingBytes(): Buffer {
  cached ??= readFileSync(
    join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "recording.mp4"),
  );
  return cached;
}
