import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Client, Harness, http, type Json, PORTAL, portalBody } from "./support.js";

// Each test gets its own emulator: recording downloads are rate limited per workspace per hour.
let h: Harness;
let c: Client;

beforeEach(async () => {
  h = await Harness.start();
  c = await h.client();
});
afterEach(() => h?.close());

async function finishedRun(recording: Json, session?: string): Promise<Json> {
  await h.scenario("production", PORTAL, {
    steps: [{ wait_ms: 500 }, { succeed: {} }],
    recording,
    ...(session ? { session } : {}),
  });
  const run = await c.start(PORTAL, portalBody());
  return c.untilTerminal(run.run_id);
}

function isMp4(bytes: Buffer): boolean {
  return bytes.length > 16 && bytes.subarray(4, 8).toString("latin1") === "ftyp";
}

async function download(runId: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${c.base}/runs/${runId}/recording`, {
    headers: { authorization: `Bearer ${c.token}`, ...headers },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes };
}

describe("GET /runs/{runId}/recording", () => {
  it("Response 200: MP4 attachment", async () => {
    const run = await finishedRun({ mode: "ready" });
    const { res, bytes } = await download(run.run_id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^video\/mp4/);
    expect(res.headers.get("content-disposition") ?? "").toMatch(/attachment/);
    expect(isMp4(bytes)).toBe(true);
    const len = res.headers.get("content-length");
    if (len !== null) expect(Number(len)).toBe(bytes.length);
  });

  it("The recording is a real, playable MP4 (box structure and ffprobe)", async () => {
    const run = await finishedRun({ mode: "ready" });
    const { res, bytes } = await download(run.run_id);
    expect(res.status).toBe(200);
    // Top-level ISO BMFF boxes tile the file exactly and include ftyp, moov and mdat.
    const boxes: string[] = [];
    let at = 0;
    while (at + 8 <= bytes.length) {
      let size = bytes.readUInt32BE(at);
      const type = bytes.subarray(at + 4, at + 8).toString("latin1");
      if (size === 1) size = Number(bytes.readBigUInt64BE(at + 8));
      if (size === 0) size = bytes.length - at;
      expect(size, `box ${type} at ${at}`).toBeGreaterThanOrEqual(8);
      boxes.push(type);
      at += size;
    }
    expect(at).toBe(bytes.length);
    expect(boxes[0]).toBe("ftyp");
    expect(boxes).toContain("moov");
    expect(boxes).toContain("mdat");
    let ffprobe = true;
    try {
      execFileSync("ffprobe", ["-version"], { stdio: "ignore" });
    } catch {
      ffprobe = false;
    }
    if (ffprobe) {
      const dir = mkdtempSync(join(tmpdir(), "wfr-rec-"));
      try {
        const file = join(dir, "run.mp4");
        writeFileSync(file, bytes);
        const out = execFileSync(
          "ffprobe",
          ["-v", "error", "-show_streams", "-show_format", "-of", "json", file],
          { encoding: "utf8" },
        );
        const info = JSON.parse(out);
        expect(info.streams.some((st: Json) => st.codec_type === "video")).toBe(true);
        expect(Number(info.format.duration)).toBeGreaterThan(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it("Plain GET only; byte-range requests are not supported", async () => {
    const run = await finishedRun({ mode: "ready" });
    const full = await download(run.run_id);
    const ranged = await download(run.run_id, { range: "bytes=100-199" });
    expect(ranged.res.status).toBe(200);
    expect(ranged.res.headers.get("content-range")).toBeNull();
    expect(ranged.bytes.length).toBe(full.bytes.length);
    expect(isMp4(ranged.bytes)).toBe(true);
    expect(ranged.bytes.equals(full.bytes)).toBe(true);
  });

  it("202 RECORDING_PROCESSING with header Retry-After: 3 while the video is assembled; retry the same URL", async () => {
    const run = await finishedRun({ mode: "processing", processing_ms: 30_000 });
    const r = await http("GET", `${c.base}/runs/${run.run_id}/recording`, undefined, {
      authorization: `Bearer ${c.token}`,
    });
    expect(r.status).toBe(202);
    expect(r.body.code).toBe("RECORDING_PROCESSING");
    expect(r.headers.get("retry-after")).toBe("3");
    await h.advance(31_000);
    const { res, bytes } = await download(run.run_id);
    expect(res.status).toBe(200);
    expect(isMp4(bytes)).toBe(true);
  });

  it("404 RECORDING_NOT_FOUND when no recording is available", async () => {
    const run = await finishedRun({ mode: "none" });
    const r = await c.api("GET", `/runs/${run.run_id}/recording`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("RECORDING_NOT_FOUND");
  });

  it("404 RECORDING_NOT_FOUND when no recording is available, including a computer session", async () => {
    const run = await finishedRun({ mode: "ready" }, "computer");
    const r = await c.api("GET", `/runs/${run.run_id}/recording`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("RECORDING_NOT_FOUND");
  });

  it("413 RECORDING_TOO_LARGE above 128 MiB", async () => {
    const run = await finishedRun({ mode: "ready", size_bytes: 134_217_729 });
    const r = await c.api("GET", `/runs/${run.run_id}/recording`);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("RECORDING_TOO_LARGE");
  });

  it("A recording of exactly 128 MiB is not too large", async () => {
    const run = await finishedRun({ mode: "ready", size_bytes: 134_217_728 });
    const res = await fetch(`${c.base}/runs/${run.run_id}/recording`, {
      headers: { authorization: `Bearer ${c.token}` },
    });
    await res.body?.cancel();
    expect(res.status).toBe(200);
  });

  it("429 RECORDING_RATE_LIMITED with Retry-After when over the hourly limit (10 per workspace per hour)", async () => {
    const other = await finishedRun({ mode: "ready" });
    const run = await finishedRun({ mode: "ready" });
    // Attempts count per workspace, across runs.
    for (let i = 1; i <= 10; i++) {
      const { res } = await download(i % 2 ? run.run_id : other.run_id);
      expect(res.status, `attempt ${i}`).toBe(200);
    }
    const r = await c.api("GET", `/runs/${run.run_id}/recording`);
    expect(r.status).toBe(429);
    expect(r.body.code).toBe("RECORDING_RATE_LIMITED");
    const retryAfter = Number(r.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another key of the same workspace shares the limit.
    const sibling = await h.client("production");
    const s = await sibling.api("GET", `/runs/${run.run_id}/recording`);
    expect(s.status).toBe(429);
    // The limit is per hour: after the hour the same URL works again.
    await h.advance(3_600_000 + 1_000);
    const { res } = await download(run.run_id);
    expect(res.status).toBe(200);
  });

  it("No portal cookie or signed playback link is needed; a backend API key is", async () => {
    const run = await finishedRun({ mode: "ready" });
    const anon = await fetch(`${c.base}/runs/${run.run_id}/recording`);
    expect(anon.status).toBe(401);
    await anon.arrayBuffer();
    const viaLink = await fetch(run.recording_url, {
      headers: { authorization: `Bearer ${c.token}` },
    });
    expect(viaLink.status).toBe(200);
    expect(isMp4(Buffer.from(await viaLink.arrayBuffer()))).toBe(true);
  });
});
