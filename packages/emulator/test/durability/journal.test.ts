// Durability: streaming replay, torn-tail repair, growth per run, compaction,
// persisted counters; "Safety": bad admin numbers are a 400 naming the field.
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/index.js";
import { JournalCorruptError, replayJournal } from "../../src/journal/journal.js";
import { http } from "../conformance/support.js";

const CRM = "wf_P9hHc2Vb";
const PORTAL = "wf_P3mKs81a";
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "wfr-journal-"));
  dirs.push(d);
  return join(d, "journal.jsonl");
}

async function emulator(data: string) {
  const emu = await startEmulator({ data, clock: "virtual", allowLocalCallbacks: true });
  const admin = (method: string, path: string, body?: unknown) =>
    http(method, `${emu.url}/_emulator${path}`, body);
  return { emu, admin, base: `${emu.url}/production/api/v1` };
}

describe("replayJournal", () => {
  it("keeps a complete last record whose newline was lost, and finishes its line", async () => {
    const file = await tmp();
    writeFileSync(file, '{"t":"a"}\n{"t":"b"}');
    const seen: string[] = [];
    const s = replayJournal(
      file,
      (r) => seen.push(r.t),
      () => {},
    );
    expect(seen).toEqual(["a", "b"]);
    expect(s.droppedBytes).toBe(0);
    expect(readFileSync(file, "utf8")).toBe('{"t":"a"}\n{"t":"b"}\n');
  });

  it("cuts a torn last line, reports it, and keeps every complete record", async () => {
    const file = await tmp();
    writeFileSync(file, '{"t":"a"}\n{"t":"b"}\n{"t":"c","x":[1,');
    const seen: string[] = [];
    const reports: string[] = [];
    const s = replayJournal(
      file,
      (r) => seen.push(r.t),
      (m) => reports.push(m),
    );
    expect(seen).toEqual(["a", "b"]);
    expect(s.droppedBytes).toBe(16);
    expect(reports.join("")).toContain("line 3, 16 bytes");
    expect(readFileSync(file, "utf8")).toBe('{"t":"a"}\n{"t":"b"}\n');
  });

  it("a corrupt line in the middle is an error naming the line", async () => {
    const file = await tmp();
    writeFileSync(file, '{"t":"a"}\n{"t":"b"{"t":"c"}\n{"t":"d"}\n');
    expect(() => replayJournal(file, () => {})).toThrow(JournalCorruptError);
    expect(() => replayJournal(file, () => {})).toThrow(/line 2:/);
  });

  it("reads lines that span many read chunks", async () => {
    const file = await tmp();
    const big = "x".repeat(3 * 1024 * 1024 + 17);
    writeFileSync(file, `{"t":"a","v":"${big}"}\n{"t":"b"}\n`);
    const seen: unknown[] = [];
    replayJournal(file, (r) => seen.push(r.v === undefined ? r.t : (r.v as string).length));
    expect(seen).toEqual([big.length, "b"]);
  });
});

