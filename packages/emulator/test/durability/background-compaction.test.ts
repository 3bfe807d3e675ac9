// Growth: the journal is compacted in the background while the emulator serves, and no
// record written during a compaction is lost, also when the process is killed -9 mid-way.
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/index.js";
import { BackgroundCompactor } from "../../src/journal/background-compaction.js";
import { Journal, replayJournal, type StoredRecord } from "../../src/journal/journal.js";
import { frozenRun } from "../../src/journal/journal-records.js";
import type { RunRecord } from "../../src/model/types.js";
import { http } from "../conformance/support.js";
import { BIN, Child, freePort } from "./child.js";

const CRM = "wf_P9hHc2Vb";
const dirs: string[] = [];
const children: Child[] = [];
afterAll(async () => {
  for (const c of children) await c.kill9();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tmpFile(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "wfr-bgcompact-"));
  dirs.push(d);
  return join(d, "journal.jsonl");
}

const records = (file: string) => {
  const out: StoredRecord[] = [];
  replayJournal(file, (r) => out.push(r));
  return out;
};

describe("BackgroundCompactor", () => {
  it("keeps every record appended while the snapshot is written, and appends to the new file after", async () => {
    const file = await tmpFile();
    const journal = new Journal(file);
    for (let i = 0; i < 100; i++) journal.append({ t: "old", i });
    // A live state of several MiB, so writing it takes many turns of the event loop.
    const state = Array.from({ length: 40 }, (_, i) => ({
      t: "state",
      i,
      pad: "s".repeat(200_000),
    }));
    const compactor = new BackgroundCompactor(
      journal,
      () => state,
      1,
      0,
      () => {},
    );
    const done = compactor.compactNow();
    for (let i = 0; i < 50; i++) {
      journal.append({ t: "during", i });
      await new Promise((r) => setImmediate(r));
    }
    const report = await done;
    expect(report?.capturedRecords).toBeGreaterThan(0);
    journal.append({ t: "after", i: 0 });
    await journal.close();
    const got = records(file);
    expect(got.filter((r) => r.t === "old")).toHaveLength(0);
    expect(got.filter((r) => r.t === "state")).toHaveLength(40);
    expect(got.filter((r) => r.t === "during").map((r) => r.i)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    expect(got.at(-1)).toEqual({ t: "after", i: 0 });
    expect(existsSync(`${file}.compacting`)).toBe(false);
  });

  it("starts by itself once the bytes appended since the last compaction pass the threshold", async () => {
    const file = await tmpFile();
    const journal = new Journal(file);
    let live = [{ t: "state", v: 0 }];
    const compactor = new BackgroundCompactor(
      journal,
      () => live,
      10_000,
      0,
      () => {},
    );
    // Appends are queued and written in batches (journal.ts): count what was appended.
    for (let v = 1; journal.appendedBytes < 9_000; v++) {
      live = [{ t: "state", v }];
      journal.append({ t: "state", v, pad: "x".repeat(100) });
      compactor.maybeStart();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(compactor.compactions).toBe(0);
    // Past the threshold, then nothing more: what is appended while the compaction runs is kept
    // after it (captured), and on a busy machine one compaction spans many appends.
    while (journal.appendedBytes <= 10_000) {
      live = [{ t: "state", v: 0 }];
      journal.append({ t: "state", v: 0, pad: "x".repeat(100) });
      compactor.maybeStart();
    }
    while (compactor.compactions === 0) await new Promise((r) => setTimeout(r, 5));
    await compactor.stop();
    await journal.close();
    expect(statSync(file).size).toBeLessThan(2_000);
  });
});

describe("frozenRun", () => {
  it("is not reached by later changes of the run (so a record written during compaction applies once)", () => {
    const run = {
      run_id: "run_1",
      status: "running",
      events: [{ id: "e1", type: "run.running", at: "t" }],
      checkpoints: [{ checkpoint_id: "cp1", kind: "approval" }],
      metadata: { blob: "x" },
      updated_at: 1,
    } as unknown as RunRecord;
    const copy = frozenRun(run);
    run.status = "succeeded";
    run.events.push({ id: "e2", type: "run.succeeded", at: "t" } as RunRecord["events"][number]);
    (run.checkpoints[0] as unknown as Record<string, unknown>).answer = '"ok"';
    expect(copy.status).toBe("running");
    expect(copy.events).toHaveLength(1);
    expect(copy.checkpoints[0]).not.toHaveProperty("answer");
    expect(copy.metadata).toBe(run.metadata); // never changes after launch: shared, not copied
  });
});

describe("background compaction in the emulator", { timeout: 300_000 }, () => {
  it("bounds the journal of a long-running emulator, and a restart restores every run", async () => {
    const data = await tmpFile();
    const admin = (url: string, path: string, body?: unknown) =>
      http(body === undefined ? "GET" : "POST", `${url}/_emulator${path}`, body);
    const emu = await startEmulator({ port: 0, clock: "virtual", data, compactAfterBytes: 64_000 });
    const key = await admin(emu.url, "/keys", { environment: "production" });
    const auth = { authorization: `Bearer ${key.body.token}` };
    const ids: string[] = [];
    let peak = 0;
    let shrank = 0;
    for (let i = 0; i < 60; i++) {
      const r = await http(
        "POST",
        `${emu.url}/production/api/v1/automations/${CRM}/runs`,
        { inputs: { contacts: [] }, metadata: { i } },
        { ...auth, "idempotency-key": `k-${i}` },
      );
      expect(r.status).toBe(202);
      ids.push(r.body.run_id);
      // Every run goes through its whole life: many superseded records.
      for (let s = 0; s < 5; s++) await admin(emu.url, "/clock/advance", { ms: 100 });
      const size = statSync(data).size;
      if (size < peak) shrank += 1;
      peak = Math.max(peak, size);
    }
    const forced = await admin(emu.url, "/journal/compact", {});
    expect(forced.status, forced.text).toBe(200);
    const compacted = statSync(data).size;
    const before = new Map<string, string>();
    for (const id of ids) {
      const g = await http("GET", `${emu.url}/production/api/v1/runs/${id}`, undefined, auth);
      before.set(id, g.body.status);
    }
    await emu.close();
    // Without background compaction the journal only grows; with it, it shrinks as it goes.
    expect(shrank).toBeGreaterThan(0);
    expect(compacted).toBeLessThan(peak);
    expect([...before.values()].every((st) => st === "failed")).toBe(true); // the CRM scenario
    const again = await startEmulator({ port: 0, clock: "virtual", data });
    try {
      for (const [i, id] of ids.entries()) {
        const r = await http(
          "POST",
          `${again.url}/production/api/v1/automations/${CRM}/runs`,
          { inputs: { contacts: [] }, metadata: { i } },
          { ...auth, "idempotency-key": `k-${i}` },
        );
        expect(r.body.run_id).toBe(id);
        expect(r.body.status).toBe(before.get(id));
      }
    } finally {
      await again.close();
    }
  });

  it("launches during forced compactions, then kill -9: after restart every 202 is still there", async () => {
    expect(existsSync(BIN), `${BIN} must be built`).toBe(true);
    const data = await tmpFile();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const base = `${url}/production/api/v1`;
    const start = async () => {
      const c = await Child.start(port, [
        "--data",
        data,
        "--clock",
        "virtual",
        "--compact-after-bytes",
        "20000",
      ]);
      children.push(c);
      return c;
    };
    let child = await start();
    const key = await http("POST", `${url}/_emulator/keys`, { environment: "production" });
    const auth = { authorization: `Bearer ${key.body.token}` };
    // A large live state (8 MiB of metadata), so each compaction writes for many event-loop turns.
    const big = await http(
      "POST",
      `${base}/automations/${CRM}/runs`,
      { inputs: { contacts: [] }, metadata: { blob: "b".repeat(8 * 1024 * 1024) } },
      auth,
    );
    expect(big.status).toBe(202);
    const acked = new Map<number, string>();
    let captured = 0;
    let stop = false;
    const compactLoop = async () => {
      while (!stop) {
        try {
          const r = await http("POST", `${url}/_emulator/journal/compact`, {});
          if (r.status === 200) captured += r.body.captured_records;
        } catch {
          return; // killed
        }
      }
    };
    let next = 0;
    const worker = async () => {
      while (next < 300 && !stop) {
        const i = next++;
        try {
          const r = await http(
            "POST",
            `${base}/automations/${CRM}/runs`,
            { inputs: { contacts: [] }, metadata: { i } },
            { ...auth, "idempotency-key": `bg-${i}` },
          );
          if (r.status === 202) acked.set(i, r.body.run_id);
        } catch {
          /* the server died under this request: it was not acknowledged */
        }
        if (!stop && captured > 0 && acked.size >= 60) {
          stop = true;
          await child.kill9();
        }
      }
    };
    await Promise.all([compactLoop(), ...Array.from({ length: 8 }, worker)]);
    // Launches were acknowledged while a compaction was writing (carried into the new file).
    expect(captured).toBeGreaterThan(0);
    expect(acked.size).toBeGreaterThanOrEqual(60);
    child = await start();
    const g = await http("GET", `${base}/runs/${big.body.run_id}`, undefined, auth);
    expect(g.status).toBe(200);
    expect(g.body.metadata.blob.length).toBe(8 * 1024 * 1024);
    for (const [i, runId] of acked) {
      const again = await http(
        "POST",
        `${base}/automations/${CRM}/runs`,
        { inputs: { contacts: [] }, metadata: { i } },
        { ...auth, "idempotency-key": `bg-${i}` },
      );
      expect(again.status, again.text).toBe(202);
      expect(again.body.run_id, `resend of bg-${i}`).toBe(runId);
    }
    await child.kill9();
    expect(readFileSync(data, "utf8").length).toBeGreaterThan(0);
  });
});