describe("journal growth and restart", { timeout: 300_000 }, () => {
  it("a run's records over its whole life stay within twice its launch body, callbacks included", async () => {
    const data = await tmp();
    const { emu, admin, base } = await emulator(data);
    try {
      const key = await admin("POST", "/keys", { environment: "production" });
      const auth = { authorization: `Bearer ${key.body.token}` };
      const before = statSync(data).size;
      const body = {
        inputs: { portal_url: "https://portal.example.com/login", account_label: "main" },
        metadata: { blob: "m".repeat(4 * 1024 * 1024) },
        callback_url: "http://127.0.0.1:9/never",
      };
      const bodyBytes = Buffer.byteLength(JSON.stringify(body));
      await admin("PUT", `/environments/production/workflows/${PORTAL}/scenario`, {
        steps: [
          { event: { type: "a" } },
          { human: { kind: "approval", reason: "r", expires_in_ms: 60_000 } },
          { wait_ms: 1000 },
          { succeed: {} },
        ],
      });
      const r = await http("POST", `${base}/automations/${PORTAL}/runs`, body, auth);
      expect(r.status).toBe(202);
      for (let i = 0; i < 20; i++) await admin("POST", "/clock/advance", { ms: 100 });
      const st = await http("GET", `${base}/runs/${r.body.run_id}`, undefined, auth);
      const cp = st.body.human_action?.checkpoint_id;
      expect(cp).toBeTypeOf("string");
      await http(
        "POST",
        `${base}/runs/${r.body.run_id}/human-input`,
        { checkpoint_id: cp, response: "ok" },
        auth,
      );
      for (let i = 0; i < 30; i++) await admin("POST", "/clock/advance", { ms: 100 });
      const done = await http("GET", `${base}/runs/${r.body.run_id}`, undefined, auth);
      expect(done.body.status).toBe("succeeded");
      const grown = statSync(data).size - before;
      console.log(
        `journal bytes over the run's life: ${grown} for a ${bodyBytes}-byte launch body`,
      );
      expect(grown).toBeLessThan(2 * bodyBytes);
    } finally {
      await emu.close();
    }
  });

  it("a 100 MB journal restarts, with every run and key", async () => {
    const data = await tmp();
    const first = await emulator(data);
    const key = await first.admin("POST", "/keys", { environment: "production" });
    const auth = { authorization: `Bearer ${key.body.token}` };
    const meta = { blob: "z".repeat(1024 * 1024) };
    const r = await http(
      "POST",
      `${first.base}/automations/${CRM}/runs`,
      { inputs: { contacts: [] }, metadata: meta },
      { ...auth, "idempotency-key": "seed" },
    );
    expect(r.status).toBe(202);
    await first.emu.close();
    // Grow it to 100 MB with copies of the real run record, each its own run and key.
    const lines = readFileSync(data, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    const runLine = lines.find((l) => l.startsWith('{"t":"run"')) as string;
    const seed = r.body.run_id as string;
    let copies = 0;
    while (statSync(data).size < 100 * 1024 * 1024) {
      const batch: string[] = [];
      for (let i = 0; i < 10; i++, copies++) {
        batch.push(
          runLine
            .replaceAll(seed, `run_copy${String(copies).padStart(12, "0")}`)
            .replace('"idempotency_key":"seed"', `"idempotency_key":"copy-${copies}"`),
        );
      }
      appendFileSync(data, `${batch.join("\n")}\n`);
    }
    const size = statSync(data).size;
    const t0 = performance.now();
    const second = await emulator(data);
    const restartMs = performance.now() - t0;
    try {
      console.log(`restart of a ${(size / 1e6).toFixed(1)} MB journal: ${restartMs.toFixed(0)} ms`);
      const last = `run_copy${String(copies - 1).padStart(12, "0")}`;
      for (const id of [seed, "run_copy000000000000", last]) {
        const g = await http("GET", `${second.base}/runs/${id}`, undefined, auth);
        expect(g.status, id).toBe(200);
        expect(g.body.metadata.blob.length).toBe(meta.blob.length);
      }
      const again = await http(
        "POST",
        `${second.base}/automations/${CRM}/runs`,
        { inputs: { contacts: [] }, metadata: meta },
        { ...auth, "idempotency-key": `copy-${copies - 1}` },
      );
      expect(again.body.run_id).toBe(last);
    } finally {
      await second.emu.close();
    }
  });

  it("the recording budget and delivery attempts survive a restart", async () => {
    const data = await tmp();
    let e = await emulator(data);
    const key = await e.admin("POST", "/keys", { environment: "production" });
    const auth = { authorization: `Bearer ${key.body.token}` };
    const r = await http(
      "POST",
      `${e.base}/automations/${CRM}/runs`,
      {
        inputs: { contacts: [] },
      },
      auth,
    );
    await e.admin("POST", "/clock/advance", { ms: 5000 });
    for (let i = 0; i < 10; i++) {
      const g = await http("GET", `${e.base}/runs/${r.body.run_id}/recording`, undefined, auth);
      expect(g.status).toBe(200);
    }
    await e.emu.close();
    e = await emulator(data);
    try {
      const g = await http("GET", `${e.base}/runs/${r.body.run_id}/recording`, undefined, auth);
      expect(g.status).toBe(429);
    } finally {
      await e.emu.close();
    }
  });
});

describe("admin numbers are bounded", () => {
  it("clock advance by 1e16 is a 400 naming ms, and the server keeps working after it", async () => {
    const data = await tmp();
    const { emu, admin } = await emulator(data);
    try {
      const bad = await admin("POST", "/clock/advance", { ms: 1e16 });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toContain("ms");
      expect(bad.body.field).toBe("ms");
      expect((await admin("GET", "/clock")).status).toBe(200);
      expect((await admin("POST", "/clock/advance", { ms: 1000 })).status).toBe(200);
    } finally {
      await emu.close();
    }
  });

  it("expires_in_ms 1e300 is a 400 naming the field; launches with callbacks keep working", async () => {
    const emu = await startEmulator({ allowLocalCallbacks: true });
    try {
      const admin = (m: string, p: string, b?: unknown) => http(m, `${emu.url}/_emulator${p}`, b);
      const bad = await admin("PUT", `/environments/production/workflows/${PORTAL}/scenario`, {
        steps: [{ human: { kind: "approval", reason: "r", expires_in_ms: 1e300 } }],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toContain("steps[0].human.expires_in_ms");
      const key = await admin("POST", "/keys", { environment: "production" });
      const r = await http(
        "POST",
        `${emu.url}/production/api/v1/automations/${PORTAL}/runs`,
        {
          inputs: { portal_url: "https://portal.example.com/login", account_label: "main" },
          callback_url: "http://127.0.0.1:9/cb",
        },
        { authorization: `Bearer ${key.body.token}` },
      );
      expect(r.status).toBe(202);
    } finally {
      await emu.close();
    }
  });
});
